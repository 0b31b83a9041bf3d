"""A throwaway PostgreSQL server for tests and benchmarks: `initdb` into a temp folder,
`pg_ctl start` on a free loopback port with its socket in that folder, `stop` at the end.

The binaries come from `BOT_PG_BINDIR`, then `pg_ctl` on PATH, then the newest
`/usr/lib/postgresql/*/bin` (Debian's layout). As root, the server runs as the `postgres`
user (`runuser`), since PostgreSQL refuses to run as root.
"""

from __future__ import annotations

import atexit
import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path


def find_bindir() -> Path | None:
    configured = os.environ.get("BOT_PG_BINDIR")
    candidates = [configured] if configured else []
    on_path = shutil.which("pg_ctl")
    if on_path:
        candidates.append(str(Path(os.path.realpath(on_path)).parent))
    candidates += sorted(
        glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2] or 0)
    )[::-1]
    for c in candidates:
        if c and (Path(c) / "pg_ctl").exists() and (Path(c) / "initdb").exists():
            return Path(c)
    return None


def unavailable_reason() -> str | None:
    """Why no throwaway server can be started here (None: it can)."""
    if find_bindir() is None:
        return (
            "PostgreSQL is not installed (no pg_ctl/initdb; `apt-get install postgresql`, "
            "or set BOT_TEST_PG_DSN)"
        )
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and there is no `postgres` user to run the server as"
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PgServer:
    def __init__(self, root: str | None = None) -> None:
        bindir = find_bindir()
        if bindir is None:
            raise RuntimeError(unavailable_reason() or "no PostgreSQL")
        self.bindir = bindir
        self.root = Path(root or tempfile.mkdtemp(prefix="bot-pg-"))
        self.root.chmod(0o755)
        self.data = self.root / "data"
        self.socket_dir = self.root / "sock"
        self.port = free_port()
        self.log = self.root / "server.log"
        self._user = "postgres" if os.geteuid() == 0 else None
        self._exit_hook = False

    @property
    def dsn(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def url(self, database: str) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def _run(self, *args: str) -> None:
        cmd = [str(self.bindir / args[0]), *args[1:]]
        if self._user:
            cmd = ["runuser", "-u", self._user, "--", *cmd]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def _own(self, path: Path) -> None:
        if self._user:
            entry = pwd.getpwnam(self._user)
            os.chown(path, entry.pw_uid, entry.pw_gid)

    def init(self) -> None:
        for d in (self.data, self.socket_dir):
            d.mkdir(parents=True, exist_ok=True)
            self._own(d)
        self.log.touch()
        self._own(self.log)
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8")

    def start(self, *, fsync: bool = True) -> None:
        if not (self.data / "PG_VERSION").exists():
            self.init()
        options = (
            f"-p {self.port} -k {self.socket_dir} -c listen_addresses=127.0.0.1"
            f" -c max_connections=200 -c fsync={'on' if fsync else 'off'}"
        )
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-o", options, "-w", "start")
        if not self._exit_hook:  # a crashed test run or benchmark leaves no server behind
            atexit.register(self.cleanup)
            self._exit_hook = True

    def stop(self, mode: str = "fast") -> None:
        with contextlib.suppress(subprocess.CalledProcessError):
            self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def cleanup(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> PgServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.cleanup()
