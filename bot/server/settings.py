"""Configuration of `bot serve` and `bot replay`: environment variables and/or a TOML file.

Read only when `load_settings` is called (when the app is created or a command
runs), never at import time. Every option has an environment variable; a config
file (`--config FILE` or `BOT_CONFIG`) may set the same names as TOML keys, and the
environment wins over the file. `OPTIONS` is the single list: `bot serve --help`
and docs/deployment.md are written from it.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from bot.advisor.client import AdvisorConfigError, advisor_settings

MIB = 1024 * 1024
DEFAULT_DB = "bot-queue.sqlite3"


class SettingsError(Exception):
    """The configuration is unusable; the message names the variable."""


# how an option's text is read: `secret` is a string never shown, `path` a file name
OptionKind = Literal["str", "int", "float", "bool", "secret", "path"]


@dataclass(frozen=True)
class Option:
    env: str
    kind: OptionKind
    default: str
    help: str


OPTIONS: tuple[Option, ...] = (
    Option(
        "BOT_WEBHOOK_SECRET", "secret", "", "webhook secret (required by `bot serve`; HMAC-SHA256)"
    ),
    Option(
        "BOT_WEBHOOK_SECRET_PREVIOUS",
        "secret",
        "",
        "the previous secret, also accepted while a rotation is under way",
    ),
    Option("GITHUB_API_URL", "str", "https://api.github.com", "GitHub REST API base URL"),
    Option("GITHUB_TOKEN", "secret", "", "a token to act as (instead of a GitHub App)"),
    Option("GITHUB_APP_ID", "int", "", "GitHub App id (with a private key)"),
    Option("GITHUB_APP_PRIVATE_KEY", "secret", "", "the App's private key, PEM text"),
    Option("GITHUB_APP_PRIVATE_KEY_PATH", "path", "", "file holding the App's private key"),
    Option(
        "GITHUB_APP_INSTALLATION_ID",
        "int",
        "",
        "installation to use when a payload names none (bot replay)",
    ),
    Option(
        "GITHUB_APP_SLUG",
        "str",
        "",
        "the App's slug: deliveries sent by <slug>[bot] are ignored",
    ),
    Option(
        "BOT_LOGIN",
        "str",
        "",
        "the bot's login; deliveries it sent are ignored (default: asked from GitHub)",
    ),
    Option(
        "BOT_DB",
        "path",
        DEFAULT_DB,
        "SQLite queue file (WAL mode), relative to the cwd; or a postgresql:// URL (replicas)",
    ),
    Option("BOT_HOST", "str", "127.0.0.1", "address `bot serve` binds (--host wins)"),
    Option("BOT_PORT", "int", "8080", "port `bot serve` listens on (--port wins)"),
    Option(
        "BOT_WORKERS",
        "int",
        "2",
        "review worker threads (0: only acknowledge; another `bot serve` on BOT_DB reviews)",
    ),
    Option(
        "BOT_LEASE_SECONDS",
        "float",
        "30",
        "a running job's lease (heartbeat timeout); renewed every third of it while its worker"
        " lives, so a dead replica's jobs are recovered within it",
    ),
    Option(
        "BOT_SWEEP_SECONDS",
        "float",
        "300",
        "a PR's newest head left without a review and without a job this long is queued again",
    ),
    Option("BOT_MAX_ATTEMPTS", "int", "5", "attempts before a job is dead-lettered"),
    Option(
        "BOT_JOB_TIMEOUT_SECONDS",
        "float",
        "600",
        "wall-clock limit of one job attempt; past it the attempt fails and is retried",
    ),
    Option("BOT_RETRY_BASE_SECONDS", "float", "10", "first retry delay; doubles per attempt"),
    Option("BOT_RETRY_MAX_SECONDS", "float", "900", "longest retry delay"),
    Option("BOT_POLL_SECONDS", "float", "1", "how often idle workers look for due retries"),
    Option("BOT_STATUS_CONTEXT", "str", "recipe-review", "commit status context"),
    Option(
        "BOT_COMMIT_STATUS",
        "bool",
        "true",
        "set the commit status BOT_STATUS_CONTEXT (branch protection that requires it)",
    ),
    Option(
        "BOT_CHECK_RUNS",
        "bool",
        "true",
        "report each review as a check run (a GitHub App with `checks: write`)",
    ),
    Option("BOT_CHECK_RUN_NAME", "str", "recipe-review", "the check run's name"),
    Option(
        "BOT_SUMMARY_COMMENT",
        "bool",
        "true",
        "post the sticky summary comment (`false`: the check run carries the summary)",
    ),
    Option(
        "BOT_FIX_ACTION",
        "bool",
        "true",
        'offer "Apply safe fixes" on the check run (needs `contents: write`)',
    ),
    Option("BOT_REVIEW_DRAFTS", "bool", "false", "review draft pull requests too"),
    Option("BOT_DOCS_URL", "str", "", "rule documentation URL in comments (default: built in)"),
    Option(
        "BOT_SIGNOFF_ENABLED",
        "bool",
        "true",
        "verify CODEOWNER sign-offs (comment, review and push events)",
    ),
    Option(
        "BOT_SIGNOFF_STATUS_CONTEXT",
        "str",
        "codeowner-signoff-verify",
        "commit status context of the sign-off verdict",
    ),
    Option(
        "BOT_SIGNOFF_TEMPLATE_REF",
        "str",
        "",
        "branch holding the sign-off checklist template (default: the PR's base branch)",
    ),
    Option(
        "BOT_WRITE_INTERVAL",
        "float",
        "1",
        "seconds between GitHub writes per installation (GitHub's advice; 0: unpaced)",
    ),
    Option("BOT_MAX_BODY_BYTES", "int", str(25 * MIB), "largest webhook body accepted (413 above)"),
    Option(
        "BOT_HEADER_TIMEOUT",
        "float",
        "5",
        "seconds a client has to send its request headers (then the connection is closed)",
    ),
    Option(
        "BOT_BODY_TIMEOUT",
        "float",
        "5",
        "seconds a client has to send the whole body after its headers (408, then closed)",
    ),
    Option(
        "BOT_KEEPALIVE_TIMEOUT", "float", "5", "seconds an idle keep-alive connection stays open"
    ),
    Option("BOT_RETENTION_DAYS", "float", "30", "finished deliveries and jobs kept this long"),
    Option("BOT_LOG_LEVEL", "str", "info", "debug | info | warning | error"),
    Option(
        "ANTHROPIC_API_KEY",
        "secret",
        "",
        "turns the optional LLM advisor on (advice only; needs the llm extra)",
    ),
    Option("ANTHROPIC_BASE_URL", "str", "", "Messages API base URL (default: the SDK's)"),
    Option("BOT_ADVISOR", "str", "on", "`off` turns the advisor off even with a key"),
    Option("BOT_ADVISOR_MODEL", "str", "claude-sonnet-4-6", "the advisor's model"),
    Option(
        "BOT_ADVISOR_MAX_INPUT_TOKENS", "int", "24000", "largest prompt sent (count_tokens first)"
    ),
    Option(
        "BOT_ADVISOR_DAILY_TOKENS", "int", "2000000", "advisor tokens per installation and UTC day"
    ),
    Option(
        "BOT_ADVISOR_CACHE",
        "path",
        "bot-advisor.sqlite3",
        "advisor answer cache, call and budget ledger (SQLite)",
    ),
)
ADVISOR_ENV = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "BOT_ADVISOR",
    "BOT_ADVISOR_MODEL",
    "BOT_ADVISOR_MAX_INPUT_TOKENS",
    "BOT_ADVISOR_DAILY_TOKENS",
    "BOT_ADVISOR_CACHE",
)
_BY_ENV = {o.env: o for o in OPTIONS}


@dataclass(frozen=True)
class Settings:
    webhook_secrets: tuple[bytes, ...] = field(default=(), repr=False)
    github_api_url: str = "https://api.github.com"
    github_token: str | None = field(default=None, repr=False)
    github_app_id: int | None = None
    github_app_private_key: str | None = field(default=None, repr=False)
    github_app_installation_id: int | None = None
    github_app_slug: str | None = None
    bot_login: str | None = None
    db_path: str = DEFAULT_DB
    host: str = "127.0.0.1"
    port: int = 8080
    workers: int = 2
    lease_seconds: float = 30.0
    sweep_seconds: float = 300.0
    max_attempts: int = 5
    job_timeout: float = 600.0
    retry_base_seconds: float = 10.0
    retry_max_seconds: float = 900.0
    poll_seconds: float = 1.0
    status_context: str = "recipe-review"
    commit_status: bool = True
    # `load_settings` turns check runs on by default (BOT_CHECK_RUNS=true); a Settings
    # built by hand (tests, benchmarks, embedding) opts in explicitly
    check_runs: bool = False
    check_run_name: str = "recipe-review"
    summary_comment: bool = True
    fix_action: bool = False
    review_drafts: bool = False
    docs_url: str | None = None
    # `load_settings` turns the sign-off gate on by default (BOT_SIGNOFF_ENABLED=true); a
    # Settings built by hand (tests, benchmarks, embedding) opts in explicitly
    signoff_enabled: bool = False
    signoff_status_context: str = "codeowner-signoff-verify"
    signoff_template_ref: str | None = None
    write_interval: float = 1.0
    max_body_bytes: int = 25 * MIB
    header_timeout: float = 5.0
    body_timeout: float = 5.0
    keepalive_timeout: float = 5.0
    retention_days: float = 30.0
    log_level: str = "info"
    # the advisor's variables as given (`bot.advisor.client.advisor_settings` reads them);
    # empty: the advisor is off
    advisor_env: tuple[tuple[str, str], ...] = field(default=(), repr=False)

    @property
    def credentials(self) -> str | None:
        """ "token", "app", or None when no GitHub credentials are configured."""
        if self.github_token:
            return "token"
        if self.github_app_id is not None and self.github_app_private_key:
            return "app"
        return None

    @property
    def check_run(self) -> str | None:
        """The review's check run name, or None when check runs are off."""
        return self.check_run_name if self.check_runs else None

    @property
    def self_login(self) -> str | None:
        """The login the bot's own deliveries carry, when configured."""
        if self.bot_login:
            return self.bot_login
        if self.github_app_slug:
            return f"{self.github_app_slug}[bot]"
        return None


