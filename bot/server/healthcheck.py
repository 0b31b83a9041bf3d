"""`python -m bot.server.healthcheck`: probe a local `bot serve`; exit 0 when it is ready.

The Dockerfile's HEALTHCHECK and .ci/run use this same command. It asks
`http://127.0.0.1:$BOT_PORT/readyz` (port 8080 by default; `--url` overrides) and
exits 1 on any failure: refused, timed out, or not ready (database unreachable,
credentials missing, a worker thread dead).
"""

from __future__ import annotations

import argparse
import os
import sys
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence


def probe(url: str, timeout: float = 4.0) -> tuple[bool, str]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status == 200, response.read(500).decode("utf-8", "replace")
    except urllib.error.HTTPError as exc:
        return False, f"{exc.code}: {exc.read(500).decode('utf-8', 'replace')}"
    except (OSError, ValueError) as exc:
        return False, str(exc)


def main(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> int:
    env = os.environ if environ is None else environ
    parser = argparse.ArgumentParser(prog="python -m bot.server.healthcheck")
    parser.add_argument("--url", help="what to probe (default: 127.0.0.1:$BOT_PORT/readyz)")
    parser.add_argument("--timeout", type=float, default=4.0)
    args = parser.parse_args(argv)
    url = args.url or f"http://127.0.0.1:{env.get('BOT_PORT') or '8080'}/readyz"
    ok, detail = probe(url, args.timeout)
    if not ok:
        print(f"unhealthy: {url}: {detail}", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
