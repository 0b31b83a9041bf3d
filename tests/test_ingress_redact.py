"""The pure halves of ingress reliability: id and name ranges (`bot.server.ingress`), the
classification of out-of-range payloads (`bot.server.webhook`), and credential
redaction (`bot.redact`)."""

from __future__ import annotations

import io
import logging

import pytest
from webhook_fakes import pr_payload, sha

from bot.redact import MARK, RedactingFormatter, Redactor, redact
from bot.server.ingress import MAX_ID, check_record, valid_id, valid_repo
from bot.server.queue import DeliveryRecord
from bot.server.webhook import PullEvent, SignoffRequest, classify

# canaries: shaped like the real thing, never valid anywhere
GHS = "ghs_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
GHP = "ghp_" + "Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp9Oo8"
PAT = "github_pat_11ABCDEFG0" + "x" * 70
JWT = "eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiI0MjQyIiwiaWF0IjoxfQ.c2lnbmF0dXJlLWJ5dGVz"
ANT = "sk-ant-api03-" + "q" * 40
PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAcanary\nAbCdEf==\n-----END RSA PRIVATE KEY-----"


@pytest.mark.parametrize(
    "name",
    ["Codertocat/Hello-World", "a/b", "octo-org/.github", "o_emu/x.y-z_", "A1/" + "n" * 100],
)
def test_valid_repository_names(name: str) -> None:
    assert valid_repo(name)


@pytest.mark.parametrize(
    "name",
    [
        "../..",
        "a/..",
        "a/.",
        "./a",
        "-a/b",
        "a/b/c",
        "a",
        "/b",
        "a/",
        "a/b\n",
        "a b/c",
        "a/" + "n" * 101,
        "o" * 40 + "/x",
        "a/b?x",
        "é/b",
        None,
        7,
    ],
)
def test_invalid_repository_names(name: object) -> None:
    assert not valid_repo(name)


def test_id_ranges() -> None:
    assert valid_id(1) and valid_id(MAX_ID)
    for bad in (0, -1, MAX_ID + 1, 2**63, 2**70, True, 1.0, "1", None):
        assert not valid_id(bad), bad


def test_out_of_range_installation_is_malformed_not_dropped() -> None:
    payload = pr_payload("opened", 3, sha(1))
    payload["installation"] = {"id": 2**70}
    decision = classify("pull_request", payload)
    assert decision.kind == "malformed" and "installation.id" in decision.reason
    for absent in ({}, {"id": None}, {"id": "12"}):
        payload["installation"] = absent
        assert classify("pull_request", payload).kind == "review"


@pytest.mark.parametrize("repo", ["../..", "a/..", "x/y/z"])
def test_invalid_repository_in_a_payload_is_malformed(repo: str) -> None:
    payload = pr_payload("opened", 3, sha(1), repo=repo)
    decision = classify("pull_request", payload)
    assert decision.kind == "malformed" and "repository" in decision.reason


def test_timestamps_out_of_range_are_dropped_not_raised() -> None:
    payload = pr_payload("opened", 3, sha(1), updated_at="9999-12-31T23:59:59-23:59")
    assert classify("pull_request", payload).kind == "review"
    payload = pr_payload("opened", 3, sha(1), updated_at="0001-01-01T00:00:00+23:59")
    decision = classify("pull_request", payload)
    assert decision.kind == "review" and decision.pull and decision.pull.updated_at is None


def _record(**pull: object) -> DeliveryRecord:
    fields: dict[str, object] = {
        "repo": "o/r",
        "number": 1,
        "head_sha": sha(1),
        "updated_at": 1.0,
        "installation_id": 1,
        "sender": "x",
        "draft": False,
    }
    fields.update(pull)
    return DeliveryRecord("d-1", "pull_request", "opened", "review", "", PullEvent(**fields))  # type: ignore[arg-type]


def test_check_record_is_the_last_gate() -> None:
    assert check_record(_record()) is None
    assert "installation" in (check_record(_record(installation_id=2**70)) or "")
    assert "repository" in (check_record(_record(repo="../..")) or "")
    assert "number" in (check_record(_record(number=2**40)) or "")
    assert "commit" in (check_record(_record(head_sha="HEAD")) or "")
    assert "updated_at" in (check_record(_record(updated_at=-5.0)) or "")
    signoff = SignoffRequest("o/r", 1, None, "", {"id": 2**64, "author": "a"})
    record = DeliveryRecord("d-2", "issue_comment", "created", "signoff", "", signoff=signoff)
    assert "id" in (check_record(record) or "")
    ok = SignoffRequest("o/r", 1, 5, "", {"id": 9, "author": "a", "signoff": True, "at": ""})
    assert check_record(DeliveryRecord("d-3", "e", "a", "signoff", "", signoff=ok)) is None
    bad_id = DeliveryRecord("../../x", "ping", None, "ping", "")
    assert check_record(bad_id) == "invalid delivery id"


@pytest.mark.parametrize("secret", [GHS, GHP, PAT, JWT, ANT])
def test_token_shapes_are_redacted_everywhere_in_a_line(secret: str) -> None:
    for text in (
        secret,
        f"POST /statuses: 401 Bad credentials ({secret})",
        f'{{"message": "token {secret} is invalid"}}',
        f"url=https://x/?access_token={secret}&a=1",
    ):
        out = redact(text)
        assert secret not in out and MARK in out
        assert secret[8:30] not in out


def test_pem_blocks_whole_escaped_and_cut() -> None:
    assert "canary" not in redact(f"key: {PEM} end")
    assert redact(f"a {PEM} b").endswith(" b")
    escaped = PEM.replace("\n", "\\n")
    assert "canary" not in redact(f'{{"key": "{escaped}"}}')
    assert "canary" not in redact("error: " + PEM[:50])  # cut inside the block


def test_authorization_headers_and_literal_secrets() -> None:
    r = Redactor([b"webhook-canary-secret", "short", None, "my-token-value\n"])
    out = r("Authorization: token abcdef123456 and webhook-canary-secret, my-token-value")
    assert "abcdef123456" not in out and "webhook-canary-secret" not in out
    assert "my-token-value" not in out
    assert "short" in r("a short word")  # below MIN_SECRET: left alone, never erases prose
    assert r("Authorization: Bearer xyz") == f"Authorization: Bearer {MARK}"
    assert (
        redact("nothing secret here: ghp_ is a prefix") == "nothing secret here: ghp_ is a prefix"
    )


def test_formatter_redacts_messages_arguments_and_tracebacks() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(RedactingFormatter("%(message)s", redactor=Redactor(["s3cret-value"])))
    logger = logging.getLogger("test.redact")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        logger.warning("token %s and %s", GHS, "s3cret-value")
        try:
            raise RuntimeError(f"upstream said {GHP}")
        except RuntimeError:
            logger.exception("failed with %s", JWT)
    finally:
        logger.removeHandler(handler)
    text = stream.getvalue()
    assert "Traceback" in text and "RuntimeError" in text
    for secret in (GHS, GHP, JWT, "s3cret-value"):
        assert secret not in text