def help_epilog() -> str:
    """The environment table printed by `bot serve --help`."""
    lines = ["environment (a --config TOML file may set the same names; the environment wins):"]
    for o in OPTIONS:
        default = f" (default: {o.default})" if o.default and o.kind != "secret" else ""
        lines.append(f"  {o.env:<29} {o.help}{default}")
    lines.append("")
    lines.append("credentials: GITHUB_TOKEN, or GITHUB_APP_ID with GITHUB_APP_PRIVATE_KEY or")
    lines.append("GITHUB_APP_PRIVATE_KEY_PATH. `bot serve` refuses to start without a webhook")
    lines.append("secret or credentials. See docs/deployment.md.")
    return "\n".join(lines) + "\n"


def load_settings(
    environ: Mapping[str, str],
    config_file: str | None = None,
    *,
    require_secret: bool = True,
    require_credentials: bool = True,
    overrides: Mapping[str, Any] | None = None,
) -> Settings:
    """Settings from a TOML file (optional) overlaid by `environ`, validated."""
    values = _values(environ, config_file)
    secrets = _secrets(values, require_secret)
    token, app_id, key = _credentials(values, require_credentials)
    settings = _settings(values, secrets, token, app_id, key)
    if overrides:
        settings = replace(settings, **{k: v for k, v in overrides.items() if v is not None})
    _validate(settings)
    if settings.advisor_env:  # the advisor's own limits (e.g. at most 24,000 input tokens)
        try:
            advisor_settings(dict(settings.advisor_env))
        except AdvisorConfigError as exc:
            raise SettingsError(str(exc)) from None
    return settings


