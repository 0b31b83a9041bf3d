"""GitHub's HTTP plumbing under the gateway: requests, retries, error mapping,
pagination, pacing and caches. An edge (it imports PyGithub; only
`bot.github.gateway` imports it).

PyGithub is used as an HTTP client (its Requester: auth, retries, URL checks);
responses are read as plain JSON, because PyGithub objects built from list
pages complete themselves with one extra GET per item when an absent attribute
is read.

- Reads (GET) are retried by urllib3 on connection errors, 5xx, 429 and rate
  limited 403s, with exponential backoff; `Retry-After` is honoured. A wait
  longer than `max_retry_wait` is not slept: the call fails with
  `GitHubError(retry_after=...)` so the caller can reschedule.
- Writes (POST/PATCH) are never retried on a server error or a lost response:
  GitHub may have applied them. The caller re-reads what exists, then decides.
  The one exception is a rate-limit rejection (429, or 403 with `Retry-After`
  or a rate-limit message): GitHub did not perform the request, so it is sent
  again after the wait (at most `write_rate_limit_retries` times).
- Writes are paced `seconds_between_writes` apart and wait out the last
  `Retry-After` seen (`Pacer`, one per `GitHubHttp`: per process and
  credential; the PostgreSQL backend adds a pacer shared by replicas as a call
  hook, `bot.server.pacing`). Sleeping goes through the injectable `sleep`.
- Every error reaching the caller is a `GitHubError(message, status, retry_after)`
  whose message starts with the request that failed (`POST /app/installations/7/
  access_tokens: 500 ...` when an installation token could not be had, never the
  request it was for). A redirect is not an answer: a 3xx is a `GitHubError` too.
- Every request carries `X-GitHub-Api-Version: 2022-11-28` and
  `Accept: application/vnd.github+json` (no preview media types). An App's
  installation tokens are exchanged here (`InstallationToken`), with those headers.
- Lists are read page by page following `Link: rel="next"`, up to a bound.
"""

from __future__ import annotations

import datetime
import email.utils
import json
import re
import threading
import time
import urllib.parse
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import requests
import urllib3.exceptions
from github import Auth, Consts, Github, GithubException, GithubIntegration, GithubRetry
from github.GithubException import RateLimitExceededExceedsMaxWait
from github.Requester import Requester
from urllib3.exceptions import MaxRetryError, ResponseError

from bot.github.types import GitHubError

DEFAULT_BASE_URL = Consts.DEFAULT_BASE_URL
USER_AGENT = "recipe-review-bot"
API_VERSION = "2022-11-28"  # X-GitHub-Api-Version of every request
MEDIA_TYPE = "application/vnd.github+json"  # Accept of every request
TOKEN_RENEW_SECONDS = 20.0  # an installation token is renewed this long before it expires
SECONDARY_RATE_WAIT = 60.0  # GitHub: "wait at least one minute" when no Retry-After
_NEXT = re.compile(r'<([^>]+)>\s*;\s*rel="next"')

Sleep = Callable[[float], None]
Clock = Callable[[], float]


# --------------------------------------------------------------------------- retries


