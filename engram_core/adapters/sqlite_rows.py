"""Row <-> domain value mapping for the SQLite store."""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache, wraps
from typing import TypeVar

import numpy as np

from engram_core.core.errors import StoreError, UnreadableRecordError
from engram_core.core.model import (
    Belief, Cardinality, DreamAction, DreamProposal, Embedding, Event, EventKind,
    Memory, MemoryKind, MemoryStatus, Message,
)
from engram_core.core.timeutil import from_storage, maybe_from_storage, to_storage

T = TypeVar("T")
log = logging.getLogger("engram.store")
_DECODE_ERRORS = (ValueError, TypeError, KeyError, IndexError, StoreError)


def readable(table: str) -> Callable[[Callable[[sqlite3.Row], T]], Callable[[sqlite3.Row], T]]:
    """A row decoder that says which row it could not read (UnreadableRecordError) instead of failing anyhow."""
    def wrap(decode: Callable[[sqlite3.Row], T]) -> Callable[[sqlite3.Row], T]:
        @wraps(decode)
        def checked(row: sqlite3.Row) -> T:
            try:
                return decode(row)
            except UnreadableRecordError:
                raise
            except _DECODE_ERRORS as exc:
                raise UnreadableRecordError(table, str(row["id"]), f"{type(exc).__name__}: {str(exc)[:160]}") from exc
        return checked
    return wrap


@lru_cache(maxsize=1024)  # once per row and reason, not on every read
def _warn_skipped(table: str, row_id: str, reason: str) -> None:
    log.warning("skipped an unreadable row: %s %s (%s); forget or purge it, see `engram doctor`", table, row_id,
                reason)


def each(found: Iterable[sqlite3.Row], decode: Callable[[sqlite3.Row], T]) -> list[T]:
    """Every row that can be read: one that cannot is skipped (and logged), never fatal to the whole read."""
    decoded = []
    for row in found:
        try:
            decoded.append(decode(row))
        except UnreadableRecordError as exc:
            _warn_skipped(exc.table, exc.row_id, exc.reason)
    return decoded


def decoded_or_none(row: sqlite3.Row, decode: Callable[[sqlite3.Row], T]) -> T | None:
    """One row as ``each`` reads it: None (and logged) if it cannot be read."""
    try:
        return decode(row)
    except UnreadableRecordError as exc:
        _warn_skipped(exc.table, exc.row_id, exc.reason)
        return None


def insert(conn: sqlite3.Connection, table: str, params: dict) -> None:
    """``table`` and the column names are ours, never caller text."""
    marks = ", ".join(":" + k for k in params)
    conn.execute(f"INSERT INTO {table} ({', '.join(params)}) VALUES ({marks})", params)


def vector_to_blob(vector: np.ndarray) -> bytes:
    """int8 components with one float32 scale in front: dim + 4 bytes instead of 4 * dim.

    A quarter of the float32 size keeps snapshots small; the cosine error it
    adds is below what changes a ranking (docs/benchmarks.md has the measurement).
    """
    values = np.asarray(vector, dtype=np.float32)
    peak = float(np.max(np.abs(values))) if values.size else 0.0
    quantised = np.clip(np.rint(values * (127.0 / peak if peak > 0 else 1.0)), -127, 127).astype(np.int8)
    length = float(np.linalg.norm(quantised.astype(np.float32)))
    scale = float(np.linalg.norm(values)) / length if length > 0 else 1.0  # the vector keeps its length
    return np.float32(scale).tobytes() + quantised.tobytes()


def blob_to_vector(blob: bytes, dim: int) -> np.ndarray:
    """Reads both layouts: told apart by length (4 * dim: float32 from before; dim + 4: int8 + scale)."""
    if len(blob) == 4 * dim:
        return np.frombuffer(blob, dtype=np.float32)
    if len(blob) != dim + 4:
        raise StoreError(f"stored vector is {len(blob)} bytes, which fits neither layout of dimension {dim}")
    scale = np.frombuffer(blob[:4], dtype=np.float32)[0]
    return np.frombuffer(blob[4:], dtype=np.int8).astype(np.float32) * scale


def memory_params(m: Memory) -> dict:
    emb = m.embedding
    return {
        "id": m.id, "kind": m.kind.value, "text": m.text, "importance": m.importance,
        "stability_hours": m.stability_hours, "created_at": to_storage(m.created_at),
        "last_accessed_at": to_storage(m.last_accessed_at), "access_count": m.access_count,
        "status": m.status.value,
        "status_changed_at": to_storage(m.status_changed_at) if m.status_changed_at else None,
        "provenance": json.dumps(list(m.provenance)), "session_id": m.session_id,
        "subject": m.subject, "belief_id": m.belief_id, "superseded_by": m.superseded_by,
        "critical": int(m.critical),
        "embedding": vector_to_blob(emb.vector) if emb else None,
        "embed_model": emb.model_id if emb else None, "embed_dim": emb.dim if emb else None,
    }