def _values(environ: Mapping[str, str], config_file: str | None) -> dict[str, Any]:
    """Every option's value: the TOML file's, overlaid by the environment's, converted."""
    raw: dict[str, str] = {}
    path = config_file or environ.get("BOT_CONFIG") or None
    if path:
        raw.update(_read_file(path))
    for name in _BY_ENV:
        if name in environ and environ[name] != "":
            raw[name] = environ[name]
    return {o.env: _convert(o, raw.get(o.env, o.default)) for o in OPTIONS}


def _secrets(values: Mapping[str, Any], required: bool) -> tuple[bytes, ...]:
    """The webhook secrets, current first (a rotation keeps the previous one)."""
    secrets = tuple(
        s.encode("utf-8")
        for s in (values["BOT_WEBHOOK_SECRET"], values["BOT_WEBHOOK_SECRET_PREVIOUS"])
        if s
    )
    if values["BOT_WEBHOOK_SECRET_PREVIOUS"] and not values["BOT_WEBHOOK_SECRET"]:
        raise SettingsError("BOT_WEBHOOK_SECRET_PREVIOUS is set but BOT_WEBHOOK_SECRET is not")
    if required and not secrets:
        raise SettingsError("BOT_WEBHOOK_SECRET is not set; refusing to accept unsigned webhooks")
    return secrets