class ReadRetry(GithubRetry):
    """PyGithub's retry policy for reads only, sleeping through an injectable function.

    GET and HEAD are retried on connection errors, 429, 5xx and rate limited 403s
    (PyGithub's `GithubRetry` tells those from permission 403s by header and
    message). A `Retry-After` longer than `max_wait` stops the retries and the
    response goes back to the caller (`raise_on_status=False`), which turns it
    into a `GitHubError` with `retry_after` set.
    """

    def __init__(
        self,
        *,
        sleep_func: Sleep | None = None,
        max_wait: float = 60.0,
        **kwargs: Any,
    ) -> None:
        self.sleep_func: Sleep = sleep_func or time.sleep
        self.max_wait = max_wait
        kwargs.setdefault("total", 3)
        kwargs.setdefault("backoff_factor", 0.5)
        kwargs.setdefault("status_forcelist", [429, *range(500, 600)])
        kwargs.setdefault("allowed_methods", frozenset({"GET", "HEAD"}))
        kwargs.setdefault("raise_on_status", False)
        kwargs.setdefault("secondary_rate_wait", SECONDARY_RATE_WAIT)
        kwargs.setdefault("max_rate_limit_wait", max_wait)
        super().__init__(**kwargs)

    def new(self, **kw: Any) -> ReadRetry:
        kw.update(sleep_func=self.sleep_func, max_wait=self.max_wait)
        return super().new(**kw)

    def increment(  # type: ignore[override]
        self,
        method: str | None = None,
        url: str | None = None,
        response: Any = None,
        error: Exception | None = None,
        _pool: Any = None,
        _stacktrace: Any = None,
    ) -> urllib3.Retry:
        if response is not None:
            wait = header_seconds(response.headers.get("Retry-After"))
            if wait is not None and wait > self.max_wait:
                reason = ResponseError(f"Retry-After {wait:g}s exceeds {self.max_wait:g}s")
                raise MaxRetryError(_pool, url or "", reason)
        return super().increment(method, url, response, error, _pool, _stacktrace)

    def sleep(self, response: Any = None) -> None:
        if response is not None and self.respect_retry_after_header:
            wait = header_seconds(response.headers.get("Retry-After"))
            if wait:
                self.sleep_func(wait)
                return
        backoff = self.get_backoff_time()
        if backoff > 0:
            self.sleep_func(backoff)


class Pacer:
    """Write pacing and rate-limit holds of one process and credential.

    A write waits until `spacing` seconds after the previous write ended and until
    the end of the last rate-limit hold; reads are not paced here."""

    def __init__(self, spacing: float, *, sleep: Sleep, clock: Clock) -> None:
        self.spacing = spacing
        self.sleep = sleep
        self.clock = clock
        self._lock = threading.Lock()
        self._last_write: float | None = None
        self._not_before = 0.0

    def hold(self, seconds: float) -> None:
        """No write before `seconds` from now (a Retry-After GitHub sent)."""
        with self._lock:
            self._not_before = max(self._not_before, self.clock() + seconds)

    def wait_turn(self) -> None:
        with self._lock:
            now = self.clock()
            due = self._not_before
            if self._last_write is not None and self.spacing > 0:
                due = max(due, self._last_write + self.spacing)
        if due > now:
            self.sleep(due - now)

    def wrote(self) -> None:
        with self._lock:
            self._last_write = self.clock()


# --------------------------------------------------------------------------- requests


class InstallationToken(Auth.Auth):
    """An App installation's access token as PyGithub's `Auth`: exchanged by
    `GitHubHttp.exchange_token` (with the API version and media type headers, and an
    error that names the exchange when it fails), renewed `TOKEN_RENEW_SECONDS` before
    it expires. Thread-safe."""

    def __init__(self, http: GitHubHttp, installation_id: int) -> None:
        self._http = http
        self.installation_id = installation_id
        self._lock = threading.Lock()
        self._token: str | None = None
        self._expires = 0.0

    @property
    def token_type(self) -> str:
        return "token"

    @property
    def token(self) -> str:
        with self._lock:
            if self._token is None or time.time() >= self._expires - TOKEN_RENEW_SECONDS:
                self._token, self._expires = self._http.exchange_token(self.installation_id)
            return self._token

    @property
    def _masked_token(self) -> str:
        return "token (installation token removed)"


