"""One OpenAI-compatible endpoint over the real ``openai`` client: bounded retries, clear errors, metering.

Timeouts, lost connections, 429 and 5xx are retried with exponential backoff and
full jitter (tenacity), at most ``llm_max_retries`` times; the client's own retry
loop is switched off so the bound is ours. 401/403 are configuration errors and
never retried. Every message that leaves here has the API key scrubbed out.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

import openai
from tenacity import Retrying, retry_if_exception_type, stop_after_attempt, wait_random_exponential

from engram_core.core.errors import ConfigurationError, EngramError, ProviderError
from engram_core.core.model import CallOutcome, CallPurpose
from engram_core.providers.settings import KEY_VARIABLES, ProviderSettings
from engram_core.providers.usage import UsageMeter

T = TypeVar("T")
TRANSIENT = (openai.APITimeoutError, openai.APIConnectionError, openai.RateLimitError, openai.InternalServerError)
REDACTED = "[redacted]"


def make_client(settings: ProviderSettings) -> openai.OpenAI:
    return openai.OpenAI(api_key=settings.secret(), base_url=settings.llm_base_url,
                         timeout=settings.llm_timeout_seconds, max_retries=0)


def redact(text: str, secret: str | None) -> str:
    return text.replace(secret, REDACTED) if secret else text


@dataclass(frozen=True)
class Sent(Generic[T]):
    """A provider answer with what it took to get it."""

    value: T
    attempts: int
    latency_ms: float


class Transport:
    def __init__(self, settings: ProviderSettings, meter: UsageMeter, client: openai.OpenAI | None = None,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.settings = settings
        self.meter = meter
        self.client = client or make_client(settings)
        self._sleep = sleep

    def _retrying(self) -> Retrying:
        s = self.settings
        return Retrying(stop=stop_after_attempt(s.llm_max_retries + 1), retry=retry_if_exception_type(TRANSIENT),
                        wait=wait_random_exponential(multiplier=s.llm_backoff_seconds, max=s.llm_backoff_max_seconds),
                        sleep=self._sleep, reraise=True)

    def send(self, purpose: CallPurpose, model: str, request: Callable[[], T]) -> Sent[T]:
        """``request`` with bounded retries; a failure is metered, then raised as an EngramError."""
        retrying, started = self._retrying(), time.perf_counter()
        try:
            value = retrying(request)
        except openai.OpenAIError as exc:
            attempts = retrying.statistics.get("attempt_number", 1)
            self.meter.record(purpose, model, latency_ms=_ms_since(started), attempts=attempts,
                              outcome=CallOutcome.FAILED)
            raise self.translate(exc, purpose, model, attempts) from exc
        return Sent(value, retrying.statistics.get("attempt_number", 1), _ms_since(started))

    def translate(self, exc: BaseException, purpose: CallPurpose, model: str, attempts: int) -> EngramError:
        """A foreign error as one clear line, without the key."""
        where, secret = self.settings.llm_base_url, self.settings.api_key
        text = redact(_describe(exc, attempts, self.settings.llm_timeout_seconds), secret and secret.get_secret_value())
        if isinstance(exc, (openai.AuthenticationError, openai.PermissionDeniedError)):
            return ConfigurationError(
                f"{where} rejected the API key ({text}); check {' or '.join(KEY_VARIABLES)}", field="api_key")
        if isinstance(exc, openai.NotFoundError):
            return ConfigurationError(f"model {model!r} is not served at {where} ({text})", field="model")
        return ProviderError(f"{purpose.value} call to {model} at {where} failed: {text}")


def _describe(exc: BaseException, attempts: int, timeout: float) -> str:
    tries = f"after {attempts} attempt{'s' if attempts != 1 else ''}"
    if isinstance(exc, openai.APITimeoutError):
        return f"timed out ({timeout:g} s per attempt) {tries}"
    if isinstance(exc, openai.APIConnectionError):
        return f"cannot connect {tries}"
    if isinstance(exc, openai.APIStatusError):
        return f"HTTP {exc.status_code} {tries}: {_provider_message(exc)}"
    return f"{type(exc).__name__} {tries}"


def _provider_message(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        detail = body.get("error", body)
        message = detail.get("message") if isinstance(detail, dict) else detail
        if message:
            return " ".join(str(message).split())[:300]
    return exc.response.reason_phrase or "no detail"


def _ms_since(started: float) -> float:
    return (time.perf_counter() - started) * 1000.0