def _private_key(values: Mapping[str, Any]) -> str | None:
    """The GitHub App's private key, from the value or the file it names."""
    key = values["GITHUB_APP_PRIVATE_KEY"] or None
    key_path = values["GITHUB_APP_PRIVATE_KEY_PATH"] or None
    if key and key_path:
        raise SettingsError("set GITHUB_APP_PRIVATE_KEY or GITHUB_APP_PRIVATE_KEY_PATH, not both")
    if key_path:
        try:
            with open(key_path, encoding="utf-8") as fh:
                key = fh.read(1 << 20)
        except (OSError, UnicodeDecodeError) as exc:
            raise SettingsError(
                f"GITHUB_APP_PRIVATE_KEY_PATH: cannot read {key_path}: {exc}"
            ) from None
    if key and "\n" not in key.strip() and "\\n" in key:  # one-line env value with \n escapes
        key = key.replace("\\n", "\n")
    if key and "PRIVATE KEY-----" not in key:
        raise SettingsError("the GitHub App private key is not a PEM private key")
    return key


def _credentials(
    values: Mapping[str, Any], required: bool
) -> tuple[str | None, int | None, str | None]:
    """(token, app id, private key): a token or an App, never both."""
    token = values["GITHUB_TOKEN"] or None
    key = _private_key(values)
    app_id = values["GITHUB_APP_ID"]
    if token and (app_id is not None or key):
        raise SettingsError("set GITHUB_TOKEN or GITHUB_APP_ID (with a key), not both")
    if (app_id is None) != (key is None):
        raise SettingsError(
            "a GitHub App needs both GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY[_PATH]"
        )
    if required and not token and app_id is None:
        raise SettingsError(
            "no GitHub credentials: set GITHUB_TOKEN, or GITHUB_APP_ID with "
            "GITHUB_APP_PRIVATE_KEY or GITHUB_APP_PRIVATE_KEY_PATH"
        )
    return token, app_id, key


def _settings(
    values: Mapping[str, Any],
    secrets: tuple[bytes, ...],
    token: str | None,
    app_id: int | None,
    key: str | None,
) -> Settings:
    return Settings(
        webhook_secrets=secrets,
        github_api_url=values["GITHUB_API_URL"].rstrip("/"),
        github_token=token,
        github_app_id=app_id,
        github_app_private_key=key,
        github_app_installation_id=values["GITHUB_APP_INSTALLATION_ID"],
        github_app_slug=values["GITHUB_APP_SLUG"] or None,
        bot_login=values["BOT_LOGIN"] or None,
        db_path=values["BOT_DB"],
        host=values["BOT_HOST"],
        port=values["BOT_PORT"],
        workers=values["BOT_WORKERS"],
        lease_seconds=values["BOT_LEASE_SECONDS"],
        sweep_seconds=values["BOT_SWEEP_SECONDS"],
        max_attempts=values["BOT_MAX_ATTEMPTS"],
        job_timeout=values["BOT_JOB_TIMEOUT_SECONDS"],
        retry_base_seconds=values["BOT_RETRY_BASE_SECONDS"],
        retry_max_seconds=values["BOT_RETRY_MAX_SECONDS"],
        poll_seconds=values["BOT_POLL_SECONDS"],
        status_context=values["BOT_STATUS_CONTEXT"],
        commit_status=values["BOT_COMMIT_STATUS"],
        check_runs=values["BOT_CHECK_RUNS"],
        check_run_name=values["BOT_CHECK_RUN_NAME"],
        summary_comment=values["BOT_SUMMARY_COMMENT"],
        fix_action=values["BOT_FIX_ACTION"],
        review_drafts=values["BOT_REVIEW_DRAFTS"],
        docs_url=values["BOT_DOCS_URL"] or None,
        signoff_enabled=values["BOT_SIGNOFF_ENABLED"],
        signoff_status_context=values["BOT_SIGNOFF_STATUS_CONTEXT"],
        signoff_template_ref=values["BOT_SIGNOFF_TEMPLATE_REF"] or None,
        write_interval=values["BOT_WRITE_INTERVAL"],
        max_body_bytes=values["BOT_MAX_BODY_BYTES"],
        header_timeout=values["BOT_HEADER_TIMEOUT"],
        body_timeout=values["BOT_BODY_TIMEOUT"],
        keepalive_timeout=values["BOT_KEEPALIVE_TIMEOUT"],
        retention_days=values["BOT_RETENTION_DAYS"],
        log_level=values["BOT_LOG_LEVEL"].lower(),
        advisor_env=tuple(
            (name, str(values[name])) for name in ADVISOR_ENV if values[name] not in (None, "")
        ),
    )


