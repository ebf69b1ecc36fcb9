"""An in-memory fake of the ``TenantStore`` port: dicts of domain values, no SQL.

It runs the use cases that need no SQL (writes, recall, forgetting, purge) so the engine is shown
to depend on the port alone. Transactions copy the state on entry and put it back on failure.
Lexical evidence is the number of query words a memory shares (the SQLite store uses BM25).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from engram_core.core.errors import StoreError
from engram_core.core.index_columns import IndexColumns, columns_from_rows
from engram_core.migrations import LATEST_SCHEMA
from engram_core.core.model import (
    AccessState, Belief, DreamAction, DreamProposal, Event, Memory, MemoryStatus, Message, ModelCall,
)
from engram_core.core.retention import RECALLABLE
from engram_core.core.words import content_words, stem

_WORD = re.compile(r"\w+", re.UNICODE)


def _words(text: str) -> set[str]:
    """The words of a text, stemmed as SQLite's porter tokenizer stems them, near enough ("running": "run")."""
    return {stem(w.lower()) for w in _WORD.findall(text)}


@dataclass
class _State:
    meta: dict[str, str] = field(default_factory=dict)
    messages: dict[str, Message] = field(default_factory=dict)
    memories: dict[str, Memory] = field(default_factory=dict)
    beliefs: dict[str, Belief] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    usage: list[tuple[str, datetime, str | None, ModelCall]] = field(default_factory=list)
    reviews: dict[str, tuple[str, str, datetime, datetime | None]] = field(default_factory=dict)
    proposals: dict[str, tuple[DreamProposal, datetime | None]] = field(default_factory=dict)


class MemoryPurgeRows:
    """``PurgeRows`` over the fake's values."""

    def __init__(self, state: _State) -> None:
        self.state = state

    def text_of(self, memory_id: str) -> str | None:
        memory = self.state.memories.get(memory_id)
        return memory.text if memory else None

    def exists(self, memory_id: str) -> bool:
        return memory_id in self.state.memories

    def kind_of(self, memory_id: str) -> str | None:
        memory = self.state.memories.get(memory_id)
        return memory.kind.value if memory else None

    def archived_into(self, memory_id: str) -> str | None:
        memory = self.state.memories.get(memory_id)
        return memory.superseded_by if memory and memory.status is MemoryStatus.ARCHIVED else None

    def archived_members(self, memory_id: str) -> list[str]:
        return [m.id for m in self.state.memories.values()
                if m.superseded_by == memory_id and m.status is MemoryStatus.ARCHIVED]

    def source_message_ids(self, memory_id: str) -> list[str]:
        memory = self.state.memories.get(memory_id)
        return list(memory.provenance) if memory else []

    def belief_texts(self, memory_id: str) -> list[tuple[str, str, str]]:
        return [(b.statement, b.predicate, b.object) for b in self.state.beliefs.values() if b.memory_id == memory_id]

    def redact_beliefs(self, memory_id: str, replacement: str, when: datetime) -> None:
        for b in [b for b in self.state.beliefs.values() if b.memory_id == memory_id]:
            self.state.beliefs[b.id] = replace(b, statement=replacement, object="", expired_at=b.expired_at or when)

    def mark_deleted(self, memory_id: str, when: datetime) -> None:
        memory = self.state.memories[memory_id]
        self.state.memories[memory_id] = replace(memory, status=MemoryStatus.DELETED, status_changed_at=when)

    def message_texts(self, skip: str) -> list[tuple[str, str]]:
        return [(m.id, m.text) for m in self.state.messages.values() if m.text != skip]

    def proposals(self) -> list[tuple[str, str]]:
        return [(pid, json.dumps([_action_json(a) for a in p.actions])) for pid, (p, _) in self.state.proposals.items()]

    def set_proposal_actions(self, proposal_id: str, actions: str) -> None:
        proposal, applied = self.state.proposals[proposal_id]
        parsed = tuple(DreamAction(d["action"], tuple(d["ids"]), d.get("importance"), d.get("text"),
                                   d.get("reason", "")) for d in json.loads(actions))
        self.state.proposals[proposal_id] = (replace(proposal, actions=parsed), applied)

    def meta_items(self) -> list[tuple[str, str]]:
        return list(self.state.meta.items())


