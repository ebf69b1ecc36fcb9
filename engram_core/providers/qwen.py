"""The LLM port over Qwen Cloud (OpenAI-compatible), routed by cost.

Bookkeeping (importance and fact extraction, adjudication, gists, dream plans) goes
to the cheap model at temperature 0 in JSON mode; an answer that is not JSON of the
right shape gets one repair request, and if that fails too the raw text goes to the
engine, whose defensive parser falls back safely (and records it). Only the chat
reply goes to the strong model. A reasoning model's ``reasoning_content`` is metered
and otherwise dropped: it is never the answer and never reaches memory.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from pydantic import BaseModel, ValidationError

from engram_core.adapters.tokens import default_token_counter
from engram_core.core.errors import ProviderError
from engram_core.core.model import Belief, CallOutcome, CallPurpose, FactDraft
from engram_core.core.ports import TokenCounter
from engram_core.core import prompts
from engram_core.providers.forward import ForwardingModel, resolve_model
from engram_core.providers.settings import ProviderSettings
from engram_core.providers.transport import Sent, Transport
from engram_core.core.verdicts import extract_json_object


@dataclass(frozen=True)
class Completion:
    """The answer text, kept apart from any reasoning, with the provider's token counts."""

    content: str
    reasoning: str
    prompt_tokens: int
    completion_tokens: int
    reasoning_tokens: int | None


def _usage_numbers(usage: object) -> tuple[int, int, int | None]:
    if usage is None:
        return 0, 0, None
    details = getattr(usage, "completion_tokens_details", None)
    reasoning = getattr(details, "reasoning_tokens", None) if details is not None else None
    return int(usage.prompt_tokens or 0), int(usage.completion_tokens or 0), reasoning


def _reasoning_of(message: object) -> str:
    """``reasoning_content`` is a provider extension, so it arrives as an extra field."""
    return str(getattr(message, "reasoning_content", None) or "")


def completion_from_response(response: object) -> Completion:
    if not response.choices:
        raise ProviderError("the model returned no choices")
    message = response.choices[0].message
    return Completion(message.content or "", _reasoning_of(message), *_usage_numbers(response.usage))


def completion_from_stream(chunks: object) -> Completion:
    """Content and reasoning deltas accumulate separately; usage rides on the last chunk."""
    content, reasoning, usage = [], [], None
    for chunk in chunks:
        usage = chunk.usage or usage
        for choice in chunk.choices:
            content.append(choice.delta.content or "")
            reasoning.append(_reasoning_of(choice.delta))
    return Completion("".join(content), "".join(reasoning), *_usage_numbers(usage))


def shape_problem(answer: str, shape: type[BaseModel]) -> str | None:
    """None when ``answer`` holds a JSON object of ``shape``; otherwise what is wrong with it."""
    data = extract_json_object(answer)
    if data is None:
        return "no JSON object found"
    try:
        shape.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        return f"{'.'.join(map(str, first['loc'])) or 'answer'}: {first['msg']}"
    return None


