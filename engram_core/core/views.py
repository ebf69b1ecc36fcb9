"""The one serialised shape of each record: pydantic models read straight from the domain values.

The HTTP API (``engram_core.core.schemas``), the MCP tools and the CLI's ``--json`` all answer with these
models; ``Model.view(value)`` is the JSON-ready form. They also parse that JSON back (the client SDK).
"""

from __future__ import annotations

from dataclasses import fields
from datetime import datetime
from enum import Enum
from typing import Annotated, Any, ClassVar

from pydantic import (
    AliasChoices, BaseModel, BeforeValidator, ConfigDict, Field, ValidationInfo, create_model, field_validator,
    model_validator,
)

from engram_core.core.model import DreamProposal, ScoreBreakdown, Scalar, action_id

JsonValue = str | int | float | bool | None | list["JsonValue"] | dict[str, "JsonValue"]


def iso(moment: object) -> object:
    """A datetime in ISO 8601 with its offset (``+00:00``); text as it came."""
    return moment.isoformat() if isinstance(moment, datetime) else moment


def _value(member: object) -> object:
    return member.value if isinstance(member, Enum) else member


def _pairs(detail: object) -> object:
    return dict(detail) if isinstance(detail, tuple) else detail


Time = Annotated[str, BeforeValidator(iso)]
Name = Annotated[str, BeforeValidator(_value)]  # an enum member, by its value
Detail = Annotated[dict[str, Scalar], BeforeValidator(_pairs)]  # the domain keeps (key, value) pairs


class View(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    @classmethod
    def view(cls, value: object) -> dict[str, Any]:
        """``value`` (a domain value, or anything with these fields) as JSON-ready data."""
        return cls.model_validate(value).model_dump(mode="json")


class EmbeddingOut(View):
    model: str = Field(validation_alias=AliasChoices("model", "model_id"))
    dim: int


# Each record's fields are declared once, in its ``...Fields`` model: the output model below derives from it
# and adds only what it computes, the export record (``usecases/exchange.py``) derives from it and adds only its
# stored-only columns and its checks. A field added here is in the HTTP body, the MCP answer and the export.
class MemoryFields(BaseModel):
    """A memory, wherever it is serialised (its embedding differs: a vector stored, its model and size shown)."""

    id: str
    kind: Name
    text: str
    importance: float
    stability_hours: float
    created_at: Time
    last_accessed_at: Time
    access_count: int
    status: Name
    status_changed_at: Time | None
    provenance: list[str]
    session_id: str | None
    subject: str | None
    belief_id: str | None
    superseded_by: str | None
    critical: bool


class BeliefFields(BaseModel):
    id: str
    subject: str
    predicate: str
    object: str
    statement: str
    cardinality: Name
    valid_from: Time
    valid_to: Time | None
    recorded_at: Time
    expired_at: Time | None
    superseded_by: str | None
    source_message_id: str | None
    memory_id: str | None


class MessageFields(BaseModel):
    id: str
    role: str
    session_id: str
    text: str
    speaker: str | None
    occurred_at: Time
    recorded_at: Time
    external_id: str | None


class EventFields(BaseModel):
    id: str
    at: Time
    kind: Name
    memory_id: str | None
    belief_id: str | None
    message_id: str | None
    detail: Detail


class MemoryOut(View, MemoryFields):
    embedding: EmbeddingOut | None

    ROUNDED: ClassVar[dict[str, int]] = {"importance": 4, "stability_hours": 3}  # digits shown

    @field_validator(*ROUNDED)
    @classmethod
    def _rounded(cls, number: float, info: ValidationInfo) -> float:
        return round(number, cls.ROUNDED[str(info.field_name)])


class BeliefOut(View, BeliefFields):
    current: bool


class MessageOut(View, MessageFields):
    pass


class EventOut(View, EventFields):
    pass


# The score's parts are declared once, by the domain value the pure scorer builds.
_SCORE_PARTS: dict[str, Any] = {f.name: (float, ...) for f in fields(ScoreBreakdown)}
ScoreOut = create_model("ScoreOut", __base__=View, **_SCORE_PARTS)


class RecallItemOut(View):
    memory_id: str
    kind: Name
    text: str
    tokens: int
    score: ScoreOut  # a model made from ScoreBreakdown's fields
    source_message_ids: list[str]
    created_at: Time


class RecallOut(View):
    query: str
    budget_tokens: int
    tokens_used: int
    as_of: Time | None
    items: list[RecallItemOut]
    block: str
    events: list[EventOut]


class WriteOut(View):
    message: MessageOut | None
    memories: list[MemoryOut]
    beliefs: list[BeliefOut]
    events: list[EventOut]


class DreamActionOut(View):
    id: str
    action: str
    memory_ids: list[str]
    importance: float | None
    text: str | None
    reason: str


class ProposalOut(View):
    id: str
    created_at: Time
    actions: list[DreamActionOut]
    rejected: list[str]

    @model_validator(mode="before")
    @classmethod
    def _numbered(cls, value: object) -> object:
        """A proposal's actions are named by their place in it (``a1``, ``a2``, ...)."""
        if not isinstance(value, DreamProposal):
            return value
        actions = [{"id": action_id(i), **{f.name: getattr(a, f.name) for f in fields(a)}}
                   for i, a in enumerate(value.actions)]
        return {"id": value.id, "created_at": value.created_at, "actions": actions, "rejected": value.rejected}
