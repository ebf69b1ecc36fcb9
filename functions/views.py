"""Response shapes the HTTP API adds to the per-record ones (``engram_core.core.views``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engram_core.core.model import Memory
from engram_core.core.schemas import ChatResponse, MemoryDetail, MemoryPage

if TYPE_CHECKING:
    from engram_core.usecases.engine import ChatTurn, Engine


def chat_view(turn: ChatTurn, session_id: str, reply_tokens: int, llm: str) -> dict[str, Any]:
    written = (turn.write, turn.reply_message)
    return ChatResponse.view({
        "reply": turn.reply,
        "session_id": session_id,
        "recall": turn.recall,
        "stored": [m for w in written for m in w.memories],
        "events": [*turn.recall.events, *(e for w in written for e in w.events)],
        "usage": {"recalled_tokens": turn.recall.tokens_used, "budget_tokens": turn.recall.budget_tokens,
                  "reply_tokens": reply_tokens, "llm": llm},
    })


def memory_detail_view(engine: Engine, memory_id: str) -> dict[str, Any]:
    """A memory with the messages it came from and the full history of the beliefs it states."""
    return MemoryDetail.view(engine.memory_detail(memory_id))


def page_view(memories: list[Memory], limit: int, offset: int) -> dict[str, Any]:
    return MemoryPage.view({"items": memories, "limit": limit, "offset": offset,
                            "next_offset": offset + limit if len(memories) == limit else None})
