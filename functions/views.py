"""Response shapes the HTTP API adds to the shared views (``engram_core.views``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engram_core.views import belief_view, event_view, memory_view, message_view, recall_view

if TYPE_CHECKING:
    from engram_core.engine import ChatTurn, Engine


def chat_view(turn: ChatTurn, session_id: str, reply_tokens: int, llm: str) -> dict:
    written = (turn.write, turn.reply_message)
    return {
        "reply": turn.reply,
        "session_id": session_id,
        "recall": recall_view(turn.recall),
        "stored": [memory_view(m) for w in written for m in w.memories],
        "events": [event_view(e) for e in turn.recall.events]
                  + [event_view(e) for w in written for e in w.events],
        "usage": {"recalled_tokens": turn.recall.tokens_used, "budget_tokens": turn.recall.budget_tokens,
                  "reply_tokens": reply_tokens, "llm": llm},
    }


def memory_detail_view(engine: Engine, memory_id: str) -> dict:
    """A memory with the messages it came from and the full history of the beliefs it states."""
    detail = engine.memory_detail(memory_id)
    return {"memory": memory_view(detail.memory), "provenance": [message_view(m) for m in detail.provenance],
            "beliefs": [belief_view(b) for b in detail.beliefs]}


def page_view(memories: list, limit: int, offset: int) -> dict:
    return {"items": [memory_view(m) for m in memories], "limit": limit, "offset": offset,
            "next_offset": offset + limit if len(memories) == limit else None}
