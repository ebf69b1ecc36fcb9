"""OpenAI-compatible chat completions with memory (``POST /v1/chat/completions``, ``GET /v1/models``).

An agent written against the OpenAI API gains memory by pointing ``base_url`` here
and using an Engram API key. The key decides the tenant; the session and the
recall budget come from the ``X-Engram-Session-Id`` / ``X-Engram-Budget-Tokens``
headers or from ``metadata`` (``engram_session_id``, ``engram_budget_tokens``);
a header wins over metadata. Every other field goes to the model untouched.

Not streamed: one write runs the whole turn (recall, the user message, the model,
the answer), like ``POST /chat``, and an ``Idempotency-Key`` replays it. Streamed:
the recall and the user message are written first, the model's chunks are relayed
as they come, and the answer is written before ``data: [DONE]``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from dataclasses import asdict
from typing import Annotated

from fastapi import APIRouter, Header, Response
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from engram_core.core import conversation
from engram_core.core.conversation import ConversationModel, PreparedTurn
from engram_core.usecases import completions
from engram_core.usecases.engine import Engine
from engram_core.core.errors import EngramError, NotFoundError, ValidationError
from functions.deps import LimitedTenantDep, ReplayDep, ServiceDep, TenantDep, shape
from functions.openapi import LIMITED_WRITE_ERRORS, READ_ERRORS
from engram_core.core.schemas import MAX_BUDGET
from functions.service import ReplayKey, Service

router = APIRouter(tags=["openai"])
log = logging.getLogger("engram.http")
SESSION_HEADER = "X-Engram-Session-Id"
BUDGET_HEADER = "X-Engram-Budget-Tokens"
SESSION_KEY = "engram_session_id"
BUDGET_KEY = "engram_budget_tokens"
DEFAULT_BUDGET = 1024
SSE = "text/event-stream"


class CompletionMessage(BaseModel):
    """One message as OpenAI's API has it; fields besides these (tool_calls, name, ...) pass through."""

    model_config = ConfigDict(extra="allow")

    role: str = Field(min_length=1, max_length=64)
    content: str | list[dict] | None = None


class CompletionRequest(BaseModel):
    """OpenAI's chat-completions request. Unknown fields (tools, tool_choice, temperature, response_format,
    ...) are the model's and pass through untouched; none of them is read here, so none can name a tenant."""

    model_config = ConfigDict(extra="allow")

    model: str = Field(min_length=1, max_length=200, description="`engram`, or any name: see GET /v1/models.")
    messages: list[CompletionMessage] = Field(min_length=1, max_length=10_000)
    stream: bool = False
    metadata: dict[str, str] | None = Field(None, description=f"`{SESSION_KEY}`, `{BUDGET_KEY}` are read (and "
                                                              "not forwarded); other keys pass through.")


class CompletionOut(BaseModel):
    """The model's answer in OpenAI's shape; ``usage.memory_tokens`` and ``engram`` are added."""

    model_config = ConfigDict(extra="allow")

    id: str | None = None
    object: str | None = None
    model: str | None = None
    choices: list[dict] = Field(default_factory=list)
    usage: dict | None = None
    engram: dict = Field(description="session_id, budget_tokens, memory_tokens, added_tokens, recalled, "
                                     "stored_message_id.")


class ModelOut(BaseModel):
    id: str
    object: str
    created: int
    owned_by: str


class ModelsOut(BaseModel):
    object: str
    data: list[ModelOut]


COMPLETION_RESPONSES = {**LIMITED_WRITE_ERRORS, 200: {
    "description": "The completion; with `stream: true` server-sent events (`data: {chunk}`, then `data: [DONE]`).",
    "content": {SSE: {"schema": {
        "type": "object", "required": ["data"],
        "description": "One event: `data` is a chat.completion.chunk (JSON), an `error` object, or `[DONE]`.",
        "properties": {"data": {"type": "string"}, "event": {"type": "string"}, "id": {"type": "string"}}}}}}}
SessionHeader = Annotated[str | None, Header(alias=SESSION_HEADER, min_length=1, max_length=200,
                                             description="The session the turn is written to (default: default).")]
