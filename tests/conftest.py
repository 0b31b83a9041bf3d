"""Shared fixtures.

`fake_github`: a fake GitHub REST API on loopback (`tests/fakegithub.py`),
started for the test and stopped after it. Point PyGithub (or the gateway) at
`fake_github.url`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fakegithub import FakeGitHub


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