class GitHubHttp:
    """Authenticated JSON requests to one GitHub API: a token's, or a GitHub App's
    (the app's own requests, and one client per installation, looked up per
    repository when no installation id is fixed). Thread-safe."""

    def __init__(
        self,
        auth: Auth.Token | Auth.AppAuth,
        *,
        installation_id: int | None = None,
        base_url: str = DEFAULT_BASE_URL,
        seconds_between_writes: float = 1.0,
        sleep: Sleep = time.sleep,
        clock: Clock = time.monotonic,
        max_retry_wait: float = 60.0,
        read_retries: int = 3,
        backoff_factor: float = 0.5,
        write_rate_limit_retries: int = 2,
        timeout: int = 15,
        user_agent: str = USER_AGENT,
    ) -> None:
        self.auth = auth
        self.fixed_installation = installation_id
        self.base_url = base_url.rstrip("/")
        self.pacer = Pacer(seconds_between_writes, sleep=sleep, clock=clock)
        self._max_wait = max_retry_wait
        self._write_retries = write_rate_limit_retries
        self._retry = ReadRetry(
            sleep_func=sleep,
            max_wait=max_retry_wait,
            total=read_retries,
            backoff_factor=backoff_factor,
        )
        self._client_kwargs: dict[str, Any] = dict(
            base_url=self.base_url,
            timeout=timeout,
            user_agent=user_agent,
            per_page=100,
            retry=self._retry,
            api_version=API_VERSION,
            # PyGithub's own pacing sleeps with time.sleep (0.25 s per request,
            # 1 s per write by default); ours is injectable, so switch it off.
            seconds_between_requests=None,
            seconds_between_writes=None,
        )
        self._lock = threading.RLock()
        self._write_lock = threading.Lock()
        self._clients: dict[int | None, Github] = {}
        self._integration: GithubIntegration | None = None
        self._installations: dict[str, int] = {}
        # installation id -> the permissions its newest access token carries
        self._permissions: dict[int, dict[str, str]] = {}

    @property
    def is_app(self) -> bool:
        return isinstance(self.auth, Auth.AppAuth)

    def close(self) -> None:
        with self._lock:
            for client in self._clients.values():
                client.close()
            self._clients.clear()
            if self._integration is not None:
                self._integration.close()
                self._integration = None

    # ------------------------------------------------------------------ requesters

    def app_requester(self) -> Requester:
        """The requester of the App itself (JWT auth: /app, /repos/{r}/installation)."""
        assert isinstance(self.auth, Auth.AppAuth)
        with self._lock:
            if self._integration is None:
                self._integration = GithubIntegration(auth=self.auth, **self._client_kwargs)
            return self._integration.requester

    def installation_id(self, repo: str) -> int:
        """The app's installation on `repo` (cached); `repo` is a checked owner/name."""
        if self.fixed_installation is not None:
            return self.fixed_installation
        with self._lock:
            known = self._installations.get(repo)
        if known is not None:
            return known
        _, data = self.call(self.app_requester(), "GET", f"/repos/{repo}/installation")
        iid = data.get("id") if isinstance(data, dict) else None
        if not isinstance(iid, int):
            raise GitHubError(f"GET /repos/{repo}/installation: no installation id", status=0)
        with self._lock:
            self._installations[repo] = iid
        return iid

    def requester(self, repo: str | None) -> Requester:
        """The requester for `repo`: the token's, or the repo's installation's."""
        key: int | None = None
        if isinstance(self.auth, Auth.AppAuth):
            if repo is not None:
                key = self.installation_id(repo)
            elif self.fixed_installation is not None:
                key = self.fixed_installation
            else:
                raise ValueError("an app gateway without installation_id needs a repository")
        with self._lock:
            client = self._clients.get(key)
            if client is None:
                auth: Auth.Auth = self.auth
                if isinstance(self.auth, Auth.AppAuth) and key is not None:
                    auth = InstallationToken(self, key)
                client = Github(auth=auth, **self._client_kwargs)
                self._clients[key] = client
            return client.requester

    def exchange_token(self, installation_id: int) -> tuple[str, float]:
        """A new installation access token and its expiry (Unix time):
        `POST /app/installations/{id}/access_tokens`, signed with the App's JWT."""
        url = f"/app/installations/{int(installation_id)}/access_tokens"
        _, data = self.call(self.app_requester(), "POST", url)
        token = data.get("token") if isinstance(data, dict) else None
        expires = _iso_time(data.get("expires_at") if isinstance(data, dict) else None)
        if not isinstance(token, str) or not token or expires is None:
            raise GitHubError(f"POST {url}: no token in the answer", 0, request=f"POST {url}")
        granted = data.get("permissions") if isinstance(data, dict) else None
        with self._lock:
            self._permissions[installation_id] = {
                str(k): str(v) for k, v in (granted or {}).items() if isinstance(v, str)
            }
        return token, expires

    def installation_permissions(self, repo: str) -> dict[str, str]:
        """The permissions the App's installation on `repo` grants (its access token's);
        {} for a token credential."""
        if not self.is_app:
            return {}
        iid = self.installation_id(repo)
        requester = self.requester(repo)
        auth = getattr(requester, "auth", None)
        if isinstance(auth, InstallationToken):
            _ = auth.token  # exchanged (or renewed) when needed
        with self._lock:
            return dict(self._permissions.get(iid, {}))

    # ------------------------------------------------------------------ calls

    def call(
        self,
        requester: Requester,
        verb: str,
        url: str,
        *,
        params: Mapping[str, Any] | None = None,
        body: Any = None,
    ) -> tuple[dict[str, Any], Any]:
        """(headers, JSON) of one 2xx answer; every failure leaves as `GitHubError`,
        a redirect included (see `answer` for a call that reads a 3xx or 404)."""
        status, headers, data = self.answer(requester, verb, url, params=params, body=body)
        if status >= 300:
            what = f"{verb} {urllib.parse.urlsplit(url).path}"
            location = lower_headers(headers).get("location", "")
            raise GitHubError(
                f"{what}: {status} redirect to {location}".rstrip(), status=status, request=what
            )
        return headers, data

    def answer(
        self,
        requester: Requester,
        verb: str,
        url: str,
        *,
        params: Mapping[str, Any] | None = None,
        body: Any = None,
        accept: tuple[int, ...] = (),
    ) -> tuple[int, dict[str, Any], Any]:
        """(status, headers, JSON) of one request. A status of 400 and above raises
        `GitHubError` unless it is in `accept`; a 3xx is returned as it is."""
        what = f"{verb} {urllib.parse.urlsplit(url).path}"
        try:
            status, headers, text = requester.requestJson(
                verb,
                url,
                parameters=dict(params) if params else None,
                headers={"Accept": MEDIA_TYPE},
                input=body,
            )
            data = json.loads(text) if text else None
            if status >= 400 and status not in accept:
                raise requester.createException(status, headers, data or {})
            return status, headers, data
        except GitHubError:
            raise  # already named: an installation token that could not be had
        except Exception as exc:  # mapped: every failure leaves as GitHubError
            if isinstance(exc, (AssertionError, TypeError, AttributeError, KeyError)):
                raise  # a bug here, not a GitHub failure
            err = to_github_error(exc, what)
            if err.retry_after is not None and err.status in (403, 429):
                self.pacer.hold(err.retry_after)
            raise err from exc

    def get(self, repo: str | None, url: str, params: Mapping[str, Any] | None = None) -> Any:
        return self.call(self.requester(repo), "GET", url, params=params)[1]

    def pages(
        self, repo: str, url: str, limit: int, key: str | None = None
    ) -> Iterator[dict[str, Any]]:
        """Every item of a paginated list, following `Link: rel="next"`, at most `limit`.
        With `key` the list is wrapped in an object (`{"total_count", key: [...]}`)."""
        requester = self.requester(repo)
        params: dict[str, Any] | None = {"per_page": 100}
        count = 0
        next_url: str | None = url
        while next_url is not None:
            headers, data = self.call(requester, "GET", next_url, params=params)
            params = None  # the next link carries its own query
            items = data if key is None else (data.get(key) if isinstance(data, dict) else None)
            if not isinstance(items, list):
                raise GitHubError(f"GET {url}: expected {key or 'a list'}", status=0)
            for item in items:
                if isinstance(item, dict):
                    yield item
                    count += 1
                    if count >= limit:
                        return
            match = _NEXT.search(str(lower_headers(headers).get("link", "")))
            next_url = match.group(1) if match and items else None

    def write(self, repo: str, verb: str, url: str, body: Any) -> Any:
        """One write: paced, never repeated after a failure GitHub may have applied."""
        requester = self.requester(repo)
        with self._write_lock:
            attempt = 0
            while True:
                self.pacer.wait_turn()
                try:
                    return self.call(requester, verb, url, body=body)[1]
                except GitHubError as err:
                    rejected = err.status in (403, 429) and err.retry_after is not None
                    if (
                        rejected
                        and attempt < self._write_retries
                        and err.retry_after is not None
                        and err.retry_after <= self._max_wait
                    ):
                        attempt += 1  # rate limited: not performed, safe to send again
                        continue
                    raise
                finally:
                    self.pacer.wrote()


