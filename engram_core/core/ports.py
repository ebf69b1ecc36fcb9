"""Ports: the only ways the engine touches the world.

Adapters live in ``engram_core.adapters``; tests pass fakes that satisfy these
protocols (a fixed clock, a scripted LLM, a hashing embedder).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

import numpy as np

from engram_core.core.index_columns import IndexColumns
from engram_core.core.model import (
    AccessState, Belief, DreamProposal, Event, FactDraft, Memory, MemoryStatus, Message, ModelCall,
)


@runtime_checkable
class Clock(Protocol):
    def now(self) -> datetime:
        """Current time, timezone-aware UTC (before any stored offset)."""
        ...


@runtime_checkable
class Embedder(Protocol):
    model_id: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return an (n, dim) float32 matrix of L2-normalised rows."""
        ...


@runtime_checkable
class TokenCounter(Protocol):
    name: str

    def count(self, text: str) -> int:
        """Tokens this text costs a model; may over-count, never under-count."""
        ...


@runtime_checkable
class LLM(Protocol):
    """Bookkeeping and reply model.

    Bookkeeping methods return the model's raw text; the pure core parses it
    defensively (``engram_core.core.verdicts``), so an adapter never decides what a
    malformed answer means.
    """

    model_id: str

    def assess(self, text: str, speaker: str, occurred_at: datetime, earlier: str = "") -> str:
        """JSON: {"importance": 0..1, "facts": [{subject, predicate, object,
        statement, kind, importance, cardinality, negated, critical}]}.
        ``earlier``, the speaker's previous message, only tells whom "he" or "she"
        means; no fact is read from it."""
        ...

    def adjudicate(self, new_fact: FactDraft, candidates: Sequence[Belief]) -> str:
        """JSON: {"verdicts": [{"id": candidate belief id, "verdict":
        "supersede" | "coexist" | "discard"}]}: what the new fact does to each
        current belief (supersede: the new fact replaces it; coexist: both
        hold; discard: the new fact adds nothing and is dropped)."""
        ...

    def summarise(self, texts: Sequence[str]) -> str:
        """JSON: {"gist": "one short summary"}."""
        ...

    def propose_dream(self, memories: Sequence[tuple[str, str, float]]) -> str:
        """JSON: {"actions": [{"action": "merge" | "forget" | "reimportance",
        "ids": [...], "importance"?: float, "text"?: str, "reason"?: str}]}.
        Memories are (id, text, importance)."""
        ...

    def reply(self, message: str, memory_block: str) -> str:
        """The assistant's answer for a chat turn."""
        ...


@runtime_checkable
class UsageSource(Protocol):
    """Metered provider calls waiting to be stored with the use case that caused them."""

    def drain_usage(self) -> list[ModelCall]:
        """Every call recorded since the last drain, oldest first; the source forgets them."""
        ...


# -- the tenant store ---------------------------------------------------------------------------
# One port per group of records the use cases need; ``TenantStore`` is all of them together. The
# SQLite adapter (``adapters.sqlite_store.SqliteStore``) implements it; ``tests/memory_store.py``
# is an in-memory fake of it.

class MetaStore(Protocol):
    """Small named values kept with the tenant (clock offset, embedder, the edge's own marks)."""

    def get_meta(self, key: str, default: str | None = None) -> str | None: ...

    def set_meta(self, key: str, value: str) -> None: ...

    def transaction(self) -> AbstractContextManager[None]:
        """Everything written inside commits together or not at all; nested ones join the outer one."""
        ...


class TransactionStore(Protocol):
    @property
    def in_transaction(self) -> bool:
        """A write transaction is open (no model may be called while it is)."""
        ...

    def transaction(self) -> AbstractContextManager[None]: ...

    def add_commit_hook(self, hook: Callable[[], None]) -> None:
        """``hook`` runs inside every outermost transaction, just before it commits, and commits with it."""
        ...

    def schema_version(self) -> int: ...

    def data_version(self) -> int:
        """Changes when another connection commits: the recall index is rebuilt then."""
        ...

    def close(self) -> None: ...


