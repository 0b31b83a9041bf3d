"""The webhook service (`bot serve`) and `bot replay`: an edge, like `bot.github`.

- `settings`: configuration from the environment and/or a TOML file, read on demand.
- `webhook`: signature check and classification of deliveries (no I/O).
- `queue`: the durable SQLite job queue behind the `JobQueue` interface.
- `worker`: review worker threads (leases, retries, dead letters).
- `gateways`: the lazy, shared GitHub gateway factory and the metrics wrapper.
- `app`: the FastAPI app (`/webhook`, `/healthz`, `/readyz`, `/metrics`) and `serve`.
- `metrics`: Prometheus text exposition.
- `dryrun`: `DryRunGateway`, reads delegated and writes recorded.
- `replay`: `bot replay`.
- `healthcheck`: `python -m bot.server.healthcheck`, the container's health check.

Nothing here reads the environment at import time.
"""