class QwenLLM:
    """Cheap model for bookkeeping, strong model for replies, both metered."""

    def __init__(self, settings: ProviderSettings, transport: Transport,
                 tokens: TokenCounter | None = None) -> None:
        self.settings = settings
        self.transport = transport
        self.cheap = settings.llm_cheap_model
        self.strong = settings.llm_strong_model
        self.model_id = f"{self.cheap}+{self.strong}"
        self._tokens = tokens or default_token_counter()

    # -- the LLM port ---------------------------------------------------------------------
    def assess(self, text: str, speaker: str, occurred_at: datetime, earlier: str = "") -> str:
        return self._bookkeep(CallPurpose.EXTRACT, prompts.assess_messages(text, speaker, occurred_at, earlier),
                              prompts.AssessShape)

    def adjudicate(self, new_fact: FactDraft, candidates: Sequence[Belief]) -> str:
        return self._bookkeep(CallPurpose.ADJUDICATE, prompts.adjudicate_messages(new_fact, candidates),
                              prompts.VerdictsShape)

    def summarise(self, texts: Sequence[str]) -> str:
        return self._bookkeep(CallPurpose.SUMMARISE, prompts.summarise_messages(texts), prompts.GistShape)

    def propose_dream(self, memories: Sequence[tuple[str, str, float]]) -> str:
        return self._bookkeep(CallPurpose.DREAM, prompts.dream_messages(memories), prompts.DreamShape)

    def reply(self, message: str, memory_block: str) -> str:
        thinking = self.settings.llm_reply_thinking
        sent = self._send(CallPurpose.REPLY, self.strong, prompts.reply_messages(message, memory_block),
                          self._reply_options())
        answer = sent.value.content.strip()
        self._meter(CallPurpose.REPLY, self.strong, sent, CallOutcome.OK if answer else CallOutcome.INVALID, thinking)
        if not answer:
            raise ProviderError(f"reply model {self.strong} returned no answer text")
        return answer

    # -- whole conversations (the OpenAI-compatible endpoint) ------------------------------------
    def served_models(self) -> list[str]:
        return [self.strong, self.cheap]

    def conversation_model(self, requested: str) -> ForwardingModel:
        name = resolve_model(requested, self.strong, self.cheap)
        return ForwardingModel(self.settings, self.transport.client, name)

    # -- bookkeeping: JSON at temperature 0, one repair at most ---------------------------------
    def _bookkeeping_options(self) -> dict:
        options: dict = {"temperature": 0, "extra_body": {"enable_thinking": False}}
        if self.settings.llm_json_mode:
            options["response_format"] = {"type": "json_object"}
        return options

    def _bookkeep(self, purpose: CallPurpose, messages: list[dict], shape: type[BaseModel]) -> str:
        first = self._send(purpose, self.cheap, messages, self._bookkeeping_options())
        problem = shape_problem(first.value.content, shape)
        self._meter(purpose, self.cheap, first, CallOutcome.OK if problem is None else CallOutcome.INVALID)
        if problem is None:
            return first.value.content
        repair = prompts.repair_messages(messages, first.value.content, problem)
        second = self._send(purpose, self.cheap, repair, self._bookkeeping_options())
        repaired = shape_problem(second.value.content, shape) is None
        self._meter(purpose, self.cheap, second, CallOutcome.REPAIRED if repaired else CallOutcome.INVALID)
        return second.value.content

    # -- transport -------------------------------------------------------------------------------
    def _reply_options(self) -> dict:
        s = self.settings
        options: dict = {"timeout": s.llm_reply_timeout_seconds}
        if s.llm_reply_thinking:
            options["extra_body"] = {"enable_thinking": True}
        if s.llm_reply_max_tokens:
            options["max_tokens"] = s.llm_reply_max_tokens
        if s.llm_reply_thinking or s.llm_reply_stream:  # thinking output is served as a stream
            options.update(stream=True, stream_options={"include_usage": True})
        return options

    def _send(self, purpose: CallPurpose, model: str, messages: list[dict], options: dict) -> Sent[Completion]:
        create = self.transport.client.chat.completions.create

        def request() -> Completion:
            response = create(model=model, messages=messages, **options)
            return completion_from_stream(response) if options.get("stream") else completion_from_response(response)

        return self.transport.send(purpose, model, request)

    def _meter(self, purpose: CallPurpose, model: str, sent: Sent[Completion], outcome: CallOutcome,
               thinking: bool = False) -> None:
        c = sent.value
        reasoning = c.reasoning_tokens
        if reasoning is None:  # the provider did not break it out: count the text it sent
            reasoning = self._tokens.count(c.reasoning) if c.reasoning else 0
        self.transport.meter.record(purpose, model, latency_ms=sent.latency_ms, attempts=sent.attempts,
                                    outcome=outcome, prompt_tokens=c.prompt_tokens,
                                    completion_tokens=max(c.completion_tokens, reasoning),
                                    reasoning_tokens=reasoning, thinking=thinking or bool(c.reasoning))
