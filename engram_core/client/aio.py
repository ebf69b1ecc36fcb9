"""``AsyncEngramClient``: the HTTP API from Python, with asyncio or trio (httpx2).

The same methods as ``EngramClient``, each awaited: written out twice so both are typed exactly.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import TypeVar

import anyio
import httpx2

from engram_core.client import calls, wire
from engram_core.client.calls import Call, When
from engram_core.client.retry import RetryPolicy
from engram_core.core.schemas import (
    BeliefsOut, ChatResponse, DreamApplyOut, EventsOut, ForgetOut, ImportOut, MemoryDetail, MemoryPage, ProposalOut,
    RecallOut, StatsOut, WriteOut,
)

T = TypeVar("T")


class AsyncEngramClient:
    """``AsyncEngramClient(base_url, api_key)``; both default to ENGRAM_URL / ENGRAM_API_KEY. Errors are the engine's
    (``engram_core.core.errors``); 429 and 503 are retried after their Retry-After, at most ``max_retries`` times."""

    def __init__(self, base_url: str | None = None, api_key: str | None = None, *, timeout: float = 120.0,
                 max_retries: int = 3, max_retry_wait: float = 60.0, http_client: httpx2.AsyncClient | None = None,
                 sleep: Callable[[float], Awaitable[None]] = anyio.sleep) -> None:
        self.settings = wire.client_settings(base_url, api_key, timeout,
                                             RetryPolicy(max_retries=max_retries, max_wait_seconds=max_retry_wait))
        self._http = http_client or httpx2.AsyncClient(base_url=self.settings.base_url, timeout=timeout)
        self._http.headers.update(self.settings.headers())
        self._sleep = sleep

    async def __aenter__(self) -> AsyncEngramClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        await self._http.aclose()

    async def _send(self, call: Call[T]) -> T:
        key, retries = wire.idempotency_key_for(call), 0
        while True:
            try:
                response = await self._http.request(call.method, call.path, **wire.request_options(call, key))
            except httpx2.TransportError as exc:
                raise wire.unreachable(self.settings, exc) from exc
            if response.is_success:
                return call.read(wire.answer_of(response))
            wait = wire.retry_wait(self.settings, response, retries)
            if wait is None:
                raise wire.error_of(response)
            await self._sleep(wait)
            retries += 1

    # -- memories ------------------------------------------------------------------------------
    async def remember(self, text: str, *, kind: str = "fact", importance: float | None = None,
                 session_id: str | None = None) -> WriteOut:
        return await self._send(calls.remember(text, kind, importance, session_id))

    async def observe(self, text: str, *, role: str = "user", session_id: str | None = None,
                message_id: str | None = None, occurred_at: When = None, speaker: str | None = None) -> WriteOut:
        return await self._send(calls.observe(text, role, session_id, message_id, occurred_at, speaker))

    async def recall(self, query: str, *, budget_tokens: int = 1024, as_of: When = None) -> RecallOut:
        """Recall only: nothing is reinforced or written."""
        return await self._send(calls.recall(query, budget_tokens, as_of))

    async def chat(self, message: str, *, session_id: str | None = None, budget_tokens: int = 1024,
             occurred_at: When = None) -> ChatResponse:
        return await self._send(calls.chat(message, session_id, budget_tokens, occurred_at))

    async def beliefs(self, *, as_of: When = None) -> BeliefsOut:
        return await self._send(calls.beliefs(as_of))

    async def history(self, subject: str = "user") -> BeliefsOut:
        return await self._send(calls.history(subject))

    async def memories(self, *, kind: Sequence[str] = (), status: Sequence[str] = (), text: str | None = None,
                 as_of: When = None, limit: int = 50, offset: int = 0) -> MemoryPage:
        return await self._send(calls.memories(kind, status, text, as_of, limit, offset))

    async def memory(self, memory_id: str) -> MemoryDetail:
        return await self._send(calls.memory(memory_id))

    async def forget(self, memory_id: str, *, purge: bool = False) -> ForgetOut:
        return await self._send(calls.forget(memory_id, purge))

    async def events(self, *, since: When = None, limit: int = 1000) -> EventsOut:
        return await self._send(calls.events(since, limit))

    async def stats(self) -> StatsOut:
        return await self._send(calls.stats())

    async def export(self) -> list[str]:
        return await self._send(calls.export())

    async def import_lines(self, lines: Iterable[str]) -> ImportOut:
        return await self._send(calls.import_lines(lines))

    # -- consolidation -------------------------------------------------------------------------
    async def sleep(self) -> WriteOut:
        return await self._send(calls.sleep())

    async def consolidate(self, session_id: str) -> WriteOut:
        return await self._send(calls.consolidate(session_id))

    async def dream(self) -> ProposalOut:
        return await self._send(calls.dream())

    async def dream_apply(self, proposal_id: str, approved: Sequence[str]) -> DreamApplyOut:
        return await self._send(calls.dream_apply(proposal_id, approved))

    async def advance_clock(self, duration: str) -> dict:
        return await self._send(calls.advance_clock(duration))