@readable("memories")
def memory_from_row(row: sqlite3.Row) -> Memory:
    blob = row["embedding"]
    embedding = Embedding(blob_to_vector(blob, row["embed_dim"]), row["embed_model"]) if blob is not None else None
    return Memory(
        id=row["id"], kind=MemoryKind(row["kind"]), text=row["text"], importance=row["importance"],
        stability_hours=row["stability_hours"], created_at=from_storage(row["created_at"]),
        last_accessed_at=from_storage(row["last_accessed_at"]), access_count=row["access_count"],
        status=MemoryStatus(row["status"]), status_changed_at=maybe_from_storage(row["status_changed_at"]),
        provenance=tuple(json.loads(row["provenance"])), session_id=row["session_id"],
        subject=row["subject"], belief_id=row["belief_id"], superseded_by=row["superseded_by"],
        critical=bool(row["critical"]), embedding=embedding,
    )


def message_params(m: Message) -> dict:
    return {
        "id": m.id, "role": m.role, "session_id": m.session_id, "text": m.text,
        "occurred_at": to_storage(m.occurred_at), "recorded_at": to_storage(m.recorded_at),
        "external_id": m.external_id, "speaker": m.speaker,
    }


@readable("messages")
def message_from_row(row: sqlite3.Row) -> Message:
    return Message(
        id=row["id"], role=row["role"], session_id=row["session_id"], text=row["text"],
        occurred_at=from_storage(row["occurred_at"]), recorded_at=from_storage(row["recorded_at"]),
        external_id=row["external_id"], speaker=row["speaker"],
    )


def belief_params(b: Belief) -> dict:
    return {
        "id": b.id, "subject": b.subject, "predicate": b.predicate, "object": b.object,
        "statement": b.statement, "cardinality": b.cardinality.value,
        "valid_from": to_storage(b.valid_from), "valid_to": to_storage(b.valid_to) if b.valid_to else None,
        "recorded_at": to_storage(b.recorded_at),
        "expired_at": to_storage(b.expired_at) if b.expired_at else None,
        "superseded_by": b.superseded_by, "source_message_id": b.source_message_id, "memory_id": b.memory_id,
    }


@readable("beliefs")
def belief_from_row(row: sqlite3.Row) -> Belief:
    return Belief(
        id=row["id"], subject=row["subject"], predicate=row["predicate"], object=row["object"],
        statement=row["statement"], cardinality=Cardinality(row["cardinality"]),
        valid_from=from_storage(row["valid_from"]), valid_to=maybe_from_storage(row["valid_to"]),
        recorded_at=from_storage(row["recorded_at"]), expired_at=maybe_from_storage(row["expired_at"]),
        superseded_by=row["superseded_by"], source_message_id=row["source_message_id"], memory_id=row["memory_id"],
    )


def event_params(e: Event, at: str | None = None) -> dict:
    return {
        "id": e.id, "at": to_storage(e.at) if at is None else at, "kind": e.kind.value, "memory_id": e.memory_id,
        "belief_id": e.belief_id, "message_id": e.message_id, "detail": json.dumps(dict(e.detail)),
    }


def events_params(events: Sequence[Event]) -> list[dict]:
    """``event_params`` of each, each distinct time written once: a recall's events share one."""
    stamps = {moment: to_storage(moment) for moment in {e.at for e in events}}  # equal instants: equal text
    return [event_params(e, stamps[e.at]) for e in events]


@readable("events")
def event_from_row(row: sqlite3.Row) -> Event:
    detail = tuple(sorted(json.loads(row["detail"]).items()))
    return Event(
        id=row["id"], at=from_storage(row["at"]), kind=EventKind(row["kind"]), memory_id=row["memory_id"],
        belief_id=row["belief_id"], message_id=row["message_id"], detail=detail,
    )


def dream_action_to_json(a: DreamAction) -> dict:
    return {"action": a.action, "ids": list(a.memory_ids), "importance": a.importance, "text": a.text,
            "reason": a.reason}


@readable("dream_proposals")
def proposal_from_row(row: sqlite3.Row) -> DreamProposal:
    actions = tuple(
        DreamAction(d["action"], tuple(d["ids"]), d.get("importance"), d.get("text"), d.get("reason", ""))
        for d in json.loads(row["actions"])
    )
    return DreamProposal(row["id"], from_storage(row["created_at"]), actions, tuple(json.loads(row["rejected"])))


_DECODERS = (("memories", memory_from_row), ("messages", message_from_row), ("beliefs", belief_from_row),
             ("events", event_from_row), ("dream_proposals", proposal_from_row))


def unreadable_rows(conn: sqlite3.Connection) -> list[dict[str, str]]:
    """Every row of the tenant that cannot be read back, with why: what ``engram doctor`` reports."""
    found = []
    for table, decode in _DECODERS:
        for row in conn.execute(f"SELECT * FROM {table}"):  # table names are ours
            try:
                decode(row)
            except UnreadableRecordError as exc:
                found.append({"table": table, "id": exc.row_id, "reason": exc.reason})
    return found
