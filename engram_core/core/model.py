"""Domain values: memories, messages, beliefs, events, recall results.

Everything here is a frozen dataclass or an enum. Times are timezone-aware UTC
datetimes. Nothing here does I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum

import numpy as np

Scalar = str | int | float | bool | None


class MemoryKind(str, Enum):
    PREFERENCE = "preference"
    FACT = "fact"
    SKILL = "skill"
    EPISODE = "episode"
    GIST = "gist"


class MemoryStatus(str, Enum):
    ACTIVE = "active"
    SUPERSEDED = "superseded"
    DECAYED = "decayed"
    ARCHIVED = "archived"
    DELETED = "deleted"


class Verdict(str, Enum):
    SUPERSEDE = "supersede"
    COEXIST = "coexist"
    DISCARD = "discard"
    UNDECIDED = "undecided"


class Cardinality(str, Enum):
    """Whether a subject holds one value of a predicate at a time, or many."""

    ONE = "one"
    MANY = "many"


class EventKind(str, Enum):
    OBSERVED = "observed"
    RECALLED = "recalled"
    STORED = "stored"
    NOT_STORED = "not_stored"
    SUPERSEDED = "superseded"
    COEXISTED = "coexisted"
    DISCARDED = "discarded"
    UNDECIDED = "undecided"
    DECAYED = "decayed"
    ARCHIVED = "archived"
    CONSOLIDATED = "consolidated"
    FORGOTTEN = "forgotten"
    PURGED = "purged"
    IMPORTED = "imported"
    CLOCK_ADVANCED = "clock_advanced"
    DREAM_PROPOSED = "dream_proposed"
    DREAM_APPLIED = "dream_applied"
    DREAM_REJECTED = "dream_rejected"
    POSSIBLY_STALE = "possibly_stale"  # depends on a superseded value: demoted, listed for review
    FALLBACK = "fallback"
    REPLY_FAILED = "reply_failed"
    REEMBEDDED = "reembedded"


class CallPurpose(str, Enum):
    """Why a model was called: bookkeeping purposes go to the cheap model, replies to the strong one."""

    REPLY = "reply"
    EXTRACT = "extract"
    ADJUDICATE = "adjudicate"
    SUMMARISE = "summarise"
    DREAM = "dream"
    EMBED = "embed"


class CallOutcome(str, Enum):
    OK = "ok"
    REPAIRED = "repaired"  # the first answer was not valid JSON; the one repair attempt was
    INVALID = "invalid"  # still not valid JSON after the repair attempt; the engine falls back
    FAILED = "failed"  # the provider gave no answer (after retries)


DURABLE_KINDS = (MemoryKind.PREFERENCE, MemoryKind.FACT, MemoryKind.SKILL)


@dataclass(frozen=True, eq=False)
class Embedding:
    vector: np.ndarray
    model_id: str

    @property
    def dim(self) -> int:
        return int(self.vector.shape[0])


@dataclass(frozen=True)
class ModelCall:
    """Usage of one metered provider call (its retries included), for cost accounting."""

    purpose: CallPurpose
    model: str
    prompt_tokens: int
    completion_tokens: int  # includes reasoning tokens, as providers bill them
    reasoning_tokens: int
    latency_ms: float
    attempts: int = 1
    outcome: CallOutcome = CallOutcome.OK
    cost_usd: float = 0.0


@dataclass(frozen=True)
class Memory:
    id: str
    kind: MemoryKind
    text: str
    importance: float
    stability_hours: float
    created_at: datetime
    last_accessed_at: datetime
    access_count: int = 0
    status: MemoryStatus = MemoryStatus.ACTIVE
    status_changed_at: datetime | None = None
    provenance: tuple[str, ...] = ()
    session_id: str | None = None
    subject: str | None = None
    belief_id: str | None = None
    superseded_by: str | None = None
    critical: bool = False
    embedding: Embedding | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class AccessState:
    """The part of a memory that reinforcement changes."""

    memory_id: str
    stability_hours: float
    last_accessed_at: datetime
    access_count: int


@dataclass(frozen=True)
class Message:
    id: str
    role: str
    session_id: str
    text: str
    occurred_at: datetime
    recorded_at: datetime
    external_id: str | None = None
    speaker: str | None = None


@dataclass(frozen=True)
class FactDraft:
    """A fact as extraction proposes it, before adjudication."""

    subject: str
    predicate: str
    object: str
    statement: str
    kind: MemoryKind = MemoryKind.FACT
    importance: float = 0.6
    cardinality: Cardinality = Cardinality.ONE
    negated: bool = False
    critical: bool = False
    revision: bool = False  # the message signals a change ("moved", "renamed", "actually ... now")
    tentative: bool = False  # the wording only suggests the fact ("I'm Sam"): it never replaces a held value
    replaces: str | None = None  # a correction ("Tuesday, not Monday"): the value it corrects
    # A correction that says only its new value ("nvm, July 27"): the words naming the slot it fills
    # ("our street" in "it's Windrush Way now"), or "" when it corrects the newest value of its shape.
    slot: str | None = None
    # Read from an older fact with a newer message's value (``core/carryover``): the older message's words stay,
    # flagged for review, and answer questions about the past.
    carried: bool = False


@dataclass(frozen=True)
class Assessment:
    """What the bookkeeping model says about one message."""

    importance: float
    facts: tuple[FactDraft, ...] = ()
    fallback: bool = False


@dataclass(frozen=True)
class Belief:
    id: str
    subject: str
    predicate: str
    object: str
    statement: str
    valid_from: datetime
    recorded_at: datetime
    valid_to: datetime | None = None
    expired_at: datetime | None = None
    superseded_by: str | None = None
    source_message_id: str | None = None
    memory_id: str | None = None
    cardinality: Cardinality = Cardinality.ONE

    def is_current(self) -> bool:
        return self.valid_to is None and self.expired_at is None

    @property
    def current(self) -> bool:
        return self.is_current()

    def valid_at(self, when: datetime) -> bool:
        started = self.valid_from <= when
        not_ended = self.valid_to is None or self.valid_to > when
        return started and not_ended


@dataclass(frozen=True)
class Event:
    id: str
    at: datetime
    kind: EventKind
    memory_id: str | None = None
    belief_id: str | None = None
    message_id: str | None = None
    detail: tuple[tuple[str, Scalar], ...] = ()

    def detail_dict(self) -> dict[str, Scalar]:
        return dict(self.detail)


@dataclass(frozen=True)
class ScoreBreakdown:
    similarity: float
    lexical: float
    importance: float
    recency: float
    retention: float
    type_prior: float
    relevance: float
    score: float


@dataclass(frozen=True)
class RecallItem:
    memory_id: str
    kind: MemoryKind
    text: str
    line: str
    tokens: int
    score: ScoreBreakdown
    source_message_ids: tuple[str, ...]
    created_at: datetime


@dataclass(frozen=True)
class RecallResult:
    query: str
    budget_tokens: int
    items: tuple[RecallItem, ...]
    tokens_used: int
    block: str
    as_of: datetime | None = None
    events: tuple[Event, ...] = ()

    def render(self) -> str:
        """The exact memory block given to a model."""
        return self.block


@dataclass(frozen=True)
class WriteResult:
    """What one observe/remember call did."""

    message: Message | None
    memories: tuple[Memory, ...]
    beliefs: tuple[Belief, ...]
    events: tuple[Event, ...]


@dataclass(frozen=True)
class MemoryDetail:
    """A memory with the messages it came from and the whole history of the beliefs it states."""

    memory: Memory
    provenance: tuple[Message, ...]
    beliefs: tuple[Belief, ...]


@dataclass(frozen=True)
class DreamAction:
    action: str  # "merge" | "forget" | "reimportance" | "confirm" (keep a possibly stale memory as it is)
    memory_ids: tuple[str, ...]
    importance: float | None = None
    text: str | None = None
    reason: str = ""


def action_id(index: int) -> str:
    """How a proposal names its action at ``index``: ``a1``, ``a2``, ..."""
    return f"a{index + 1}"


@dataclass(frozen=True)
class DreamProposal:
    id: str
    created_at: datetime
    actions: tuple[DreamAction, ...]
    rejected: tuple[str, ...] = ()
