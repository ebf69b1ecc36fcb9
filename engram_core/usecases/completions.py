"""OpenAI-compatible chat completions with memory: one turn of a conversation an agent sends whole.

The newest user message is the cue: recall packs memories for it under the budget,
the block goes into a system message (the same escaped, delimited frame the reply
prompt uses), the conversation goes to the configured model, and the turn is written
through the normal write path. Everything else in the request (tools, tool calls,
sampling options) is the caller's and passes through untouched.

A request that continues a tool loop (it ends with a tool result, not a user
message) recalls for the newest user message again but does not store it twice:
only a request that ends with a user message writes that message.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from engram_core.core import inputs
from engram_core.core.conversation import Json, PreparedTurn, ends_with_user, memory_system_text, newest_user_text
from engram_core.core.model import ModelCall

if TYPE_CHECKING:
    from engram_core.usecases.engine import Engine


def prepare_turn(engine: Engine, messages: Sequence[Json], session_id: str, budget_tokens: int) -> PreparedTurn:
    """Decay sweep, recall for the newest user message (reinforced: the block goes to a model), and the
    message written when the request ends with it. Texts over the store's limit are cut to it."""
    limit = engine.config.max_text_bytes
    query = inputs.clip_text(newest_user_text(messages), limit)
    engine.sweep()
    block, memory_tokens, recalled = "", 0, 0
    if query:
        found = engine.recall(query, budget_tokens)
        block, memory_tokens, recalled = found.render(), found.tokens_used, len(found.items)
    message_id = None
    if query and ends_with_user(messages):
        written = engine.observe(query, session_id=session_id)
        message_id = written.message.id if written.message else None
    added = engine.count_tokens(memory_system_text(block))
    return PreparedTurn(session_id, budget_tokens, query, block, memory_tokens, added, recalled, message_id)


def finish_turn(engine: Engine, turn: PreparedTurn, answer: str, calls: Sequence[ModelCall]) -> None:
    """The model's answer joins the session's history; the calls it took are metered in the tenant's store."""
    engine.record_calls(calls)
    if answer.strip():
        engine.observe(inputs.clip_text(answer.strip(), engine.config.max_text_bytes), role="assistant",
                       session_id=turn.session_id)