BudgetHeader = Annotated[int | None, Header(alias=BUDGET_HEADER, ge=1, le=MAX_BUDGET,
                                            description=f"Token budget of the memory block ({DEFAULT_BUDGET}).")]


def _metadata_budget(metadata: dict[str, str]) -> int | None:
    text = metadata.get(BUDGET_KEY)
    if text is None:
        return None
    if not text.strip().isdigit() or not 1 <= int(text) <= MAX_BUDGET:
        raise ValidationError(f"metadata.{BUDGET_KEY} must be a whole number from 1 to {MAX_BUDGET}",
                              field=f"metadata.{BUDGET_KEY}")
    return int(text)


def _checked_session(text: str | None, field: str) -> str | None:
    """Checked before anything runs: a bad session id must not leave a sweep or a reinforcement behind."""
    if text is not None and not (text.strip() and len(text) <= 200):
        raise ValidationError(f"{field} must be 1 to 200 characters, not only spaces", field=field)
    return text


def turn_options(body: CompletionRequest, session: str | None, budget: int | None) -> tuple[str, int]:
    """(session, budget): a header wins over metadata; then the defaults."""
    metadata = body.metadata or {}
    chosen_session = (_checked_session(session, SESSION_HEADER)
                      or _checked_session(metadata.get(SESSION_KEY), f"metadata.{SESSION_KEY}")
                      or conversation.DEFAULT_SESSION)
    chosen_budget = budget or _metadata_budget(metadata) or DEFAULT_BUDGET
    return chosen_session, chosen_budget


def forward_payload(body: CompletionRequest) -> dict:
    """The request as the caller sent it, less the keys Engram reads."""
    payload = body.model_dump(mode="json", exclude_unset=True)
    metadata = {k: v for k, v in (body.metadata or {}).items() if k not in (SESSION_KEY, BUDGET_KEY)}
    payload.pop("metadata", None)
    if metadata:
        payload["metadata"] = metadata
    return payload


def with_memory_usage(answer: dict, turn: PreparedTurn) -> dict:
    """``usage.memory_tokens`` (the block, never above the budget) and the turn's memory facts."""
    out = dict(answer)
    if isinstance(out.get("usage"), dict):
        out["usage"] = {**out["usage"], "memory_tokens": turn.memory_tokens}
    out["engram"] = turn.usage_extra()
    return out


def _memory_payload(payload: dict, turn: PreparedTurn) -> dict:
    return {**payload, "messages": conversation.with_memory(payload["messages"], turn.block)}


@router.post("/v1/chat/completions", response_model=CompletionOut, responses=COMPLETION_RESPONSES)
def chat_completions(body: CompletionRequest, response: Response, tenant: LimitedTenantDep, replay: ReplayDep,
                     service: ServiceDep, session: SessionHeader = None, budget: BudgetHeader = None) -> object:
    """A chat completion with memory: recall for the newest user message, the block in a system message,
    the conversation to the configured model, the turn written. OpenAI's request and response shapes."""
    session_id, budget_tokens = turn_options(body, session, budget)
    payload = forward_payload(body)
    if body.stream:
        return _stream(service, tenant, body.model, payload, (session_id, budget_tokens), replay)

    def turn(engine: Engine) -> tuple[int, dict]:
        prepared = completions.prepare_turn(engine, payload["messages"], session_id, budget_tokens)
        model = engine.conversation_model(body.model)
        answer = _complete(engine, model, prepared, _memory_payload(payload, prepared))
        completions.finish_turn(engine, prepared, conversation.answer_of_response(answer), model.drain_calls())
        return 200, with_memory_usage(answer, prepared)

    return shape(service.write(tenant, turn, replay), response)


def _complete(engine: Engine, model: ConversationModel, turn: PreparedTurn, payload: dict) -> dict:
    try:
        return model.complete(turn, payload)
    except EngramError as exc:
        engine.record_calls(model.drain_calls())
        engine.record_reply_failure(turn.message_id, model.name, exc.message)
        raise


