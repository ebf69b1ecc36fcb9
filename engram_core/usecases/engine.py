"""The Engine: one orchestrator that ties the ports to the pure rules.

Every public method is one use case: validate, run, commit once, return what
happened (with the events it caused).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import TypeVar

from engram_core.usecases import exchange, longtext, maintenance, recall, reembed, replies, writepath
from engram_core.core import inputs
from engram_core.core.conversation import ConversationModel
from engram_core.core.config import EngineConfig
from engram_core.core.errors import ConfigurationError, NotFoundError, ProviderError, ValidationError
from engram_core.core.model import (
    Belief, DreamProposal, Event, EventKind, Memory, MemoryDetail, MemoryKind, MemoryStatus, ModelCall, RecallResult,
    WriteResult,
)
from engram_core.usecases.metering import usage_report
from engram_core.core.ports import LLM, Clock, Embedder, MetaStore, TenantStore, TokenCounter, UsageSource, WorkingFile
from engram_core.usecases.reembed import ReembedReport
from engram_core.usecases.runtime import CLOCK_OFFSET_KEY, Runtime, random_id
from engram_core.core.timeutil import MAX_DURATION

T = TypeVar("T")


@dataclass(frozen=True)
class ChatTurn:
    reply: str
    recall: RecallResult
    write: WriteResult
    reply_message: WriteResult


class Engine:
    """Open one per tenant store; not shared across threads without a lock."""

    def __init__(self, store: TenantStore, *, embedder: Embedder, llm: LLM, tokens: TokenCounter,
                 clock: Clock, config: EngineConfig | None = None,
                 new_id: Callable[[str], str] = random_id, usage: UsageSource | None = None) -> None:
        self.config = config or EngineConfig()
        self._rt = Runtime(store, embedder, llm, tokens, clock, self.config, new_id, usage)

    @property
    def store(self) -> TenantStore:
        """The whole store port, for tools and benchmarks; the edges use ``meta`` and ``working_file``."""
        return self._rt.store

    @property
    def meta(self) -> MetaStore:
        """Named values the edges keep with the tenant (idempotency records, sleep marks)."""
        return self._rt.store

    @property
    def working_file(self) -> WorkingFile:
        """The database file under this engine, for the snapshot layer."""
        store = self._rt.store
        if not isinstance(store, WorkingFile):
            raise ConfigurationError("this engine's store is not a database file", field="store")
        return store

    @property
    def llm_id(self) -> str:
        return self._rt.llm.model_id

    def count_tokens(self, text: str) -> int:
        """Tokens this text costs the model, by the engine's (never under-counting) counter."""
        return self._rt.tokens.count(text)

    def close(self) -> None:
        self._rt.flush_usage()
        self._rt.store.close()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _run(self, use_case: Callable[[], T]) -> T:
        """A failed use case rolled back its transaction; drop the cached index with it."""
        try:
            return use_case()
        except BaseException:
            self._rt.drop_index()
            raise

    # -- time -------------------------------------------------------------------
    def now(self) -> datetime:
        return self._rt.now()

    def clock_offset(self) -> timedelta:
        return self._rt.clock_offset()

    def advance_clock(self, delta: timedelta) -> timedelta:
        """Move this store's clock forward (weeks of decay in minutes); returns the new offset."""
        if delta.total_seconds() <= 0:
            raise ValidationError("the clock only moves forward", field="duration")
        offset = self._rt.clock_offset() + delta
        if offset > MAX_DURATION:
            raise ValidationError(f"the clock offset may reach at most {MAX_DURATION.days // 365} years",
                                  field="duration")
        with self.store.transaction():
            self.store.set_meta(CLOCK_OFFSET_KEY, repr(offset.total_seconds()))
            self.store.insert_events([self._rt.event(EventKind.CLOCK_ADVANCED, seconds=delta.total_seconds())])
        return offset

    # -- writes -------------------------------------------------------------------
    def observe(self, text: str, *, role: str = "user", session_id: str | None = None,
                message_id: str | None = None, occurred_at: str | datetime | None = None,
                speaker: str | None = None) -> WriteResult:
        """One message; a text longer than ``max_text_bytes`` is kept whole and stored as linked parts."""
        obs = writepath.Observation(
            text=inputs.check_message(text, self.config), role=inputs.check_role(role),
            session_id=inputs.check_identifier(session_id, "session_id") or "default",
            external_id=inputs.check_identifier(message_id, "message_id"),
            occurred_at=inputs.check_when(occurred_at, "occurred_at"),
            speaker=inputs.check_identifier(speaker, "speaker"),
        )
        if inputs.is_long(obs.text, self.config):
            return self._run(lambda: longtext.observe_long(self._rt, obs, self.config.part_bytes))
        return self._run(lambda: writepath.observe(self._rt, obs))

    def remember(self, text: str, *, kind: str | MemoryKind = MemoryKind.FACT, importance: float | None = None,
                 session_id: str | None = None) -> WriteResult:
        obs = writepath.Observation(
            text=inputs.check_text(text, self.config), kind=inputs.check_remember_kind(kind),
            importance=inputs.check_importance(importance),
            session_id=inputs.check_identifier(session_id, "session_id") or "default",
        )
        return self._run(lambda: writepath.observe(self._rt, obs))

    # -- recall -------------------------------------------------------------------
    def recall(self, query: str, budget_tokens: int = 1024, *, as_of: str | datetime | None = None,
               reinforce: bool = True) -> RecallResult:
        query = inputs.check_text(query, self.config, "query")
        budget = inputs.check_budget(budget_tokens, self.config)
        when = inputs.check_when(as_of, "as_of")
        if when is not None:
            return recall.recall_as_of(self._rt, query, budget, when)
        return self._run(lambda: recall.recall_now(self._rt, query, budget, reinforce))

    def chat(self, message: str, *, session_id: str | None = None, budget_tokens: int = 1024,
             occurred_at: str | datetime | None = None) -> ChatTurn:
        """One turn: decay sweep, recall under the budget, write the message, reply, write the reply.

        The message is written before the reply model is asked, so a failing reply loses nothing;
        the failure is in the audit log and raised. Every model call of the turn is costed together.
        """
        inputs.check_text(message, self.config, "message")
        occurred_at = inputs.check_when(occurred_at, "occurred_at")  # before the turn writes anything
        self._rt.flush_usage()
        self._rt.turn_id = self._rt.new_id("turn")
        try:
            self.sweep()
            recalled = self.recall(message, budget_tokens)
            written = self.observe(message, session_id=session_id, occurred_at=occurred_at)
            reply = self._reply(message, recalled, written)
            # A long reply is returned whole; the copy kept in the history is cut to the text limit.
            answer = self.observe(inputs.clip_text(reply, self.config.max_text_bytes), role="assistant",
                                  session_id=session_id)
        finally:
            self._rt.turn_id = None
        return ChatTurn(reply, recalled, written, answer)

    def _reply(self, message: str, recalled: RecallResult, written: WriteResult) -> str:
        try:
            return self._rt.llm.reply(message, recalled.render())
        except (ProviderError, ConfigurationError) as exc:
            saved = written.message.id if written.message else None
            self.record_reply_failure(saved, self._rt.llm.model_id, exc.message)
            raise type(exc)(f"no reply: {exc.message} (the message was saved)", field=exc.field) from exc

    def record_reply_failure(self, message_id: str | None, model: str, reason: str) -> None:
        """A reply that did not come, in the audit log next to the message that asked for it."""
        with self.store.transaction():
            self.store.insert_events([self._rt.event(EventKind.REPLY_FAILED, message_id=message_id, model=model,
                                                     reason=reason)])

    # -- whole conversations (OpenAI-compatible chat completions) -----------------------------
    def conversation_model(self, requested: str) -> ConversationModel:
        """The model a whole conversation goes to: forwarded with a provider, else the LLM's own reply."""
        return replies.conversation_model_for(self._rt.llm, self._rt.tokens, requested)

    def served_models(self) -> list[str]:
        return replies.served_models(self._rt.llm)

    def record_calls(self, calls: Sequence[ModelCall]) -> None:
        """Model calls metered outside this engine (a forwarded conversation), into this store's usage."""
        self._rt.record_calls(calls)

    # -- beliefs -----------------------------------------------------------------------
    def beliefs(self, as_of: str | datetime | None = None) -> list[Belief]:
        """Current beliefs, or those valid in the world at ``as_of``."""
        when = inputs.check_when(as_of, "as_of")
        if when is None:
            return self.store.current_beliefs()
        return self.store.beliefs_valid_at(when)

    def history(self, subject: str = "user", predicate: str | None = None) -> list[Belief]:
        subject = inputs.check_identifier(subject, "subject") or "user"
        return self.store.belief_history(subject, predicate)

    # -- maintenance ------------------------------------------------------------------------
    def sweep(self) -> tuple[Event, ...]:
        return self._run(lambda: maintenance.sweep(self._rt))

    def sleep(self) -> WriteResult:
        return self._run(lambda: maintenance.sleep(self._rt))

    def consolidate(self, session_id: str) -> WriteResult:
        sid = inputs.check_identifier(session_id, "session_id")
        if sid is None:
            raise ValidationError("session_id is required", field="session_id")
        return self._run(lambda: maintenance.consolidate_session(self._rt, sid))

    def dream(self) -> DreamProposal:
        return self._run(lambda: maintenance.dream_propose(self._rt))

    def dream_apply(self, proposal_id: str, approved: Sequence[str]) -> tuple[Event, ...]:
        pid = inputs.check_identifier(proposal_id, "proposal_id") or ""
        return self._run(lambda: maintenance.dream_apply(self._rt, pid, list(approved)))

    def reembed(self, progress: Callable[[int], None] | None = None, *, force: bool = False) -> ReembedReport:
        """Re-embed every memory with the active embedder (after switching model or dimension)."""
        return self._run(lambda: reembed.reembed(self._rt, progress, force))

    def forget(self, memory_id: str, *, purge: bool = False) -> tuple[Event, ...]:
        mid = inputs.check_identifier(memory_id, "memory_id") or ""
        return self._run(lambda: maintenance.forget(self._rt, mid, purge))

    # -- reads ------------------------------------------------------------------------------
    def get_memory(self, memory_id: str) -> Memory:
        memory = self.store.get_memory(memory_id)
        if memory is None:
            raise NotFoundError(f"no memory {memory_id!r}", field="memory_id")
        return memory

    def memory_detail(self, memory_id: str) -> MemoryDetail:
        """The memory, the messages it came from, and the whole history of every belief it states."""
        memory = self.get_memory(memory_id)
        messages = [m for m in (self.store.get_message(mid) for mid in memory.provenance) if m is not None]
        history = {past.id: past for belief in self.store.beliefs_of_memory(memory.id)
                   for past in self.store.belief_history(belief.subject, belief.predicate)}
        return MemoryDetail(memory, tuple(messages), tuple(history.values()))

    def memory_counts(self) -> dict[str, int]:
        """How many memories have each status."""
        counts = self.store.count_memories()
        return {s.value: counts.get(s.value, 0) for s in MemoryStatus}

    def memories(self, *, status: Sequence[str] = (), kind: Sequence[str] = (), text: str | None = None,
                 limit: int = 100, offset: int = 0, as_of: str | datetime | None = None) -> list[Memory]:
        """Memories in creation order; ``as_of`` keeps those created by then (filtered before paging)."""
        statuses = [self._status(s) for s in status]
        kinds = [inputs.check_kind(k).value for k in kind]
        when = inputs.check_when(as_of, "as_of")
        if limit < 1 or offset < 0:
            raise ValidationError("limit must be at least 1 and offset not negative", field="limit")
        return self.store.memories(statuses, kinds, text, limit, offset, created_by=when)

    @staticmethod
    def _status(value: str) -> MemoryStatus:
        try:
            return MemoryStatus(value)
        except ValueError as exc:
            allowed = ", ".join(s.value for s in MemoryStatus)
            raise ValidationError(f"unknown status {value!r}; use one of: {allowed}", field="status") from exc

    def events(self, since: str | datetime | None = None, limit: int = 1000) -> list[Event]:
        return self.store.events(inputs.check_when(since, "since"), limit)

    def stats(self) -> dict[str, object]:
        beliefs = self.store.all_beliefs()
        return {
            "memories": self.memory_counts(),
            "beliefs": {"current": sum(b.is_current() for b in beliefs), "total": len(beliefs)},
            "messages": len(self.store.messages()),
            "schema_version": self.store.schema_version(),
            "embedder": self._rt.embedder_signature(),
            "llm": self._rt.llm.model_id,
            "token_counter": self._rt.tokens.name,
            "usage": usage_report(self.store),
            "clock_offset_hours": round(self.clock_offset().total_seconds() / 3600, 3),
            "now": self.now().isoformat(),
        }

    # -- export / import ------------------------------------------------------------------------
    def export_lines(self) -> Iterator[str]:
        return exchange.export_lines(self._rt)

    def import_lines(self, lines: Iterable[str]) -> dict[str, int]:
        header, records = exchange.parse_import(lines, self._rt.store.schema_version())
        return self._run(lambda: exchange.import_records(self._rt, header, records))


def default_store_path() -> Path:
    from platformdirs import user_data_path  # imported lazily: only the CLI default needs it

    return user_data_path("engram") / "default.sqlite"