# --------------------------------------------------------------------------- helpers


def header_seconds(value: Any, now: Callable[[], float] = time.time) -> float | None:
    """A `Retry-After` value (seconds or HTTP date) in seconds, None when absent or unreadable."""
    if value is None:
        return None
    text = str(value).strip()
    if text.isdigit():
        return float(text)
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - now())


def _iso_time(value: Any) -> float | None:
    """An ISO 8601 time (GitHub's `expires_at`) as a Unix time, None when unreadable."""
    if not isinstance(value, str):
        return None
    try:
        when = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return (when if when.tzinfo else when.replace(tzinfo=datetime.UTC)).timestamp()


def lower_headers(headers: Any) -> dict[str, str]:
    if not headers:
        return {}
    try:
        items = headers.items()
    except AttributeError:
        return {}
    return {str(k).lower(): str(v) for k, v in items}


def _message(data: Any) -> str:
    if isinstance(data, dict):
        message = str(data.get("message") or "")
        errors = data.get("errors")
        if isinstance(errors, list) and errors:
            details = []
            for e in errors[:5]:
                if isinstance(e, dict):
                    details.append(str(e.get("message") or e.get("code") or e))
                else:
                    details.append(str(e))
            message = f"{message} ({'; '.join(details)})" if message else "; ".join(details)
        return message
    if isinstance(data, str):
        return data[:200]
    return ""


