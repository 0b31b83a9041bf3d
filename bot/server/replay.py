"""`bot replay EVENT_FILE --event NAME [--dry-run]`: review a PR from a recorded payload.

The payload is judged by the same `classify` as a live delivery (so an ignored
action is reported as ignored), then the review pipeline runs once, directly (no
queue), against the configured GitHub (`GITHUB_API_URL` may point at a fake). With
--dry-run the gateway is wrapped in `DryRunGateway` and the writes are printed.

Exit status: 0 reviewed, dry run printed, or the delivery is ignored; 1 GitHub
failed; 2 usage or input error.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TextIO

from bot.github.types import GitHubError
from bot.server.dryrun import DryRunGateway
from bot.server.gateways import ConfigurationError, GatewayFactory, github_factory
from bot.server.settings import Settings, SettingsError, load_settings
from bot.server.webhook import Malformed, classify, parse_body, valid_event_name
from bot.server.worker import Identity, Reviewer, pipeline_reviewer


class ReplayError(Exception):
    """Bad input (the file, its shape, the options); exit status 2."""


@dataclass(frozen=True)
class ReplayOptions:
    event_file: str
    event: str
    dry_run: bool = False
    index: int | None = None
    installation: int | None = None
    config: str | None = None
    format: str = "text"


def load_payload(path: str, index: int | None) -> Any:
    try:
        with open(path, "rb") as fh:
            data = fh.read(32 * 1024 * 1024)
    except OSError as exc:
        raise ReplayError(f"{path}: {exc.strerror or exc}") from None
    try:
        payload = parse_body(data, "application/json")
    except Malformed as exc:
        raise ReplayError(f"{path}: {exc}") from None
    if isinstance(payload, list):
        if index is None:
            if len(payload) != 1:
                raise ReplayError(
                    f"{path} holds {len(payload)} payloads; choose one with --index N"
                )
            index = 0
        if not 0 <= index < len(payload):
            raise ReplayError(f"--index {index} is out of range (0-{len(payload) - 1})")
        return payload[index]
    if index not in (None, 0):
        raise ReplayError(f"{path} holds one payload; --index {index} is out of range")
    return payload


def replay(
    options: ReplayOptions,
    environ: Mapping[str, str],
    out: TextIO,
    err: TextIO,
    *,
    gateways: GatewayFactory | None = None,
    reviewer: Reviewer | None = None,
) -> int:
    if not valid_event_name(options.event):
        raise ReplayError(f"--event {options.event!r} is not a webhook event name")
    payload = load_payload(options.event_file, options.index)
    try:
        settings: Settings = load_settings(
            environ, options.config, require_secret=False, require_credentials=False
        )
    except SettingsError as exc:
        raise ReplayError(str(exc)) from None
    identity = Identity(settings.self_login, settings.github_app_slug)
    decision = classify(
        options.event, payload, review_drafts=settings.review_drafts, is_self=identity.is_self
    )
    if decision.kind == "malformed":
        raise ReplayError(f"{options.event_file}: {decision.reason}")
    if decision.kind != "review" or decision.pull is None:
        out.write(f"ignored: {decision.reason}\n")
        return 0
    pull = decision.pull
    if gateways is None and settings.credentials is None:
        raise ReplayError(
            "no GitHub credentials: set GITHUB_TOKEN, or GITHUB_APP_ID with "
            "GITHUB_APP_PRIVATE_KEY or GITHUB_APP_PRIVATE_KEY_PATH"
        )
    factory = gateways or github_factory(settings)
    review = reviewer or pipeline_reviewer(settings)
    try:
        gateway = factory(options.installation or pull.installation_id)
        dry = DryRunGateway(gateway) if options.dry_run else None
        posted = review(dry or gateway, pull.repo, pull.number, pull.head_sha)
    except GitHubError as exc:
        err.write(f"bot: error: GitHub: {exc} (status {exc.status})\n")
        return 1
    except ConfigurationError as exc:
        raise ReplayError(str(exc)) from None
    target = f"{pull.repo}#{pull.number} at {pull.head_sha[:12]}"
    if dry is not None:
        if options.format == "json":
            out.write(
                json.dumps(
                    {
                        "pull": target,
                        "skipped": posted.skipped,
                        "writes": json.loads(dry.to_json()),
                    },
                    ensure_ascii=False,
                    indent=2,
                )
                + "\n"
            )
        else:
            out.write(f"dry run of {options.event}.{decision.action} for {target}\n")
            if posted.skipped:
                out.write(f"skipped: {'; '.join(posted.skipped)}\n")
            out.write(dry.render())
        return 0
    if posted.skipped:
        out.write(f"{target}: skipped ({'; '.join(posted.skipped)})\n")
        return 0
    status = posted.status.state if posted.status else "-"
    out.write(
        f"{target}: review {posted.review_id}, {posted.inline} inline comment(s), "
        f"summary comment {posted.summary_comment_id}, status {status}\n"
    )
    return 0
