"""`bot backtest`."""