def _is_rate_limit_message(message: str) -> bool:
    lowered = message.lower()
    return Requester.isRateLimitError(lowered) or "rate limit" in lowered


def to_github_error(exc: BaseException, what: str = "GitHub request") -> GitHubError:
    """Map a PyGithub / requests / urllib3 exception to `GitHubError`."""
    if isinstance(exc, GithubException):
        status = int(exc.status or 0)
        headers = lower_headers(exc.headers)
        message = _message(exc.data) or (exc.message or "")
        retry_after = header_seconds(headers.get("retry-after"))
        if retry_after is None and isinstance(exc, RateLimitExceededExceedsMaxWait):
            retry_after = exc.wait
        if retry_after is None and status in (403, 429):
            reset = headers.get("x-ratelimit-reset", "")
            if headers.get("x-ratelimit-remaining") == "0" and reset.isdigit():
                retry_after = max(1.0, float(reset) - time.time())
            elif status == 429 or _is_rate_limit_message(message):
                retry_after = SECONDARY_RATE_WAIT
        text = f"{what}: {status} {message}".rstrip()
        return GitHubError(text, status=status, retry_after=retry_after, request=what)
    if isinstance(exc, (requests.RequestException, urllib3.exceptions.HTTPError, OSError)):
        return GitHubError(
            f"{what}: no response ({type(exc).__name__}: {exc})", status=0, request=what
        )
    if isinstance(exc, ValueError):  # a body that is not JSON
        return GitHubError(f"{what}: unreadable response ({exc})", status=0, request=what)
    return GitHubError(f"{what}: {type(exc).__name__}: {exc}", status=0, request=what)


# --------------------------------------------------------------------------- caches


class LRU:
    """A small LRU map bounded by entry count and an optional weight; thread-safe."""

    def __init__(self, max_items: int, max_weight: int | None = None) -> None:
        self._data: OrderedDict[Any, Any] = OrderedDict()
        self._weights: dict[Any, int] = {}
        self._max_items = max_items
        self._max_weight = max_weight
        self._weight = 0
        self._lock = threading.Lock()

    def get(self, key: Any) -> Any:
        with self._lock:
            if key not in self._data:
                return None
            self._data.move_to_end(key)
            return self._data[key]

    def put(self, key: Any, value: Any, weight: int = 0) -> None:
        if self._max_weight is not None and weight > self._max_weight // 4:
            return  # too big to be worth caching
        with self._lock:
            self._put(key, value, weight)

    def _put(self, key: Any, value: Any, weight: int) -> None:
        if key in self._data:
            self._weight -= self._weights.pop(key, 0)
            del self._data[key]
        self._data[key] = value
        self._weights[key] = weight
        self._weight += weight
        while len(self._data) > self._max_items or (
            self._max_weight is not None and self._weight > self._max_weight
        ):
            old, _ = self._data.popitem(last=False)
            self._weight -= self._weights.pop(old, 0)
