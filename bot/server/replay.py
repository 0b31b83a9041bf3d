"""`bot replay EVENT_FILE --event NAME [--dry-run]`: review a PR from a recorded payload.

The payload is judged by the same `classify` as a live delivery (so an ignored
action is reported as ignored), then the review pipeline runs once, directly (no
queue), against the configured GitHub (`GITHUB_API_URL` may point at a fake). With
--dry-run the gateway is wrapped in `DryRunGateway` and the writes are printed.
With --local-repo DIR (and --dry-run) the reads come from that local clone
instead (`LocalGitGateway`): the payload's base and head SHAs must be in it, and
no GitHub access or credentials are needed.

Exit status: 0 reviewed, dry run printed, or the delivery is ignored; 1 GitHub
failed; 2 usage or input error.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TextIO

from bot.app.local import SourceError, resolve_commit
from bot.github.localgit import LocalGitGateway
from bot.github.types import GitHubError, PullInfo
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
    local_repo: str | None = None


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


def _local_factory(repo_dir: str, payload: Any) -> GatewayFactory:
    """A factory of `LocalGitGateway`s holding the payload's pull request."""
    pr = payload.get("pull_request") if isinstance(payload, dict) else None
    repo = (payload.get("repository") or {}).get("full_name") if isinstance(payload, dict) else None
    if not isinstance(pr, dict) or not isinstance(repo, str):
        raise ReplayError("the payload has no pull_request or repository.full_name")
    head, base = pr.get("head") or {}, pr.get("base") or {}
    try:
        head_sha = resolve_commit(repo_dir, str(head.get("sha") or ""))
        base_sha = resolve_commit(repo_dir, str(base.get("sha") or ""))
    except SourceError as exc:
        raise ReplayError(
            f"--local-repo {repo_dir}: {exc} (fetch the pull request first)"
        ) from None
    info = PullInfo(
        repo=repo,
        number=int(pr.get("number") or payload.get("number") or 0),
        head_sha=head_sha,
        base_sha=base_sha,
        base_ref=str(base.get("ref") or base_sha),
        head_ref=str(head.get("ref") or head_sha),
        author=str((pr.get("user") or {}).get("login") or "unknown"),
        draft=bool(pr.get("draft")),
        state=str(pr.get("state") or "open"),
        html_url=str(pr.get("html_url") or ""),
    )
    return lambda installation: LocalGitGateway(repo_dir, {info.number: info})


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
        options.event,
        payload,
        review_drafts=settings.review_drafts,
        is_self=identity.is_self,
        check_run=settings.check_run,
    )
    if decision.kind == "malformed":
        raise ReplayError(f"{options.event_file}: {decision.reason}")
    if decision.kind != "review" or decision.pull is None:
        out.write(f"ignored: {decision.reason}\n")
        return 0
    pull = decision.pull
    if options.local_repo is not None:
        if not options.dry_run:
            raise ReplayError("--local-repo reads local git and writes nothing: add --dry-run")
        gateways = _local_factory(options.local_repo, payload)
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
