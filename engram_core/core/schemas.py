"""Request and response bodies of the HTTP API (pydantic at the edge; the OpenAPI document comes from these)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from engram_core.core.views import (
    BeliefOut, DreamActionOut, EmbeddingOut, EventOut, MemoryOut, MessageOut, ProposalOut, RecallItemOut, RecallOut,
    ScoreOut, View, WriteOut,
)

__all__ = [  # the per-record shapes are the engine's own (engram_core.core.views), re-exported for the routes
    "BeliefOut", "DreamActionOut", "EmbeddingOut", "EventOut", "MemoryOut", "MessageOut", "ProposalOut",
    "RecallItemOut", "RecallOut", "ScoreOut", "WriteOut",
]

MAX_TEXT_CHARS = 32 * 1024
MAX_BUDGET = 200_000
Identifier = Field(min_length=1, max_length=200)
When = Field(None, max_length=64, description="ISO-8601 date or date-time (UTC when no offset).")


class _Request(BaseModel):
    """Unknown fields are refused: no body field can, for example, name a tenant."""

    model_config = ConfigDict(extra="forbid")


class ChatRequest(_Request):
    message: str = Field(min_length=1, max_length=MAX_TEXT_CHARS)
    session_id: str | None = Field(None, min_length=1, max_length=200)
    budget_tokens: int = Field(1024, ge=1, le=MAX_BUDGET, description="Hard token budget of the recalled block.")
    occurred_at: str | None = When


class RecallRequest(_Request):
    query: str = Field(min_length=1, max_length=MAX_TEXT_CHARS)
    budget_tokens: int = Field(1024, ge=1, le=MAX_BUDGET)
    as_of: str | None = When


class RememberRequest(_Request):
    text: str = Field(min_length=1, max_length=MAX_TEXT_CHARS)
    kind: Literal["preference", "fact", "skill", "episode"] = "fact"
    importance: float | None = Field(None, ge=0, le=1, description="Set it to bypass the importance gate.")
    session_id: str | None = Field(None, min_length=1, max_length=200)


class ConsolidateRequest(_Request):
    session_id: str = Identifier


class DreamApplyRequest(_Request):
    proposal_id: str = Identifier
    approved: list[str] = Field(default_factory=list, max_length=200, description="Action ids to apply, e.g. a1.")


# -- responses --------------------------------------------------------------------------

class UsageOut(View):
    recalled_tokens: int = Field(description="Tokens of the memory block given to the model.")
    budget_tokens: int
    reply_tokens: int = Field(description="Tokens of the reply, by the engine's conservative counter.")
    llm: str


class ChatResponse(View):
    reply: str
    session_id: str
    recall: RecallOut
    stored: list[MemoryOut] = Field(description="Memories this turn created.")
    events: list[EventOut] = Field(description="Every decision of the turn: stored, not stored, superseded, ...")
    usage: UsageOut


class MemoryPage(View):
    items: list[MemoryOut]
    limit: int
    offset: int
    next_offset: int | None


class MemoryDetail(View):
    memory: MemoryOut
    provenance: list[MessageOut] = Field(description="The messages this memory came from.")
    beliefs: list[BeliefOut] = Field(description="Beliefs this memory states, with their whole history.")


class EventsOut(View):
    items: list[EventOut]


class BeliefsOut(View):
    as_of: str | None
    items: list[BeliefOut]


class ForgetOut(View):
    events: list[EventOut]


class ImportOut(BaseModel):
    imported: dict[str, int]


class DreamApplyOut(View):
    events: list[EventOut]


class StatsOut(BaseModel):
    tenant: str
    stats: dict[str, object]


class HealthOut(BaseModel):
    status: Literal["ok"]
    function: str
    version: str


class LifecycleOut(BaseModel):
    status: Literal["ok"]
    detail: str


class SleepJobOut(BaseModel):
    tenant: str
    trigger_time: str
    skipped: bool = Field(description="True when this tenant already slept for this trigger time, or is not due.")
    reason: str | None = Field(None, description="Why it was skipped: done (this trigger's job ran) or not_due.")
    next_due: str | None = Field(None, description="With not_due: when the tenant is due again.")
    gists: int
    events: int
    generations_collected: int | None = Field(None, description="Old snapshot generations deleted afterwards.")


class FanoutOut(BaseModel):
    trigger_time: str
    dispatched: list[str]
    already_dispatched: list[str] = Field(description="Dispatched by an earlier delivery of the same event.")
    truncated: bool = Field(description="More tenants were due than ENGRAM_FANOUT_MAX_PER_RUN: the next event "
                                        "(or a retry) takes them.")
    failed: list[str]
