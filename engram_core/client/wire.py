"""What both clients share: settings, the request for a Call, the answer or the error of a response."""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass

import httpx2

from engram_core.client.calls import Answer, Call
from engram_core.client.errors import UnreachableError, error_from_body
from engram_core.client.retry import RetryPolicy, parse_retry_after
from engram_core.core.errors import ConfigurationError, EngramError

DEFAULT_URL = "http://127.0.0.1:9000"
URL_VARIABLE = "ENGRAM_URL"
KEY_VARIABLE = "ENGRAM_API_KEY"


@dataclass(frozen=True)
class ClientSettings:
    base_url: str
    api_key: str
    timeout_seconds: float
    retry: RetryPolicy

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key}", "Accept": "application/json"}


def client_settings(base_url: str | None, api_key: str | None, timeout: float, retry: RetryPolicy) -> ClientSettings:
    """Arguments first, then ENGRAM_URL / ENGRAM_API_KEY (read when the client is made)."""
    key = api_key or os.environ.get(KEY_VARIABLE)
    if not key:
        raise ConfigurationError(f"no API key: pass api_key= or set {KEY_VARIABLE}", field="api_key")
    url = (base_url or os.environ.get(URL_VARIABLE) or DEFAULT_URL).rstrip("/")
    return ClientSettings(url, key, timeout, retry)


def request_options(call: Call, idempotency_key: str | None) -> dict:
    headers = {}
    if idempotency_key is not None:
        headers["Idempotency-Key"] = idempotency_key
    if call.content_type is not None:
        headers["Content-Type"] = call.content_type
    options: dict = {"params": call.params or None, "headers": headers}
    if call.content is not None:
        options["content"] = call.content
    elif call.json is not None:
        options["json"] = call.json
    return options


def idempotency_key_for(call: Call) -> str | None:
    """One key per call, the same for each of its retries."""
    return f"egc-{uuid.uuid4().hex}" if call.write else None


def _json_or_none(response: httpx2.Response) -> object:
    if "json" not in response.headers.get("content-type", ""):
        return None
    try:
        return response.json()
    except ValueError:
        return None


def answer_of(response: httpx2.Response) -> Answer:
    return Answer(response.status_code, response.text, _json_or_none(response))


def error_of(response: httpx2.Response) -> EngramError:
    return error_from_body(response.status_code, _json_or_none(response),
                           request_id=response.headers.get("x-request-id"),
                           retry_after=parse_retry_after(response.headers.get("Retry-After")))


def unreachable(settings: ClientSettings, exc: httpx2.TransportError) -> UnreachableError:
    return UnreachableError(f"no answer from {settings.base_url}: {type(exc).__name__}: {exc}")


def retry_wait(settings: ClientSettings, response: httpx2.Response, retries_done: int) -> float | None:
    return settings.retry.wait_before_retry(response.status_code, response.headers.get("Retry-After"), retries_done)