class MessageStore(Protocol):
    def insert_message(self, message: Message) -> None: ...

    def message_by_external_id(self, external_id: str) -> Message | None: ...

    def get_message(self, message_id: str) -> Message | None: ...

    def messages(self, session_id: str | None = None) -> list[Message]:
        """In the order they occurred."""
        ...

    def previous_message(self, role: str, speaker: str | None, before: datetime) -> Message | None:
        """The newest message of this role and speaker that occurred before ``before``."""
        ...

    def redact_message(self, message_id: str, replacement: str) -> None: ...


class MemoryStore(Protocol):
    def insert_memory(self, memory: Memory) -> None: ...

    def update_memory(self, memory: Memory) -> None: ...

    def get_memory(self, memory_id: str) -> Memory | None: ...

    def memories_by_ids(self, ids: Sequence[str]) -> list[Memory]: ...

    def record_access(self, states: Sequence[AccessState]) -> None:
        """Writes the access fields alone."""
        ...

    def memories(self, statuses: Sequence[MemoryStatus] = (), kinds: Sequence[str] = (),
                 text: str | None = None, limit: int = -1, offset: int = 0,
                 created_by: datetime | None = None) -> list[Memory]:
        """In creation order; ``text`` matches a substring, case-insensitively for ASCII."""
        ...

    def memories_from_message(self, message_id: str) -> list[Memory]: ...

    def count_memories(self) -> dict[str, int]:
        """Status value -> how many."""
        ...

    def lexical_search(self, query: str, limit: int, active_only: bool = True) -> list[tuple[str, float]]:
        """(memory id, lexical evidence, higher is better), best first; stop words alone match nothing."""
        ...

    def active_with_beliefs(self) -> list[tuple[Memory, Belief | None]]:
        """Every recallable memory (active, decayed or archived) with the current belief it renders."""
        ...

    def recall_columns(self, dim: int, room: Callable[[int], int]) -> IndexColumns:
        """What ``columns_from_rows(dim, active_with_beliefs(), room)`` gives, without decoding every row."""
        ...

    def recallable_entries(self, ids: Sequence[str]) -> list[tuple[Memory, Belief | None]]:
        """These memories (any status; absent ones left out) with the current belief each renders."""
        ...

    def delete_memory(self, memory_id: str) -> None: ...


class BeliefStore(Protocol):
    def insert_belief(self, belief: Belief) -> None: ...

    def update_belief(self, belief: Belief) -> None: ...

    def current_beliefs(self, subject: str | None = None, predicate: str | None = None) -> list[Belief]: ...

    def beliefs_valid_at(self, when: datetime) -> list[Belief]:
        """World time: what was true at ``when``, as the engine knows it now."""
        ...

    def belief_history(self, subject: str, predicate: str | None = None) -> list[Belief]: ...

    def beliefs_from_message(self, message_id: str) -> list[Belief]: ...

    def beliefs_of_memory(self, memory_id: str) -> list[Belief]: ...

    def all_beliefs(self) -> list[Belief]: ...


class EventStore(Protocol):
    def insert_events(self, events: Sequence[Event]) -> None: ...

    def delete_events(self, kind: str, before: datetime) -> int:
        """Delete the events of one kind older than ``before``; how many went."""
        ...

    def events(self, since: datetime | None = None, limit: int = -1) -> list[Event]:
        """In the order they were written."""
        ...


class UsageStore(Protocol):
    def insert_usage(self, calls: Sequence[tuple[str, ModelCall]], at: datetime, turn_id: str | None) -> None: ...

    def usage_by_purpose(self) -> list[dict[str, Any]]:
        """Per (purpose, model): calls, prompt_tokens, completion_tokens, reasoning_tokens, cost_usd,
        latency_ms (the mean) and not_ok."""
        ...

    def usage_by_turn(self) -> list[dict[str, Any]]:
        """Per chat turn, oldest first: turn_id, calls, cost_usd and replies."""
        ...


