"""`bot serve`: configuration (environment, file, validation), the command line, the real
process (started, probed, stopped), and the write pacing and metrics helpers."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from webhook_fakes import SECRET, encode, pr_payload, sha, signed_headers

from bot.cli import main
from bot.server import healthcheck
from bot.server.gateways import ConfigurationError, github_factory
from bot.server.metrics import Counter, Histogram, Metrics
from bot.server.settings import OPTIONS, SettingsError, help_epilog, load_settings

PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----\n"
BASE = {"BOT_WEBHOOK_SECRET": "s3cret", "GITHUB_TOKEN": "ghp_x"}


def test_defaults() -> None:
    s = load_settings(BASE)
    assert s.webhook_secrets == (b"s3cret",)
    assert s.github_api_url == "https://api.github.com"
    assert s.credentials == "token"
    assert (s.db_path, s.host, s.port, s.workers) == ("bot-queue.sqlite3", "127.0.0.1", 8080, 2)
    assert (s.max_body_bytes, s.max_attempts, s.review_drafts) == (25 * 1024 * 1024, 5, False)
    assert s.status_context == "recipe-review" and s.self_login is None
    assert "s3cret" not in repr(s) and "ghp_x" not in repr(s)


def test_environment_values_and_rotation() -> None:
    s = load_settings(
        {
            **BASE,
            "BOT_WEBHOOK_SECRET_PREVIOUS": "old",
            "GITHUB_API_URL": "http://127.0.0.1:9000/",
            "BOT_DB": "/data/q.sqlite3",
            "BOT_WORKERS": "4",
            "BOT_LEASE_SECONDS": "60",
            "BOT_REVIEW_DRAFTS": "yes",
            "GITHUB_APP_SLUG": "recipe-review",
            "BOT_WRITE_INTERVAL": "0",
        }
    )
    assert s.webhook_secrets == (b"s3cret", b"old")
    assert s.github_api_url == "http://127.0.0.1:9000"
    assert (s.db_path, s.workers, s.lease_seconds, s.review_drafts) == (
        "/data/q.sqlite3",
        4,
        60.0,
        True,
    )
    assert s.self_login == "recipe-review[bot]" and s.write_interval == 0


def test_app_credentials_from_a_key_file_or_escaped_env(tmp_path: Path) -> None:
    key = tmp_path / "app.pem"
    key.write_text(PEM)
    env = {"BOT_WEBHOOK_SECRET": "s", "GITHUB_APP_ID": "123"}
    s = load_settings({**env, "GITHUB_APP_PRIVATE_KEY_PATH": str(key)})
    assert (s.credentials, s.github_app_id, s.github_app_private_key) == ("app", 123, PEM)
    s = load_settings({**env, "GITHUB_APP_PRIVATE_KEY": PEM.replace("\n", "\\n")})
    assert s.github_app_private_key is not None and s.github_app_private_key.strip() == PEM.strip()


def test_config_file_and_environment_precedence(tmp_path: Path) -> None:
    (tmp_path / "app.pem").write_text(PEM)
    conf = tmp_path / "bot.toml"
    conf.write_text(
        'BOT_WEBHOOK_SECRET = "from-file"\nGITHUB_APP_ID = 7\n'
        'github_app_private_key_path = "app.pem"\nBOT_WORKERS = 3\nBOT_REVIEW_DRAFTS = true\n'
    )
    s = load_settings({"BOT_WORKERS": "5"}, str(conf))
    assert s.webhook_secrets == (b"from-file",) and s.github_app_id == 7
    assert s.workers == 5 and s.review_drafts is True  # the environment wins
    s = load_settings({"BOT_CONFIG": str(conf)})
    assert s.workers == 3


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"GITHUB_TOKEN": "t"}, "BOT_WEBHOOK_SECRET is not set"),
        ({"BOT_WEBHOOK_SECRET": "s"}, "no GitHub credentials"),
        ({**BASE, "GITHUB_APP_ID": "1"}, "not both"),
        ({"BOT_WEBHOOK_SECRET": "s", "GITHUB_APP_ID": "1"}, "needs both"),
        ({**BASE, "BOT_WEBHOOK_SECRET": "", "BOT_WEBHOOK_SECRET_PREVIOUS": "o"}, "is not"),
        ({**BASE, "BOT_WORKERS": "many"}, "BOT_WORKERS: not a number"),
        ({**BASE, "BOT_WORKERS": "-1"}, "BOT_WORKERS must be"),
        ({**BASE, "BOT_REVIEW_DRAFTS": "maybe"}, "not a boolean"),
        ({**BASE, "GITHUB_API_URL": "api.github.com"}, "not a URL"),
        ({**BASE, "BOT_LOG_LEVEL": "loud"}, "BOT_LOG_LEVEL"),
        (
            {"BOT_WEBHOOK_SECRET": "s", "GITHUB_APP_ID": "1", "GITHUB_APP_PRIVATE_KEY": "x"},
            "not a PEM",
        ),
        (
            {"BOT_WEBHOOK_SECRET": "s", "GITHUB_APP_ID": "1", "GITHUB_APP_PRIVATE_KEY_PATH": "/no"},
            "cannot read",
        ),
    ],
)
def test_invalid_configuration(env: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        load_settings(env)


def test_bad_config_files(tmp_path: Path) -> None:
    conf = tmp_path / "bot.toml"
    conf.write_text("NOPE = 1\n")
    with pytest.raises(SettingsError, match="unknown setting 'NOPE'"):
        load_settings(BASE, str(conf))
    conf.write_text("not toml [")
    with pytest.raises(SettingsError, match="not TOML"):
        load_settings(BASE, str(conf))
    with pytest.raises(SettingsError, match="config file"):
        load_settings(BASE, str(tmp_path / "missing.toml"))


def test_serve_help_lists_every_setting(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--help"]) == 0
    out = capsys.readouterr().out
    assert "--host H" in out and "--port P" in out
    for option in OPTIONS:
        assert option.env in out
    assert help_epilog() in out.replace("\r", "")


def test_serve_refuses_to_start_without_a_secret(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for option in OPTIONS:
        monkeypatch.delenv(option.env, raising=False)
    monkeypatch.delenv("BOT_CONFIG", raising=False)
    assert main(["serve"]) == 2
    assert capsys.readouterr().err == (
        "bot: error: BOT_WEBHOOK_SECRET is not set; refusing to accept unsigned webhooks\n"
    )


def test_nothing_is_read_from_the_environment_at_import_time() -> None:
    code = (
        "import os; os.environ.clear()\n"
        "import bot.server.app, bot.server.worker, bot.server.replay, bot.cli\n"
        "print('ok')\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out == "ok\n"


# ----------------------------------------------------------------------------- the real process


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _get(url: str, data: bytes | None = None, headers: dict[str, str] | None = None) -> int:
    req = urllib.request.Request(url, data=data, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            status: int = r.status
            return status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_bot_serve_process_serves_and_stops_cleanly(tmp_path: Path) -> None:
    port = _free_port()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("BOT_", "GITHUB_"))},
        "BOT_WEBHOOK_SECRET": SECRET.decode(),
        "GITHUB_TOKEN": "not-used",
        "GITHUB_API_URL": "http://127.0.0.1:9",  # nothing listens: no review can reach out
        "BOT_DB": str(tmp_path / "data" / "queue.sqlite3"),
        "BOT_LOG_LEVEL": "warning",
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot.cli", "serve", "--port", str(port)],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                if _get(base + "/healthz") == 200:
                    break
            except OSError:
                pass
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "bot serve did not come up"
            time.sleep(0.05)
        assert _get(base + "/readyz") == 200
        assert healthcheck.main([], {"BOT_PORT": str(port)}) == 0  # the image's HEALTHCHECK
        body = encode(pr_payload("labeled", 2, sha(1)))
        assert _get(base + "/webhook", body, signed_headers(body)) == 202
        assert _get(base + "/webhook", body, {"X-GitHub-Event": "ping"}) == 401
        assert (tmp_path / "data" / "queue.sqlite3").is_file()
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=20)
    # uvicorn shuts down gracefully, then re-raises the signal it caught
    assert proc.returncode in (0, -signal.SIGTERM), err
    assert "Traceback" not in err and "ERROR" not in err
    assert healthcheck.main(["--timeout", "1"], {"BOT_PORT": str(port)}) == 1


# ----------------------------------------------------------------------------- helpers


def test_github_factory_shares_one_gateway_per_credential_and_installation(
    tmp_path: Path,
) -> None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    token = github_factory(load_settings({**BASE, "BOT_LOGIN": "me", "BOT_WRITE_INTERVAL": "0"}))
    gw = token(1)
    assert token(2) is gw and token(None) is gw  # no network: built lazily, login configured
    assert gw.login() == "me"
    pem = (
        rsa.generate_private_key(public_exponent=65537, key_size=2048)
        .private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.TraditionalOpenSSL,
            serialization.NoEncryption(),
        )
        .decode()
    )
    app = github_factory(
        load_settings(
            {"BOT_WEBHOOK_SECRET": "s", "GITHUB_APP_ID": "9", "GITHUB_APP_PRIVATE_KEY": pem}
        )
    )
    assert app(1) is app(1) and app(1) is not app(2) and app(None) is not app(1)
    with pytest.raises(ConfigurationError):
        github_factory(load_settings({"BOT_WEBHOOK_SECRET": "s"}, require_credentials=False))(1)


def test_pipeline_reviewer_is_built_from_the_settings() -> None:
    from bot.server.worker import pipeline_reviewer

    assert callable(pipeline_reviewer(load_settings({**BASE, "BOT_DOCS_URL": "https://d"})))


def test_metrics_text_format() -> None:
    c = Counter("x_total", "An x.", ("kind",))
    c.inc('a"b\\c\nd')
    c.inc("plain", value=2.5)
    assert list(c.render()) == [
        "# HELP x_total An x.",
        "# TYPE x_total counter",
        'x_total{kind="a\\"b\\\\c\\nd"} 1',
        'x_total{kind="plain"} 2.5',
    ]
    h = Histogram("lat_seconds", "Latency.", (0.1, 1.0))
    for v in (0.05, 0.5, 5.0):
        h.observe(v)
    assert list(h.render())[2:] == [
        'lat_seconds_bucket{le="0.1"} 1',
        'lat_seconds_bucket{le="1"} 2',
        'lat_seconds_bucket{le="+Inf"} 3',
        "lat_seconds_sum 5.55",
        "lat_seconds_count 3",
    ]
    text = Metrics().render()
    assert text.endswith("\n") and "# TYPE bot_webhook_deliveries_total counter" in text


def test_deployment_docs_list_every_setting_and_metric() -> None:
    doc = (Path(__file__).resolve().parents[1] / "docs" / "deployment.md").read_text()
    missing = [o.env for o in OPTIONS if f"`{o.env}`" not in doc]
    assert not missing, f"docs/deployment.md lacks settings: {missing}"
    names = {
        line.split()[2] for line in Metrics().render().splitlines() if line.startswith("# TYPE")
    }
    names |= {"bot_queue_jobs", "bot_queue_oldest_due_seconds", "bot_workers_alive"}
    assert not [n for n in sorted(names) if f"`{n}`" not in doc]