def _validate(s: Settings) -> None:
    checks = [
        (s.github_api_url.startswith(("https://", "http://")), "GITHUB_API_URL is not a URL"),
        (0 < s.port < 65536, "BOT_PORT must be 1-65535"),
        (0 <= s.workers <= 64, "BOT_WORKERS must be 0-64"),
        (s.lease_seconds >= 1, "BOT_LEASE_SECONDS must be at least 1"),
        (s.sweep_seconds >= 1, "BOT_SWEEP_SECONDS must be at least 1"),
        (1 <= s.max_attempts <= 100, "BOT_MAX_ATTEMPTS must be 1-100"),
        (s.job_timeout >= 1, "BOT_JOB_TIMEOUT_SECONDS must be at least 1"),
        (s.retry_base_seconds >= 0, "BOT_RETRY_BASE_SECONDS must not be negative"),
        (s.retry_max_seconds >= s.retry_base_seconds, "BOT_RETRY_MAX_SECONDS < base"),
        (s.poll_seconds > 0, "BOT_POLL_SECONDS must be positive"),
        (0 <= s.write_interval <= 60, "BOT_WRITE_INTERVAL must be 0-60"),
        (1024 <= s.max_body_bytes <= 100 * MIB, "BOT_MAX_BODY_BYTES must be 1 KiB-100 MiB"),
        (0 < s.header_timeout <= 300, "BOT_HEADER_TIMEOUT must be in (0, 300]"),
        (0 < s.body_timeout <= 300, "BOT_BODY_TIMEOUT must be in (0, 300]"),
        (0 < s.keepalive_timeout <= 300, "BOT_KEEPALIVE_TIMEOUT must be in (0, 300]"),
        (s.retention_days > 0, "BOT_RETENTION_DAYS must be positive"),
        (bool(s.status_context.strip()), "BOT_STATUS_CONTEXT is empty"),
        (bool(s.check_run_name.strip()), "BOT_CHECK_RUN_NAME is empty"),
        (
            s.check_run_name != s.signoff_status_context,
            "BOT_CHECK_RUN_NAME must differ from BOT_SIGNOFF_STATUS_CONTEXT",
        ),
        (
            s.check_runs or (s.commit_status and s.summary_comment),
            "with BOT_CHECK_RUNS=false the review needs BOT_COMMIT_STATUS and"
            " BOT_SUMMARY_COMMENT (nothing else would carry its verdict and summary)",
        ),
        (bool(s.signoff_status_context.strip()), "BOT_SIGNOFF_STATUS_CONTEXT is empty"),
        (
            s.signoff_status_context != s.status_context,
            "BOT_SIGNOFF_STATUS_CONTEXT must differ from BOT_STATUS_CONTEXT",
        ),
        (
            s.log_level in ("debug", "info", "warning", "error"),
            "BOT_LOG_LEVEL must be debug|info|warning|error",
        ),
        (bool(s.db_path), "BOT_DB is empty"),
    ]
    for ok, message in checks:
        if not ok:
            raise SettingsError(message)


def _read_file(path: str) -> dict[str, str]:
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except OSError as exc:
        raise SettingsError(f"config file {path}: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"config file {path}: not TOML: {exc}") from None
    out: dict[str, str] = {}
    for key, value in data.items():
        name = key.upper()
        if name not in _BY_ENV:
            raise SettingsError(f"config file {path}: unknown setting {key!r}")
        if isinstance(value, bool):
            out[name] = "true" if value else "false"
        elif isinstance(value, int | float | str):
            out[name] = str(value)
        else:
            raise SettingsError(f"config file {path}: {key} must be a string, number or boolean")
    if "GITHUB_APP_PRIVATE_KEY_PATH" in out:  # relative to the file, like most tools do
        out["GITHUB_APP_PRIVATE_KEY_PATH"] = os.path.join(
            os.path.dirname(os.path.abspath(path)), out["GITHUB_APP_PRIVATE_KEY_PATH"]
        )
    return out


def _convert(option: Option, text: str) -> Any:
    if option.kind in ("str", "secret", "path"):
        return text
    if option.kind == "bool":
        low = text.strip().lower()
        if low in ("1", "true", "yes", "on"):
            return True
        if low in ("0", "false", "no", "off", ""):
            return False
        raise SettingsError(f"{option.env}: not a boolean: {text!r}")
    if text.strip() == "":
        return None
    try:
        return int(text) if option.kind == "int" else float(text)
    except ValueError:
        raise SettingsError(f"{option.env}: not a number: {text!r}") from None