class ReviewStore(Protocol):
    """Memories demoted as possibly stale until the person confirms or forgets them."""

    def flag_possibly_stale(self, memory_id: str, belief_id: str, reason: str, at: datetime) -> None: ...

    def possibly_stale(self) -> dict[str, str]: ...

    def resolve_possibly_stale(self, memory_ids: Sequence[str], at: datetime) -> None: ...


class ProposalStore(Protocol):
    def insert_proposal(self, proposal: DreamProposal) -> None: ...

    def get_proposal(self, proposal_id: str) -> tuple[DreamProposal, bool] | None:
        """The proposal and whether it was applied already."""
        ...

    def mark_proposal_applied(self, proposal_id: str, when: datetime) -> None: ...


class PurgeRows(Protocol):
    """Row-level access for a purge, by id: it must reach rows that no longer decode, too."""

    def text_of(self, memory_id: str) -> str | None: ...

    def exists(self, memory_id: str) -> bool: ...

    def kind_of(self, memory_id: str) -> str | None: ...

    def archived_into(self, memory_id: str) -> str | None: ...

    def archived_members(self, memory_id: str) -> list[str]: ...

    def source_message_ids(self, memory_id: str) -> list[str]: ...

    def belief_texts(self, memory_id: str) -> list[tuple[str, str, str]]:
        """(statement, predicate, object) of the memory's beliefs."""
        ...

    def redact_beliefs(self, memory_id: str, replacement: str, when: datetime) -> None: ...

    def mark_deleted(self, memory_id: str, when: datetime) -> None: ...

    def message_texts(self, skip: str) -> list[tuple[str, str]]: ...

    def proposals(self) -> list[tuple[str, str]]:
        """(id, actions as stored JSON) of every dream proposal."""
        ...

    def set_proposal_actions(self, proposal_id: str, actions: str) -> None: ...

    def meta_items(self) -> list[tuple[str, str]]: ...


class MaintenanceStore(Protocol):
    @property
    def purging(self) -> PurgeRows: ...

    def scrub_deleted(self) -> None:
        """After a purge: no deleted text may linger in indexes or logs."""
        ...


class ExchangeStore(Protocol):
    """Whole-tenant export and import, record by record, in the export file's encoding."""

    def export_rows(self, table: str) -> list[dict[str, Any]]:
        """Every row of ``table`` (messages, memories, beliefs, events, dream_proposals, model_usage,
        stale_reviews) as JSON-ready values: vectors base64, lists and objects as JSON, flags as booleans."""
        ...

    def row_exists(self, table: str, row_id: str, key: str = "id") -> bool: ...

    def import_row(self, table: str, record: Mapping[str, Any]) -> None:
        """The inverse of ``export_rows`` for one row."""
        ...


class TenantStore(TransactionStore, MetaStore, MessageStore, MemoryStore, BeliefStore, EventStore, UsageStore,
                  ReviewStore, ProposalStore, MaintenanceStore, ExchangeStore, Protocol):
    """Everything the engine's use cases keep about one tenant."""


@runtime_checkable
class WorkingFile(Protocol):
    """What the snapshot layer asks of an open working copy, without reaching into its database."""

    def relax_durability(self) -> None:
        """Writes need not survive a crash: the sealed upload is the durable copy."""
        ...

    def hold_log(self) -> None:
        """Keep committed pages in the write-ahead log until ``checkpoint_log`` (a commit uploads just those)."""
        ...

    def checkpoint_log(self) -> int:
        """Fold the log into the file; the number of frames the log held."""
        ...

    def change_count(self) -> int:
        """Rows changed through this connection since it opened."""
        ...

    def last_event_seq(self) -> int: ...

    def purged_since(self, seq: int) -> bool:
        """Did anything after event ``seq`` purge a memory? Older generations must go then."""
        ...

    def file_bytes(self) -> int:
        """The database's size in pages times the page size."""
        ...
