"""Shared fixtures.

`fake_github`: a fake GitHub REST API on loopback (`tests/fakegithub.py`),
started for the test and stopped after it. Point PyGithub (or the gateway) at
`fake_github.url`.

`config`, `lint`: the shipped configuration and the shared lint helpers of
`tests/lintkit.py` (`lint.files(...)`, `lint.pr(head, base, ...)`, `lint.rule(id)`).
Module-level helpers and parametrisations import `lintkit` directly; no test module
declares its own configuration or engine call.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import lintkit
import pytest
from fakegithub import FakeGitHub

from bot.core.config import Config


@pytest.fixture(autouse=True, scope="session")
def _no_lint_cache() -> Iterator[None]:
    """`bot lint` keeps a cache in the repository it lints (`bot.app.cache`); the suite
    runs without one (also in the subprocesses it starts), so no test leaves a cache in
    the project's examples or reads another test's. The cache's own tests turn it on."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("BOT_NO_CACHE", "1")
        mp.delenv("BOT_CACHE_DIR", raising=False)
        yield


@pytest.fixture
def config() -> Config:
    """The configuration without a repository config file (built once per session)."""
    return lintkit.default_config()


class _Lint:
    files = staticmethod(lintkit.lint_files)
    pr = staticmethod(lintkit.lint_pr)
    rule = staticmethod(lintkit.rule)
    rules_for = staticmethod(lintkit.rules_for)
    config_with = staticmethod(lintkit.config_with)


@pytest.fixture
def lint() -> type[_Lint]:
    """The shared lint helpers (`tests/lintkit.py`) as a fixture."""
    return _Lint


@pytest.fixture
def fake_github() -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        yield fake
        assert not fake.crashes, f"the fake GitHub crashed: {fake.crashes!r}"


@pytest.fixture
def github_gateway(fake_github: FakeGitHub) -> Iterator[Any]:
    """A token-auth `PyGithubGateway` on `fake_github`, acting as "recipe-bot".

    No write pacing; waits (Retry-After, backoff) are recorded in
    `github_gateway.slept` instead of slept."""
    from bot.github.gateway import from_token

    fake_github.add_token("test-token", "recipe-bot")
    slept: list[float] = []
    gateway = from_token(
        "test-token", fake_github.url, seconds_between_writes=0, sleep=slept.append
    )
    gateway.slept = slept
    yield gateway
    gateway.close()


# ---------------------------------------------------------------- PostgreSQL
#
# `pg_admin_dsn`: a PostgreSQL server for the tests that need one. `BOT_TEST_PG_DSN` (set
# by .ci/run, which starts the server) names it; without it a throwaway server is started
# here when the binaries exist (tests/pgserver.py), so a plain `python -m pytest` exercises
# PostgreSQL too. Where neither works, only the tests that need it skip, saying why.


@pytest.fixture(scope="session")
def pg_admin_dsn() -> Iterator[str]:

    dsn = os.environ.get("BOT_TEST_PG_DSN")
    if dsn:
        yield dsn
        return
    import pgserver

    reason = pgserver.unavailable_reason()
    if reason:
        pytest.skip(f"PostgreSQL unavailable: {reason}")
    server = pgserver.PgServer()
    try:
        server.start(fsync=False)
    except Exception as exc:  # pragma: no cover - depends on the machine
        server.cleanup()
        pytest.skip(f"PostgreSQL unavailable: could not start a throwaway server: {exc}")
    try:
        yield server.dsn
    finally:
        server.cleanup()


_pg_databases = iter(range(1, 1_000_000))


@pytest.fixture
def pg_url(pg_admin_dsn: str) -> Iterator[str]:
    """A fresh, migrated database on the test server (dropped afterwards)."""

    import psycopg

    from bot.server import pgqueue

    name = f"bot_test_{os.getpid()}_{next(_pg_databases)}"
    with psycopg.connect(pg_admin_dsn, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')  # type: ignore[arg-type]
    base, _, _ = pg_admin_dsn.rpartition("/")
    url = f"{base}/{name}"
    pgqueue.migrate(url)
    yield url
    with psycopg.connect(pg_admin_dsn, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')  # type: ignore[arg-type]


# ---------------------------------------------------------------- GitHub's contract


@pytest.fixture(autouse=True)
def _github_contract() -> Iterator[None]:
    """Every fake GitHub a test starts is held to GitHub's REST description
    (`tests/github_contract.py`): a request the bot sent or an answer the fake gave that
    the description rejects fails the test, however the fake was stopped."""
    import sys

    classes = [
        m.FakeGitHub for m in (sys.modules.get(n) for n in ("fakegithub", "tests.fakegithub")) if m
    ]
    before = {id(f) for c in classes for f in list(c.live)}
    yield
    classes = [
        m.FakeGitHub for m in (sys.modules.get(n) for n in ("fakegithub", "tests.fakegithub")) if m
    ]
    for cls in classes:
        for fake in list(cls.live):
            if id(fake) not in before and not getattr(fake, "contract_checked", False):
                fake.contract_checked = True
                fake.assert_contract()