def _action_json(a: DreamAction) -> dict[str, Any]:
    return {"action": a.action, "ids": list(a.memory_ids), "importance": a.importance, "text": a.text,
            "reason": a.reason}


class MemoryStore:
    """The ``TenantStore`` port in memory; one instance is one tenant."""

    def __init__(self) -> None:
        self._state = _State()
        self._saved: _State | None = None
        self._hooks: list[Callable[[], None]] = []

    # -- transactions ---------------------------------------------------------------
    @property
    def in_transaction(self) -> bool:
        return self._saved is not None

    @contextmanager
    def transaction(self) -> Iterator[None]:
        if self._saved is not None:
            yield
            return
        self._saved = copy.copy(self._state)
        for name in ("meta", "messages", "memories", "beliefs", "reviews", "proposals"):
            setattr(self._saved, name, dict(getattr(self._state, name)))
        self._saved.events, self._saved.usage = list(self._state.events), list(self._state.usage)
        try:
            yield
            for hook in self._hooks:
                hook()
        except BaseException:
            self._state = self._saved
            raise
        finally:
            self._saved = None

    def add_commit_hook(self, hook: Callable[[], None]) -> None:
        self._hooks.append(hook)

    def schema_version(self) -> int:
        return LATEST_SCHEMA

    def data_version(self) -> int:
        return 0  # no other connection ever commits

    def close(self) -> None:
        pass

    # -- meta -----------------------------------------------------------------------
    def get_meta(self, key: str, default: str | None = None) -> str | None:
        return self._state.meta.get(key, default)

    def set_meta(self, key: str, value: str) -> None:
        self._state.meta[key] = value

    # -- messages ---------------------------------------------------------------------
    def insert_message(self, message: Message) -> None:
        if message.id in self._state.messages:
            raise StoreError(f"message {message.id} exists")
        self._state.messages[message.id] = message

    def message_by_external_id(self, external_id: str) -> Message | None:
        return next((m for m in self._state.messages.values() if m.external_id == external_id), None)

    def get_message(self, message_id: str) -> Message | None:
        return self._state.messages.get(message_id)

    def messages(self, session_id: str | None = None) -> list[Message]:
        found = [m for m in self._state.messages.values() if session_id is None or m.session_id == session_id]
        return sorted(found, key=lambda m: m.occurred_at)

    def previous_message(self, role: str, speaker: str | None, before: datetime) -> Message | None:
        found = [m for m in self._state.messages.values()
                 if m.role == role and m.speaker == speaker and m.occurred_at < before]
        return max(found, key=lambda m: m.occurred_at, default=None)

    def redact_message(self, message_id: str, replacement: str) -> None:
        self._state.messages[message_id] = replace(self._state.messages[message_id], text=replacement)

    # -- memories ---------------------------------------------------------------------
    def insert_memory(self, memory: Memory) -> None:
        if memory.id in self._state.memories:
            raise StoreError(f"memory {memory.id} exists")
        self._state.memories[memory.id] = memory

    def update_memory(self, memory: Memory) -> None:
        self._state.memories[memory.id] = memory

    def get_memory(self, memory_id: str) -> Memory | None:
        return self._state.memories.get(memory_id)

    def memories_by_ids(self, ids: Sequence[str]) -> list[Memory]:
        wanted = set(ids)
        return [m for m in self._state.memories.values() if m.id in wanted]

    def record_access(self, states: Sequence[AccessState]) -> None:
        for s in states:
            memory = self._state.memories[s.memory_id]
            self._state.memories[s.memory_id] = replace(memory, stability_hours=s.stability_hours,
                                                        last_accessed_at=s.last_accessed_at,
                                                        access_count=s.access_count)

    def memories(self, statuses: Sequence[MemoryStatus] = (), kinds: Sequence[str] = (),
                 text: str | None = None, limit: int = -1, offset: int = 0,
                 created_by: datetime | None = None) -> list[Memory]:
        found = [m for m in self._state.memories.values()
                 if (not statuses or m.status in statuses) and (not kinds or m.kind.value in kinds)
                 and (not text or text.lower() in m.text.lower())
                 and (created_by is None or m.created_at <= created_by)]
        found.sort(key=lambda m: m.created_at)
        return found[offset:] if limit < 0 else found[offset:offset + limit]

    def memories_from_message(self, message_id: str) -> list[Memory]:
        return [m for m in self._state.memories.values() if message_id in m.provenance]

    def count_memories(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for m in self._state.memories.values():
            counts[m.status.value] = counts.get(m.status.value, 0) + 1
        return counts

    def lexical_search(self, query: str, limit: int, active_only: bool = True) -> list[tuple[str, float]]:
        wanted = {stem(w) for w in content_words(_WORD.findall(query.lower()))}
        statuses = {MemoryStatus.ACTIVE} if active_only else set(RECALLABLE)
        scored = [(m.id, float(len(wanted & _words(m.text)))) for m in self._state.memories.values()
                  if m.status in statuses]
        best = sorted((s for s in scored if s[1] > 0), key=lambda s: -s[1])
        return best if limit < 0 else best[:limit]

    def active_with_beliefs(self) -> list[tuple[Memory, Belief | None]]:
        current = {b.id: b for b in self._state.beliefs.values() if b.is_current()}
        return [(m, current.get(m.belief_id) if m.belief_id else None)
                for m in self._state.memories.values() if m.status in RECALLABLE]

    def recall_columns(self, dim: int, room: Callable[[int], int]) -> IndexColumns:
        return columns_from_rows(dim, self.active_with_beliefs(), room)

    def recallable_entries(self, ids: Sequence[str]) -> list[tuple[Memory, Belief | None]]:
        current = {b.id: b for b in self._state.beliefs.values() if b.is_current()}
        found = [m for i in ids if (m := self._state.memories.get(i)) is not None]
        return [(m, current.get(m.belief_id) if m.belief_id else None) for m in found]

    def delete_memory(self, memory_id: str) -> None:
        self._state.memories.pop(memory_id, None)

    # -- beliefs ----------------------------------------------------------------------
    def insert_belief(self, belief: Belief) -> None:
        self._state.beliefs[belief.id] = belief

    def update_belief(self, belief: Belief) -> None:
        self._state.beliefs[belief.id] = belief

    def current_beliefs(self, subject: str | None = None, predicate: str | None = None) -> list[Belief]:
        found = [b for b in self._state.beliefs.values() if b.valid_to is None and b.expired_at is None
                 and subject in (None, b.subject) and predicate in (None, b.predicate)]
        return sorted(found, key=lambda b: b.valid_from)

    def beliefs_valid_at(self, when: datetime) -> list[Belief]:
        found = [b for b in self._state.beliefs.values()
                 if b.valid_from <= when and (b.valid_to is None or b.valid_to > when) and b.object != ""]
        return sorted(found, key=lambda b: (b.subject, b.predicate, b.valid_from))

    def belief_history(self, subject: str, predicate: str | None = None) -> list[Belief]:
        found = [b for b in self._state.beliefs.values()
                 if b.subject == subject and predicate in (None, "", b.predicate)]
        return sorted(found, key=lambda b: (b.predicate, b.valid_from))

    def beliefs_from_message(self, message_id: str) -> list[Belief]:
        return [b for b in self._state.beliefs.values() if b.source_message_id == message_id]

    def beliefs_of_memory(self, memory_id: str) -> list[Belief]:
        return [b for b in self._state.beliefs.values() if b.memory_id == memory_id]

    def all_beliefs(self) -> list[Belief]:
        return list(self._state.beliefs.values())

    # -- events -----------------------------------------------------------------------
    def insert_events(self, events: Sequence[Event]) -> None:
        self._state.events.extend(events)

    def delete_events(self, kind: str, before: datetime) -> int:
        kept = [e for e in self._state.events if not (e.kind.value == kind and e.at < before)]
        gone, self._state.events = len(self._state.events) - len(kept), kept
        return gone

    def events(self, since: datetime | None = None, limit: int = -1) -> list[Event]:
        found = [e for e in self._state.events if since is None or e.at >= since]
        return found if limit < 0 else found[:limit]

    # -- model usage ------------------------------------------------------------------
    def insert_usage(self, calls: Sequence[tuple[str, ModelCall]], at: datetime, turn_id: str | None) -> None:
        self._state.usage += [(cid, at, turn_id, call) for cid, call in calls]

    def usage_by_purpose(self) -> list[dict[str, Any]]:
        groups: dict[tuple[str, str], list[ModelCall]] = {}
        for _, _, _, c in self._state.usage:
            groups.setdefault((c.purpose.value, c.model), []).append(c)
        return [{"purpose": p, "model": m, "calls": len(cs), "prompt_tokens": sum(c.prompt_tokens for c in cs),
                 "completion_tokens": sum(c.completion_tokens for c in cs),
                 "reasoning_tokens": sum(c.reasoning_tokens for c in cs), "cost_usd": sum(c.cost_usd for c in cs),
                 "latency_ms": sum(c.latency_ms for c in cs) / len(cs),
                 "not_ok": sum(c.outcome.value != "ok" for c in cs)} for (p, m), cs in sorted(groups.items())]

    def usage_by_turn(self) -> list[dict[str, Any]]:
        turns: dict[str, list[ModelCall]] = {}
        for _, _, turn, c in self._state.usage:
            if turn is not None:
                turns.setdefault(turn, []).append(c)
        return [{"turn_id": t, "calls": len(cs), "cost_usd": sum(c.cost_usd for c in cs),
                 "replies": sum(c.purpose.value == "reply" for c in cs)} for t, cs in turns.items()]

    # -- stale reviews ----------------------------------------------------------------
    def flag_possibly_stale(self, memory_id: str, belief_id: str, reason: str, at: datetime) -> None:
        self._state.reviews.setdefault(memory_id, (belief_id, reason, at, None))

    def possibly_stale(self) -> dict[str, str]:
        return {mid: r[1] for mid, r in self._state.reviews.items() if r[3] is None}

    def resolve_possibly_stale(self, memory_ids: Sequence[str], at: datetime) -> None:
        for mid in memory_ids:
            review = self._state.reviews.get(mid)
            if review is not None and review[3] is None:
                self._state.reviews[mid] = (*review[:3], at)

    # -- dream proposals --------------------------------------------------------------
    def insert_proposal(self, proposal: DreamProposal) -> None:
        self._state.proposals[proposal.id] = (proposal, None)

    def get_proposal(self, proposal_id: str) -> tuple[DreamProposal, bool] | None:
        found = self._state.proposals.get(proposal_id)
        return (found[0], found[1] is not None) if found else None

    def mark_proposal_applied(self, proposal_id: str, when: datetime) -> None:
        self._state.proposals[proposal_id] = (self._state.proposals[proposal_id][0], when)

    # -- maintenance ------------------------------------------------------------------
    @property
    def purging(self) -> MemoryPurgeRows:
        return MemoryPurgeRows(self._state)

    def scrub_deleted(self) -> None:
        pass  # nothing lingers in free pages or a log here

    # -- export / import ----------------------------------------------------------------
    def export_rows(self, table: str) -> list[dict[str, Any]]:
        raise StoreError("the in-memory store keeps no rows to export; export from a SQLite store")

    def row_exists(self, table: str, row_id: str, key: str = "id") -> bool:
        return False

    def import_row(self, table: str, record: Mapping[str, Any]) -> None:
        raise StoreError("the in-memory store imports no rows; import into a SQLite store")
