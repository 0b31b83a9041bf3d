"""Sign-off checks: one record per row of the verdict; `bot/signoff/verify.py` computes the rows."""
