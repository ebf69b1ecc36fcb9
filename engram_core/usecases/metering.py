"""Usage and cost report over the stored model calls: per purpose and model, and per chat turn."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engram_core.core.model import CallPurpose
from engram_core.core.ports import UsageStore

BOOKKEEPING = frozenset(p.value for p in CallPurpose) - {CallPurpose.REPLY.value, CallPurpose.EMBED.value}


def _purpose_row(row: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "purpose": row["purpose"], "model": row["model"], "calls": row["calls"],
        "prompt_tokens": row["prompt_tokens"], "completion_tokens": row["completion_tokens"],
        "reasoning_tokens": row["reasoning_tokens"], "cost_usd": round(row["cost_usd"], 6),
        "latency_ms_avg": round(row["latency_ms"], 1), "not_ok": row["not_ok"],
    }


def _ratio(part: float, whole: float) -> float | None:
    return round(part / whole, 6) if whole else None


def _turns(store: UsageStore) -> dict[str, object]:
    turns = store.usage_by_turn()
    last = turns[-1] if turns else None
    return {
        "turns": len(turns),
        "cost_per_turn_usd": _ratio(sum(t["cost_usd"] for t in turns), len(turns)),
        "calls_per_turn": _ratio(sum(t["calls"] for t in turns), len(turns)),
        "last_turn": {"id": last["turn_id"], "calls": last["calls"], "cost_usd": round(last["cost_usd"], 6)}
        if last else None,
    }


def usage_report(store: UsageStore) -> dict[str, object]:
    """Everything ``engram stats`` says about model calls; costs are estimates from the price table."""
    rows = [_purpose_row(r) for r in store.usage_by_purpose()]
    replies = sum(r["calls"] for r in rows if r["purpose"] == CallPurpose.REPLY.value)
    bookkeeping = sum(r["calls"] for r in rows if r["purpose"] in BOOKKEEPING)
    embeddings = sum(r["calls"] for r in rows if r["purpose"] == CallPurpose.EMBED.value)
    return {
        "calls": sum(r["calls"] for r in rows),
        "cost_usd": round(sum(r["cost_usd"] for r in rows), 6),
        "bookkeeping_calls_per_reply": _ratio(bookkeeping, replies),
        "embedding_calls_per_reply": _ratio(embeddings, replies),
        **_turns(store),
        "by_purpose": rows,
    }
