"""The advisor's calls to the Messages API, through the real `anthropic` SDK. An edge.

The only module that imports `anthropic` (lazily, when an `Advisor` is built): the core,
the rules, the reporters and the service start without it. Caps, in the order applied:

- a cached answer (question, prompt version, model, input hash) is used without a call;
- at most `max_calls_per_head` (3) Messages calls per head SHA;
- a daily token budget per installation;
- `count_tokens` first: a prompt above `max_input_tokens` (24,000) is not sent;
- `max_tokens` at most 2,000; one deadline (60 s) for the whole run;
- SDK `max_retries` at most 1, only for 5xx, timeouts and lost connections, each wait capped
  (`retry_after_cap`), while the SDK otherwise sleeps as long as Retry-After says;
- 429 and 529 are not retried in the call: the run stops and reports `deferred` (seconds),
  so the advise job is deferred or dropped and never delays the deterministic review.

The static system prompt carries `cache_control` (prompt caching). The answer is asked for
as structured output: one strict tool, `report_advice`, forced with `tool_choice`, whose
`input_schema` is the answer schema (`prompt.TOOL`); the input of that call is the answer,
and `grounding.check_answer` validates it as before (a response without the call, or with
an input the schema refuses, is refused, never raised). Nothing runs the tool.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import field
from typing import Any

from bot.advisor.grounding import Advice, check_answer
from bot.advisor.prompt import ANSWER_TOOL, build_prompt, cache_key
from bot.advisor.questions import Question
from bot.advisor.store import Ledger, default_path
from bot.base.records import dataclass
from bot.core.model import Finding

log = logging.getLogger("bot.advisor")

DEFAULT_MODEL = "claude-sonnet-4-6"
MAX_TOKENS_CAP = 2_000
MAX_CALLS_CAP = 3
# list prices, US$ per million tokens: input, output (cache writes 1.25x, reads 0.1x input)
PRICES: dict[str, tuple[float, float]] = {
    "claude-sonnet-4-6": (3.0, 15.0),
    "claude-sonnet-4-5": (3.0, 15.0),
    "claude-sonnet-4": (3.0, 15.0),
    "claude-haiku-4-5": (1.0, 5.0),
    "claude-opus-4-1": (15.0, 75.0),
}


class AdvisorConfigError(ValueError):
    """The advisor's configuration is unusable; the message names the variable."""


@dataclass(frozen=True)
class AdvisorSettings:
    api_key: str = field(repr=False)
    base_url: str | None = None
    model: str = DEFAULT_MODEL
    max_input_tokens: int = 24_000
    max_tokens: int = MAX_TOKENS_CAP
    max_calls_per_head: int = MAX_CALLS_CAP
    daily_tokens: int = 2_000_000
    deadline_seconds: float = 60.0
    retry_after_cap: float = 2.0
    max_retries: int = 1
    cache_path: str = ""