def _stream(service: Service, tenant: str, requested: str, payload: dict, options: tuple[str, int],
            replay: ReplayKey | None) -> StreamingResponse:
    models: list[ConversationModel] = []

    def prepare(engine: Engine) -> tuple[int, dict]:
        models.append(engine.conversation_model(requested))
        return 200, asdict(completions.prepare_turn(engine, payload["messages"], *options))

    outcome = service.write(tenant, prepare, replay)
    if outcome.status != 200:  # a kept error of a first attempt with this Idempotency-Key
        raise ValidationError("this Idempotency-Key's first request failed; send the request with a new key",
                              field="Idempotency-Key")
    turn = PreparedTurn(**outcome.body)
    model = models[0] if models else service.read(tenant, lambda e: e.conversation_model(requested))
    try:
        chunks = model.stream(turn, _memory_payload(payload, turn))  # refused here: a plain error response
    except EngramError as exc:
        _write_failure(service, tenant, model, turn, exc)
        raise
    return StreamingResponse(_relay(service, tenant, model, turn, chunks), media_type=SSE,
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


def _event(data: object) -> str:
    return f"data: {json.dumps(data, ensure_ascii=False, separators=(',', ':'))}\n\n"


def _relay(service: Service, tenant: str, model: ConversationModel, turn: PreparedTurn,
           chunks: Iterator[dict]) -> Iterator[str]:
    """Chunks as they come (the first carries ``engram``, the usage chunk ``memory_tokens``); the answer is
    written before ``[DONE]``. A failure after the first byte can only be told in the stream: an error event."""
    answer: list[str] = []
    try:
        for index, chunk in enumerate(chunks):
            answer.append(conversation.answer_of_chunk(chunk))
            if chunk.get("usage"):
                chunk = {**chunk, "usage": {**chunk["usage"], "memory_tokens": turn.memory_tokens}}
            yield _event({**chunk, "engram": turn.usage_extra()} if index == 0 else chunk)
        calls = model.drain_calls()  # once: a write that lost a commit race runs again with the same calls
        service.write(tenant, lambda e: (200, completions.finish_turn(e, turn, "".join(answer), calls)), None)
    except EngramError as exc:
        _write_failure(service, tenant, model, turn, exc)
        yield _event({"error": {"code": exc.code, "message": exc.message, "field": exc.field}})
        return
    except Exception as exc:  # the outermost boundary of a stream: log the type, tell the client, no details
        log.error("unexpected %s while streaming a completion", type(exc).__name__, exc_info=exc)
        yield _event({"error": {"code": "internal_error", "message": "internal error; the request id is in the "
                                                                     "x-request-id header", "field": None}})
        return
    yield "data: [DONE]\n\n"


def _write_failure(service: Service, tenant: str, model: ConversationModel, turn: PreparedTurn,
                   exc: EngramError) -> None:
    calls = model.drain_calls()

    def record(engine: Engine) -> tuple[int, None]:
        engine.record_calls(calls)
        engine.record_reply_failure(turn.message_id, model.name, exc.message)
        return 200, None

    try:
        service.write(tenant, record, None)
    except EngramError as failed:  # the answer failed already; the audit note is best effort
        log.warning("could not record the failed reply: %s", failed.message)


def _model_view(name: str) -> dict:
    return {"id": name, "object": "model", "created": 0, "owned_by": "engram"}


@router.get("/v1/models", response_model=ModelsOut, responses=READ_ERRORS)
def list_models(tenant: TenantDep, service: ServiceDep) -> dict:
    """The model names this deployment answers to: `engram` (the configured reply model) first."""
    names = service.read(tenant, lambda e: e.served_models())
    return {"object": "list", "data": [_model_view(n) for n in names]}


@router.get("/v1/models/{model}", response_model=ModelOut, responses=READ_ERRORS)
def get_model(model: str, tenant: TenantDep, service: ServiceDep) -> dict:
    """One served model."""
    if model not in service.read(tenant, lambda e: e.served_models()):
        raise NotFoundError(f"no model {model!r}; GET /v1/models lists them", field="model")
    return _model_view(model)
