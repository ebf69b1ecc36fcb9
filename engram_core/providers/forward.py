"""A whole conversation forwarded to the OpenAI-compatible endpoint, its fields untouched.

The body goes out as the caller sent it (tools, tool_choice, sampling options, any
provider extension) with only ``model`` resolved and the memory system message in
``messages``; the answer comes back as the endpoint's JSON, tool calls included.
Requests go through the same bounded retries and error translation as every other
model call; calls are metered on a meter of their own and handed to the tenant's
store when the turn is written (a streamed answer ends after the request's first
write has committed).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

import openai

from engram_core.usecases.completions import wants_usage
from engram_core.core.errors import EngramError, ValidationError
from engram_core.core.model import CallOutcome, CallPurpose, ModelCall
from engram_core.providers.transport import Sent, Transport
from engram_core.providers.usage import UsageMeter

if TYPE_CHECKING:
    from engram_core.usecases.completions import PreparedTurn
    from engram_core.providers.qwen import QwenLLM

Json = dict[str, object]
CLIENT_ERRORS = (openai.BadRequestError, openai.UnprocessableEntityError)


def resolve_model(requested: str, llm: QwenLLM) -> str:
    """A model the deployment serves by name is used as named; the alias and any other name get the
    configured reply model, so an agent written for another provider's model names works unchanged."""
    return requested if requested in (llm.strong, llm.cheap) else llm.strong


def usage_numbers(usage: object) -> tuple[int, int, int]:
    if not isinstance(usage, dict):
        return 0, 0, 0
    details = usage.get("completion_tokens_details")
    reasoning = details.get("reasoning_tokens") if isinstance(details, dict) else None
    return int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0), int(reasoning or 0)


class ForwardingModel:
    def __init__(self, llm: QwenLLM, requested: str) -> None:
        self._settings = llm.settings
        self._meter = UsageMeter(llm.settings.prices)
        self._transport = Transport(llm.settings, self._meter, client=llm.transport.client)
        self.name = resolve_model(requested, llm)

    def _body(self, turn: PreparedTurn, payload: Json, stream: bool) -> Json:
        body: Json = {**payload, "model": self.name, "stream": stream}
        if stream:  # usage rides on the last chunk: the call is metered whether or not the caller asked for it
            body["stream_options"] = {**(payload.get("stream_options") or {}), "include_usage": True}
        else:
            body.pop("stream_options", None)
        return body

    def _send(self, body: Json, stream: bool) -> Sent[object]:
        client = self._transport.client
        options = {"timeout": self._settings.llm_reply_timeout_seconds}

        def request() -> object:
            if stream:
                return client.post("/chat/completions", body=body, cast_to=object, options=options, stream=True,
                                   stream_cls=openai.Stream[object])
            return client.post("/chat/completions", body=body, cast_to=object, options=options)

        try:
            return self._transport.send(CallPurpose.REPLY, self.name, request)
        except EngramError as exc:
            raise _caller_error(exc) from exc

    def complete(self, turn: PreparedTurn, payload: Json) -> Json:
        sent = self._send(self._body(turn, payload, stream=False), stream=False)
        response = sent.value if isinstance(sent.value, dict) else {}
        self._record(sent.attempts, sent.latency_ms, response.get("usage"))
        return response

    def stream(self, turn: PreparedTurn, payload: Json) -> Iterator[Json]:
        started = time.perf_counter()
        sent = self._send(self._body(turn, payload, stream=True), stream=True)
        return self._relay(sent, started, wanted=wants_usage(payload))

    def _relay(self, sent: Sent[object], started: float, *, wanted: bool) -> Iterator[Json]:
        """The endpoint's chunks as they come; its usage chunk only when the caller asked for usage."""
        usage = None
        try:
            for chunk in sent.value:  # type: ignore[attr-defined] - an openai.Stream of dicts
                if not isinstance(chunk, dict):
                    continue
                usage = chunk.get("usage") or usage
                if chunk.get("usage") and not chunk.get("choices") and not wanted:
                    continue
                yield chunk
        except openai.OpenAIError as exc:
            self._meter.record(CallPurpose.REPLY, self.name, latency_ms=_ms_since(started), attempts=sent.attempts,
                               outcome=CallOutcome.FAILED)
            raise self._transport.translate(exc, CallPurpose.REPLY, self.name, sent.attempts) from exc
        self._record(sent.attempts, _ms_since(started), usage)

    def _record(self, attempts: int, latency_ms: float, usage: object) -> None:
        prompt, completion, reasoning = usage_numbers(usage)
        self._meter.record(CallPurpose.REPLY, self.name, latency_ms=latency_ms, attempts=attempts,
                           outcome=CallOutcome.OK, prompt_tokens=prompt, completion_tokens=completion,
                           reasoning_tokens=reasoning, thinking=reasoning > 0)

    def drain_calls(self) -> list[ModelCall]:
        return self._meter.drain_usage()


def _caller_error(exc: EngramError) -> EngramError:
    """The endpoint refused the request itself (a bad tool schema, say): the caller's input, a 4xx."""
    if isinstance(exc.__cause__, CLIENT_ERRORS):
        return ValidationError(f"the model refused the request: {exc.message}", field="body")
    return exc


def _ms_since(started: float) -> float:
    return (time.perf_counter() - started) * 1000.0