def _num(env: Mapping[str, str], name: str, default: float, lo: float, hi: float) -> float:
    raw = (env.get(name) or "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise AdvisorConfigError(f"{name}: not a number: {raw!r}") from None
    if not lo <= value <= hi:
        raise AdvisorConfigError(f"{name}: {raw} is outside [{lo:g}, {hi:g}]")
    return value


def advisor_settings(env: Mapping[str, str]) -> AdvisorSettings | None:
    """The advisor's settings, or None when it is off (no `ANTHROPIC_API_KEY`, or
    `BOT_ADVISOR=off`)."""
    key = (env.get("ANTHROPIC_API_KEY") or "").strip()
    if not key or (env.get("BOT_ADVISOR") or "").strip().lower() in ("off", "0", "false", "no"):
        return None
    return AdvisorSettings(
        api_key=key,
        base_url=(env.get("ANTHROPIC_BASE_URL") or "").strip() or None,
        model=(env.get("BOT_ADVISOR_MODEL") or "").strip() or DEFAULT_MODEL,
        max_input_tokens=int(_num(env, "BOT_ADVISOR_MAX_INPUT_TOKENS", 24_000, 256, 24_000)),
        max_tokens=int(_num(env, "BOT_ADVISOR_MAX_TOKENS", MAX_TOKENS_CAP, 64, MAX_TOKENS_CAP)),
        max_calls_per_head=int(_num(env, "BOT_ADVISOR_MAX_CALLS", MAX_CALLS_CAP, 0, MAX_CALLS_CAP)),
        daily_tokens=int(_num(env, "BOT_ADVISOR_DAILY_TOKENS", 2_000_000, 0, 10**10)),
        deadline_seconds=_num(env, "BOT_ADVISOR_DEADLINE_SECONDS", 60.0, 0.1, 60.0),
        retry_after_cap=_num(env, "BOT_ADVISOR_RETRY_AFTER_CAP", 2.0, 0.0, 10.0),
        max_retries=int(_num(env, "BOT_ADVISOR_MAX_RETRIES", 1, 0, 1)),
        cache_path=(env.get("BOT_ADVISOR_CACHE") or "").strip() or default_path(),
    )


@dataclass
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_write_tokens: int = 0
    cache_read_tokens: int = 0

    @property
    def total(self) -> int:
        return (
            self.input_tokens
            + self.output_tokens
            + self.cache_write_tokens
            + self.cache_read_tokens
        )

    def add(self, u: Any) -> None:
        self.input_tokens += int(getattr(u, "input_tokens", 0) or 0)
        self.output_tokens += int(getattr(u, "output_tokens", 0) or 0)
        self.cache_write_tokens += int(getattr(u, "cache_creation_input_tokens", 0) or 0)
        self.cache_read_tokens += int(getattr(u, "cache_read_input_tokens", 0) or 0)

    def cost(self, model: str) -> float:
        price_in, price_out = PRICES.get(model, PRICES[DEFAULT_MODEL])
        return (
            self.input_tokens * price_in
            + self.cache_write_tokens * price_in * 1.25
            + self.cache_read_tokens * price_in * 0.1
            + self.output_tokens * price_out
        ) / 1e6


@dataclass
class AdviceRun:
    """What one advise run did."""

    items: list[Advice] = field(default_factory=list)
    asked: list[str] = field(default_factory=list)  # question ids answered (call or cache)
    calls: int = 0  # Messages calls made
    cached: int = 0  # answers taken from the cache
    skipped: list[str] = field(default_factory=list)  # questions not asked, with why
    dropped: list[str] = field(default_factory=list)  # items refused, with why
    errors: list[str] = field(default_factory=list)
    deferred: float | None = None  # 429/529: seconds to wait before trying again
    usage: Usage = field(default_factory=Usage)
    model: str = DEFAULT_MODEL

    @property
    def cost_usd(self) -> float:
        return self.usage.cost(self.model)


class Deferred(Exception):
    def __init__(self, status: int, retry_after: float | None) -> None:
        super().__init__(f"HTTP {status}")
        self.status = status
        self.retry_after = retry_after


def _retry_after(response: Any) -> float | None:
    headers = getattr(response, "headers", None) or {}
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        raw = headers.get(name)
        if raw:
            try:
                return max(0.0, float(raw) / scale)
            except ValueError:
                continue
    return None


def sdk_available() -> bool:
    """Whether the optional `anthropic` SDK is installed (`pip install '.[llm]'`)."""
    return importlib.util.find_spec("anthropic") is not None


def make_client(settings: AdvisorSettings) -> Any:
    """The SDK client: retries only 5xx/timeouts, at most once, each wait capped."""
    import anthropic

    cap = settings.retry_after_cap

    class CappedAnthropic(anthropic.Anthropic):
        def _should_retry(self, response: Any) -> bool:
            if response.status_code in (429, 529):
                return False  # the job is deferred instead: never sleep Retry-After here
            return bool(super()._should_retry(response))

        def _calculate_retry_timeout(self, *args: Any, **kwargs: Any) -> float:
            return min(float(super()._calculate_retry_timeout(*args, **kwargs)), cap)

    return CappedAnthropic(
        api_key=settings.api_key,
        base_url=settings.base_url,
        max_retries=min(1, settings.max_retries),
        timeout=settings.deadline_seconds,
    )


class Advisor:
    """Asks the questions within the caps; see the module docstring."""

    def __init__(
        self,
        settings: AdvisorSettings,
        *,
        ledger: Ledger | None = None,
        client: Any = None,
        clock: Callable[[], float] = time.monotonic,
        nonce: Callable[[], str] = lambda: secrets.token_hex(8),
    ) -> None:
        self.settings = settings
        self.ledger = ledger or Ledger(settings.cache_path or default_path())
        self._owns_ledger = ledger is None
        self.client = client if client is not None else make_client(settings)
        self.clock = clock
        self.nonce = nonce

    def close(self) -> None:
        if self._owns_ledger:
            self.ledger.close()
        close = getattr(self.client, "close", None)
        if callable(close):
            close()

    def advise(
        self,
        questions: Sequence[Question],
        *,
        head_sha: str,
        installation: str = "local",
        findings: Sequence[Finding] = (),
    ) -> AdviceRun:
        import anthropic

        s = self.settings
        run = AdviceRun(model=s.model)
        deadline = self.clock() + s.deadline_seconds
        for q in questions:
            prompt = build_prompt(q, self._nonce_for(q))
            key = cache_key(q.id, s.model, prompt.input_hash)
            hit = self.ledger.answer(key)
            if hit is not None:
                run.cached += 1
                self._take(run, q, hit[0], hit[1], findings)
                continue
            if self.ledger.calls_for(head_sha) >= s.max_calls_per_head:
                run.skipped.append(
                    f"{q.id}: {s.max_calls_per_head} calls already made on this head"
                )
                continue
            remaining = deadline - self.clock()
            if remaining <= 0.5:
                run.skipped.append(f"{q.id}: deadline of {s.deadline_seconds:g} s reached")
                break
            spent = self.ledger.tokens_today(installation)
            try:
                counted = self.client.messages.count_tokens(
                    model=s.model,
                    system=prompt.system,
                    messages=prompt.messages,
                    tools=list(prompt.tools),
                    tool_choice=prompt.tool_choice,
                    timeout=max(0.5, min(10.0, remaining)),
                )
                n_in = int(counted.input_tokens)
                if n_in > s.max_input_tokens:
                    run.skipped.append(f"{q.id}: {n_in} input tokens > {s.max_input_tokens}")
                    continue
                if spent + n_in + s.max_tokens > s.daily_tokens:
                    run.skipped.append(f"{q.id}: daily token budget of {s.daily_tokens} reached")
                    continue
                remaining = deadline - self.clock()
                if remaining <= 0.5:
                    run.skipped.append(f"{q.id}: deadline of {s.deadline_seconds:g} s reached")
                    break
                self.ledger.record_call(head_sha, key)
                run.calls += 1
                attempts = 1 + min(1, s.max_retries)
                message = self.client.messages.create(
                    model=s.model,
                    max_tokens=min(s.max_tokens, MAX_TOKENS_CAP),
                    system=prompt.system,
                    messages=prompt.messages,
                    tools=list(prompt.tools),
                    tool_choice=prompt.tool_choice,
                    timeout=max(0.5, remaining / attempts),
                )
            except anthropic.APIStatusError as exc:
                if exc.status_code in (429, 529):
                    run.deferred = _retry_after(exc.response)
                    if run.deferred is None:
                        run.deferred = 60.0
                    run.errors.append(f"{q.id}: HTTP {exc.status_code}; advice deferred")
                    break
                run.errors.append(f"{q.id}: HTTP {exc.status_code}")
                if exc.status_code >= 500:
                    break
                continue
            except anthropic.APITimeoutError:
                run.errors.append(f"{q.id}: no answer within the {s.deadline_seconds:g} s deadline")
                break
            except anthropic.APIConnectionError as exc:
                run.errors.append(f"{q.id}: connection failed ({type(exc).__name__})")
                break
            except (anthropic.AnthropicError, ValueError, TypeError, KeyError) as exc:
                # a response the SDK cannot read (truncated body, wrong shape)
                run.errors.append(f"{q.id}: unreadable response ({type(exc).__name__})")
                break
            run.usage.add(message.usage)
            self.ledger.spend(installation, _tokens(message.usage))
            text = answer_text(message)
            stop = str(message.stop_reason or "")
            self._take(run, q, text, stop, findings)
            # kept even when refused (truncated, not JSON, schema): the same input would be
            # answered the same way, and a second run on the head makes no call
            self.ledger.store(key, q.id, s.model, text, stop)
        return run

    def _nonce_for(self, q: Question) -> str:
        for _ in range(5):
            nonce = self.nonce()
            try:
                build_prompt(q, nonce)
            except ValueError:
                continue
            return nonce
        raise RuntimeError("could not find a nonce absent from the data")

    def _take(
        self, run: AdviceRun, q: Question, text: str, stop: str, findings: Sequence[Finding]
    ) -> bool:
        if not text and stop != "max_tokens":
            why = f"no {ANSWER_TOOL} call (stop reason {stop or 'none'})"
            run.errors.append(f"{q.id}: answer refused: {why}")
            return False
        checked = check_answer(text, q, findings, truncated=stop == "max_tokens")
        if checked.error is not None:
            run.errors.append(f"{q.id}: answer refused: {checked.error}")
            return False
        run.asked.append(q.id)
        run.items.extend(checked.items)
        run.dropped.extend(f"{q.id}: {d}" for d in checked.dropped)
        return True


def answer_text(message: Any) -> str:
    """The answer as JSON text: the input of the message's `report_advice` call, which the
    SDK hands over parsed, written out again so `check_answer` reads one form. "" when the
    message makes no such call; text the answer's validation refuses when the input cannot
    be written as JSON (NaN or infinity)."""
    for block in getattr(message, "content", None) or ():
        if getattr(block, "type", "") == "tool_use" and getattr(block, "name", "") == ANSWER_TOOL:
            try:
                return json.dumps(
                    getattr(block, "input", None), ensure_ascii=False, allow_nan=False
                )
            except (TypeError, ValueError) as exc:
                return f"<{ANSWER_TOOL} input not JSON: {type(exc).__name__}>"
    return ""


def _tokens(usage: Any) -> int:
    u = Usage()
    u.add(usage)
    return u.total
