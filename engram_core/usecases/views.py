"""JSON-ready views of domain values, shared by the CLI, the HTTP handlers and the MCP server."""

from __future__ import annotations

from datetime import datetime

from engram_core.core.model import (
    Belief, DreamProposal, Event, Memory, Message, RecallItem, RecallResult, ScoreBreakdown, WriteResult,
)
from engram_core.usecases.maintenance import action_id

JsonValue = str | int | float | bool | None | list["JsonValue"] | dict[str, "JsonValue"]


def iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment else None


def memory_view(m: Memory) -> dict[str, JsonValue]:
    return {
        "id": m.id, "kind": m.kind.value, "text": m.text, "importance": round(m.importance, 4),
        "stability_hours": round(m.stability_hours, 3), "created_at": iso(m.created_at),
        "last_accessed_at": iso(m.last_accessed_at), "access_count": m.access_count, "status": m.status.value,
        "status_changed_at": iso(m.status_changed_at), "provenance": list(m.provenance),
        "session_id": m.session_id, "subject": m.subject, "belief_id": m.belief_id,
        "superseded_by": m.superseded_by, "critical": m.critical,
        "embedding": {"model": m.embedding.model_id, "dim": m.embedding.dim} if m.embedding else None,
    }


def belief_view(b: Belief) -> dict[str, JsonValue]:
    return {
        "id": b.id, "subject": b.subject, "predicate": b.predicate, "object": b.object, "statement": b.statement,
        "cardinality": b.cardinality.value, "valid_from": iso(b.valid_from), "valid_to": iso(b.valid_to),
        "recorded_at": iso(b.recorded_at), "expired_at": iso(b.expired_at), "superseded_by": b.superseded_by,
        "source_message_id": b.source_message_id, "memory_id": b.memory_id, "current": b.is_current(),
    }


def message_view(m: Message) -> dict[str, JsonValue]:
    return {"id": m.id, "role": m.role, "session_id": m.session_id, "text": m.text, "speaker": m.speaker,
            "occurred_at": iso(m.occurred_at), "recorded_at": iso(m.recorded_at), "external_id": m.external_id}


def event_view(e: Event) -> dict[str, JsonValue]:
    return {"id": e.id, "at": iso(e.at), "kind": e.kind.value, "memory_id": e.memory_id,
            "belief_id": e.belief_id, "message_id": e.message_id, "detail": e.detail_dict()}


def score_view(s: ScoreBreakdown) -> dict[str, float]:
    return {k: getattr(s, k) for k in ("similarity", "lexical", "importance", "recency", "retention",
                                       "type_prior", "relevance", "score")}


def recall_item_view(i: RecallItem) -> dict[str, JsonValue]:
    return {"memory_id": i.memory_id, "kind": i.kind.value, "text": i.text, "tokens": i.tokens,
            "score": score_view(i.score), "source_message_ids": list(i.source_message_ids),
            "created_at": iso(i.created_at)}


def recall_view(r: RecallResult) -> dict[str, JsonValue]:
    return {"query": r.query, "budget_tokens": r.budget_tokens, "tokens_used": r.tokens_used,
            "as_of": iso(r.as_of), "items": [recall_item_view(i) for i in r.items], "block": r.block,
            "events": [event_view(e) for e in r.events]}


def write_view(w: WriteResult) -> dict[str, JsonValue]:
    return {"message": message_view(w.message) if w.message else None,
            "memories": [memory_view(m) for m in w.memories], "beliefs": [belief_view(b) for b in w.beliefs],
            "events": [event_view(e) for e in w.events]}


def proposal_view(p: DreamProposal) -> dict[str, JsonValue]:
    return {"id": p.id, "created_at": iso(p.created_at), "rejected": list(p.rejected),
            "actions": [{"id": action_id(i), "action": a.action, "memory_ids": list(a.memory_ids),
                         "importance": a.importance, "text": a.text, "reason": a.reason}
                        for i, a in enumerate(p.actions)]}
