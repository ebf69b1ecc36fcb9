"""Each HTTP API operation as a request to make and a way to read its answer (shared by both clients)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Generic, TypeVar
from urllib.parse import quote

from pydantic import BaseModel

# The server's own response models: one definition for both ends of the wire.
from engram_core.core.schemas import (
    BeliefsOut, ChatResponse, DreamApplyOut, EventsOut, ForgetOut, ImportOut, MemoryDetail, MemoryPage, ProposalOut,
    RecallOut, StatsOut, WriteOut,
)

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)
When = str | date | datetime | None


@dataclass(frozen=True)
class Answer:
    """What a response gave: status, the body as text, and the parsed JSON (None for other bodies)."""

    status: int
    text: str
    json: object


@dataclass(frozen=True)
class Call(Generic[T]):
    method: str
    path: str
    read: Callable[[Answer], T]
    params: dict[str, object] = field(default_factory=dict)
    json: object = None
    content: bytes | None = None
    content_type: str | None = None
    write: bool = False  # sent with an Idempotency-Key, so a retried request is done once


def _model(cls: type[M]) -> Callable[[Answer], M]:
    return lambda answer: cls.model_validate(answer.json)


def _when(value: When) -> str | None:
    return value.isoformat() if isinstance(value, (date, datetime)) else value


def _drop_none(values: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in values.items() if v is not None and v != []}


def _id(value: str) -> str:
    return quote(value, safe="")


def remember(text: str, kind: str, importance: float | None, session_id: str | None) -> Call[WriteOut]:
    body = _drop_none({"text": text, "kind": kind, "importance": importance, "session_id": session_id})
    return Call("POST", "/memories", _model(WriteOut), json=body, write=True)


def observe(text: str, role: str, session_id: str | None, message_id: str | None, occurred_at: When,
            speaker: str | None) -> Call[WriteOut]:
    body = _drop_none({"text": text, "role": role, "session_id": session_id, "id": message_id,
                       "occurred_at": _when(occurred_at), "speaker": speaker})
    return Call("POST", "/observe", _model(WriteOut), json=body, write=True)


def recall(query: str, budget_tokens: int, as_of: When) -> Call[RecallOut]:
    body = _drop_none({"query": query, "budget_tokens": budget_tokens, "as_of": _when(as_of)})
    return Call("POST", "/recall", _model(RecallOut), json=body)


def chat(message: str, session_id: str | None, budget_tokens: int, occurred_at: When) -> Call[ChatResponse]:
    body = _drop_none({"message": message, "session_id": session_id, "budget_tokens": budget_tokens,
                       "occurred_at": _when(occurred_at)})
    return Call("POST", "/chat", _model(ChatResponse), json=body, write=True)


def beliefs(as_of: When) -> Call[BeliefsOut]:
    return Call("GET", "/beliefs", _model(BeliefsOut), params=_drop_none({"as_of": _when(as_of)}))


def history(subject: str) -> Call[BeliefsOut]:
    return Call("GET", "/beliefs", _model(BeliefsOut), params={"subject": subject})


def memories(kind: Sequence[str], status: Sequence[str], text: str | None, as_of: When, limit: int,
             offset: int) -> Call[MemoryPage]:
    params = _drop_none({"kind": list(kind), "status": list(status), "text": text, "as_of": _when(as_of),
                         "limit": limit, "offset": offset})
    return Call("GET", "/memories", _model(MemoryPage), params=params)


def memory(memory_id: str) -> Call[MemoryDetail]:
    return Call("GET", f"/memories/{_id(memory_id)}", _model(MemoryDetail))


def forget(memory_id: str, purge: bool) -> Call[ForgetOut]:
    params = {"purge": "true"} if purge else {}
    return Call("DELETE", f"/memories/{_id(memory_id)}", _model(ForgetOut), params=params, write=True)


def events(since: When, limit: int) -> Call[EventsOut]:
    return Call("GET", "/events", _model(EventsOut), params=_drop_none({"since": _when(since), "limit": limit}))


def stats() -> Call[StatsOut]:
    return Call("GET", "/stats", _model(StatsOut))


def export() -> Call[list[str]]:
    return Call("GET", "/export", lambda answer: answer.text.splitlines())


def import_lines(lines: Iterable[str]) -> Call[ImportOut]:
    data = "".join(line.rstrip("\n") + "\n" for line in lines).encode("utf-8")
    return Call("POST", "/import", _model(ImportOut), content=data, content_type="application/x-ndjson", write=True)


def sleep() -> Call[WriteOut]:
    return Call("POST", "/sleep", _model(WriteOut), write=True)


def consolidate(session_id: str) -> Call[WriteOut]:
    return Call("POST", "/consolidate", _model(WriteOut), json={"session_id": session_id}, write=True)


def dream() -> Call[ProposalOut]:
    return Call("POST", "/dream", _model(ProposalOut), write=True)


def dream_apply(proposal_id: str, approved: Sequence[str]) -> Call[DreamApplyOut]:
    body = {"proposal_id": proposal_id, "approved": list(approved)}
    return Call("POST", "/dream/apply", _model(DreamApplyOut), json=body, write=True)


def advance_clock(duration: str) -> Call[dict]:
    return Call("POST", "/clock/advance", lambda answer: dict(answer.json or {}), json={"duration": duration},
                write=True)
