"""The reply model of an LLM that cannot take a whole conversation (the offline one), in OpenAI's shapes."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator

from engram_core.core.conversation import ALIAS, ConversationModel, Json, PreparedTurn, prompt_tokens, wants_usage
from engram_core.core.model import ModelCall
from engram_core.core.ports import LLM, TokenCounter


def completion_id() -> str:
    return f"chatcmpl-{uuid.uuid4().hex[:24]}"


class ReplyModel:
    """Any LLM port's reply (the offline one without a key): it answers the newest user message from the
    memory block; it calls no tools. Its answer comes in OpenAI's shapes like a forwarded one."""

    def __init__(self, llm: LLM, tokens: TokenCounter) -> None:
        self._llm = llm
        self._tokens = tokens
        self.name = llm.model_id

    def _answer(self, turn: PreparedTurn) -> str:
        return self._llm.reply(turn.query or "(no user message)", turn.block)

    def _usage(self, payload: Json, answer: str) -> Json:
        prompt, completion = prompt_tokens(self._tokens, _messages(payload)), self._tokens.count(answer)
        return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}

    def complete(self, turn: PreparedTurn, payload: Json) -> Json:
        answer = self._answer(turn)
        return {"id": completion_id(), "object": "chat.completion", "created": int(time.time()), "model": self.name,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": answer},
                             "finish_reason": "stop", "logprobs": None}],
                "usage": self._usage(payload, answer)}

    def stream(self, turn: PreparedTurn, payload: Json) -> Iterator[Json]:
        answer = self._answer(turn)
        return iter(self._chunks(turn, answer, payload))

    def _chunks(self, turn: PreparedTurn, answer: str, payload: Json) -> list[Json]:
        base = {"id": completion_id(), "object": "chat.completion.chunk", "created": int(time.time()),
                "model": self.name}
        deltas = [{"role": "assistant", "content": ""}] + [{"content": answer[i:i + 24]}
                                                         for i in range(0, len(answer), 24)]
        chunks = [{**base, "choices": [{"index": 0, "delta": d, "finish_reason": None}]} for d in deltas]
        chunks.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        if wants_usage(payload):
            chunks.append({**base, "choices": [], "usage": self._usage(payload, answer)})
        return chunks

    def drain_calls(self) -> list[ModelCall]:
        return []  # the LLM port's own calls are metered by the engine


def _messages(payload: Json) -> list[Json]:
    """The payload's messages (the edge validated them as a list of objects)."""
    messages = payload.get("messages")
    return [m for m in messages if isinstance(m, dict)] if isinstance(messages, list) else []


def conversation_model_for(llm: LLM, tokens: TokenCounter, requested: str) -> ConversationModel:
    """An LLM that can forward a whole conversation (Qwen Cloud, any OpenAI-compatible endpoint) gets it;
    any other LLM (the offline one) replies to the newest user message."""
    forward = getattr(llm, "conversation_model", None)
    return forward(requested) if forward is not None else ReplyModel(llm, tokens)


def served_models(llm: LLM) -> list[str]:
    """The model names a caller may ask for: the alias first, then what it may name directly."""
    listed = getattr(llm, "served_models", None)
    return list(dict.fromkeys([ALIAS, *(listed() if listed is not None else [llm.model_id])]))
