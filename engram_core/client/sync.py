"""``EngramClient``: the HTTP API from Python, blocking (httpx2)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

import httpx2

from engram_core.client import calls, wire
from engram_core.client.calls import Call, When
from engram_core.client.retry import RetryPolicy
from engram_core.core.schemas import (
    BeliefsOut, ChatResponse, DreamApplyOut, EventsOut, ForgetOut, ImportOut, MemoryDetail, MemoryPage, ProposalOut,
    RecallOut, StatsOut, WriteOut,
)

T = TypeVar("T")


class EngramClient:
    """``EngramClient(base_url, api_key)``; both default to ENGRAM_URL / ENGRAM_API_KEY. Errors are the engine's
    (``engram_core.core.errors``); 429 and 503 are retried after their Retry-After, at most ``max_retries`` times."""

    def __init__(self, base_url: str | None = None, api_key: str | None = None, *, timeout: float = 120.0,
                 max_retries: int = 3, max_retry_wait: float = 60.0, http_client: httpx2.Client | None = None,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.settings = wire.client_settings(base_url, api_key, timeout,
                                             RetryPolicy(max_retries=max_retries, max_wait_seconds=max_retry_wait))
        self._http = http_client or httpx2.Client(base_url=self.settings.base_url, timeout=timeout)
        self._http.headers.update(self.settings.headers())
        self._sleep = sleep

    def __enter__(self) -> EngramClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def _send(self, call: Call[T]) -> T:
        key, retries = wire.idempotency_key_for(call), 0
        while True:
            try:
                response = self._http.request(call.method, call.path, **wire.request_options(call, key))
            except httpx2.TransportError as exc:
                raise wire.unreachable(self.settings, exc) from exc
            if response.is_success:
                return call.read(wire.answer_of(response))
            wait = wire.retry_wait(self.settings, response, retries)
            if wait is None:
                raise wire.error_of(response)
            self._sleep(wait)
            retries += 1

    # -- memories ------------------------------------------------------------------------------
    def remember(self, text: str, *, kind: str = "fact", importance: float | None = None,
                 session_id: str | None = None) -> WriteOut:
        return self._send(calls.remember(text, kind, importance, session_id))

    def observe(self, text: str, *, role: str = "user", session_id: str | None = None,
                message_id: str | None = None, occurred_at: When = None, speaker: str | None = None) -> WriteOut:
        return self._send(calls.observe(text, role, session_id, message_id, occurred_at, speaker))

    def recall(self, query: str, *, budget_tokens: int = 1024, as_of: When = None) -> RecallOut:
        """Recall only: nothing is reinforced or written."""
        return self._send(calls.recall(query, budget_tokens, as_of))

    def chat(self, message: str, *, session_id: str | None = None, budget_tokens: int = 1024,
             occurred_at: When = None) -> ChatResponse:
        return self._send(calls.chat(message, session_id, budget_tokens, occurred_at))

    def beliefs(self, *, as_of: When = None) -> BeliefsOut:
        return self._send(calls.beliefs(as_of))

    def history(self, subject: str = "user") -> BeliefsOut:
        return self._send(calls.history(subject))

    def memories(self, *, kind: Sequence[str] = (), status: Sequence[str] = (), text: str | None = None,
                 as_of: When = None, limit: int = 50, offset: int = 0) -> MemoryPage:
        return self._send(calls.memories(kind, status, text, as_of, limit, offset))

    def memory(self, memory_id: str) -> MemoryDetail:
        return self._send(calls.memory(memory_id))

    def forget(self, memory_id: str, *, purge: bool = False) -> ForgetOut:
        return self._send(calls.forget(memory_id, purge))

    def events(self, *, since: When = None, limit: int = 1000) -> EventsOut:
        return self._send(calls.events(since, limit))

    def stats(self) -> StatsOut:
        return self._send(calls.stats())

    def export(self) -> list[str]:
        return self._send(calls.export())

    def import_lines(self, lines: Iterable[str]) -> ImportOut:
        return self._send(calls.import_lines(lines))

    # -- consolidation -------------------------------------------------------------------------
    def sleep(self) -> WriteOut:
        return self._send(calls.sleep())

    def consolidate(self, session_id: str) -> WriteOut:
        return self._send(calls.consolidate(session_id))

    def dream(self) -> ProposalOut:
        return self._send(calls.dream())

    def dream_apply(self, proposal_id: str, approved: Sequence[str]) -> DreamApplyOut:
        return self._send(calls.dream_apply(proposal_id, approved))

    def advance_clock(self, duration: str) -> dict:
        return self._send(calls.advance_clock(duration))
