"""The Python client (``engram_core.client``) against a running server process, sync and async."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import date, timedelta

import anyio
import httpx2
import pytest
from functions_support import TENANT_KEYS, Server, running_server

from engram_core.client import AsyncEngramClient, AuthenticationError, EngramClient, RateLimitError, UnreachableError
from engram_core.client.retry import RetryPolicy, parse_retry_after
from engram_core.core.errors import (
    ConfigurationError, EngramError, ImportFormatError, NotFoundError, ProviderError, StoreError, ValidationError,
)


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("client") / "tenants") as running:
        yield running


def client(server: Server, tenant: str, **options: object) -> EngramClient:
    return EngramClient(server.url, TENANT_KEYS[tenant], **options)


def test_the_sync_client_covers_the_http_api(server: Server) -> None:
    with client(server, "alice") as engram:
        turn = engram.chat("I live in Lisbon and I am allergic to shellfish.", session_id="s1", budget_tokens=300)
        assert turn.session_id == "s1" and turn.usage.budget_tokens == 300
        stored = engram.remember("Prefers aisle seats", kind="preference", importance=0.8)
        seat = stored.memories[0]
        assert seat.kind == "preference" and seat.importance == 0.8
        first = engram.observe("We moved the team offsite to Porto.", session_id="s1", message_id="m-42")
        again = engram.observe("We moved the team offsite to Porto.", session_id="s1", message_id="m-42")
        assert first.message.id == again.message.id and not again.events  # observed once
        engram.observe("Sounds good.", role="assistant", session_id="s1")

        found = engram.recall("book a team dinner", budget_tokens=300)
        assert "shellfish" in found.block and found.tokens_used <= 300
        assert found.items and found.items[0].score.similarity >= 0
        now = {b.predicate: b.object for b in engram.beliefs().items}
        assert now["lives_in"] == "Lisbon"
        assert engram.beliefs(as_of=date.today() - timedelta(days=30)).items == []
        assert any(b.object == "Lisbon" for b in engram.history("user").items)

        page = engram.memories(kind=["preference"], limit=10)
        assert [m.id for m in page.items] == [seat.id] and page.next_offset is None
        assert engram.memory(seat.id).memory.text == "Prefers aisle seats"
        assert any(e.kind == "forgotten" for e in engram.forget(seat.id).events)
        assert any(e.kind == "purged" for e in engram.forget(seat.id, purge=True).events)
        assert engram.stats().tenant == "alice"
        assert any(e.kind == "stored" for e in engram.events(limit=50).items)

        assert engram.consolidate("s1").events is not None
        assert engram.sleep().events is not None
        proposal = engram.dream()
        applied = engram.dream_apply(proposal.id, [a.id for a in proposal.actions[:1]])
        assert len(applied.events) >= len(proposal.actions[:1])
        lines = engram.export()
    records = [json.loads(line)["type"] for line in lines]
    assert records[0] == "header" and "memory" in records
    with client(server, "bob") as bob:
        counts = bob.import_lines(lines).imported
        assert counts == {kind: records.count(kind) for kind in set(records) - {"header"}}, counts
        assert "shellfish" in bob.recall("what am I allergic to?").block


def test_the_async_client_does_the_same_awaited(server: Server) -> None:
    async def scenario() -> None:
        async with AsyncEngramClient(server.url, TENANT_KEYS["carol"]) as engram:
            await engram.remember("My sister Ana lives in Braga.", importance=0.9)
            await engram.chat("I work as a nurse.", session_id="a1")
            found = await engram.recall("where does Ana live?", budget_tokens=200)
            assert "Braga" in found.block
            assert (await engram.stats()).tenant == "carol"
            assert (await engram.memories(limit=1)).next_offset == 1
            with pytest.raises(NotFoundError):
                await engram.memory("mem_missing")

    anyio.run(scenario)


def test_errors_come_back_as_the_engines_error_tree(server: Server) -> None:
    with client(server, "dave") as engram:
        with pytest.raises(NotFoundError) as missing:
            engram.memory("mem_missing")
        assert missing.value.status == 404 and missing.value.field == "memory_id" and missing.value.request_id
        with pytest.raises(ValidationError) as invalid:
            engram.recall("x", budget_tokens=0)
        assert invalid.value.field == "budget_tokens" and invalid.value.status == 422
        with pytest.raises(ImportFormatError):
            engram.import_lines(['{"type": "nonsense"}'])
        assert engram.memories().items == []  # nothing of the failed import was written
    with pytest.raises(AuthenticationError):
        EngramClient(server.url, "egk_not-a-key").stats()
    with pytest.raises(UnreachableError):
        EngramClient("http://127.0.0.1:9", "egk_x", timeout=2).stats()
    with pytest.raises(ConfigurationError):
        EngramClient(server.url, api_key="")


def test_429_is_retried_after_retry_after_and_then_raised(tmp_path) -> None:
    with running_server(tmp_path / "tenants", ENGRAM_RATE_BURST="1", ENGRAM_RATE_PER_MINUTE="20") as limited:
        waits: list[float] = []

        def sleep(seconds: float) -> None:
            waits.append(seconds)
            time.sleep(seconds)

        with client(limited, "alice", sleep=sleep) as engram:
            engram.sleep()
            engram.sleep()  # 429 with Retry-After (a token every 3 s), waited, then done
            assert len(waits) == 1 and 1.0 <= waits[0] <= 3.0
        with client(limited, "alice", max_retries=0) as impatient:
            with pytest.raises(RateLimitError) as caught:
                impatient.sleep()
            assert caught.value.retry_after >= 1.0 and caught.value.status == 429
        with client(limited, "alice", max_retry_wait=0.5, sleep=sleep) as bounded:
            with pytest.raises(RateLimitError):
                bounded.sleep()  # Retry-After above the bound: raised at once, not waited for
            assert len(waits) == 1


def _scripted(responses: list[httpx2.Response], seen: list[httpx2.Request]) -> httpx2.MockTransport:
    """A stand-in server port for the retry rules: answers in order, records each request."""
    def handle(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return responses.pop(0)

    return httpx2.MockTransport(handle)


def _busy(retry_after: str | None) -> httpx2.Response:
    headers = {"Retry-After": retry_after} if retry_after else {}
    return httpx2.Response(503, headers=headers, json={"error": {"code": "busy", "message": "busy, retry",
                                                                 "field": None}})


def test_503_is_retried_with_the_same_idempotency_key_honouring_retry_after() -> None:
    seen: list[httpx2.Request] = []
    ok = httpx2.Response(200, json={"message": None, "memories": [], "beliefs": [], "events": []})
    http = httpx2.Client(base_url="http://engram.test", transport=_scripted([_busy("2"), _busy(None), ok], seen))
    waits: list[float] = []
    engram = EngramClient("http://engram.test", "egk_k", http_client=http, sleep=waits.append)
    assert engram.sleep().memories == []
    assert waits == [2.0, 1.0]  # the server's Retry-After, then the backoff's second step
    keys = {r.headers["Idempotency-Key"] for r in seen}
    assert len(seen) == 3 and len(keys) == 1 and seen[0].headers["Authorization"] == "Bearer egk_k"


def test_retries_are_bounded_and_the_last_error_is_raised() -> None:
    seen: list[httpx2.Request] = []
    http = httpx2.Client(base_url="http://engram.test", transport=_scripted([_busy("0")] * 4, seen))
    engram = EngramClient("http://engram.test", "egk_k", http_client=http, max_retries=3, sleep=lambda s: None)
    with pytest.raises(EngramError) as caught:
        engram.stats()
    assert caught.value.code == "busy" and len(seen) == 4
    assert "Idempotency-Key" not in seen[0].headers  # reads need none


def test_unknown_codes_fall_back_by_status() -> None:
    from engram_core.client.errors import error_from_body

    assert isinstance(error_from_body(503, {"error": {"code": "provider_unavailable", "message": "m"}}),
                      ProviderError)
    odd = error_from_body(503, {"error": {"code": "something_new", "message": "m"}})
    assert isinstance(odd, StoreError) and odd.code == "something_new"
    assert isinstance(error_from_body(400, "not json"), ValidationError)


def test_retry_after_reads_seconds_and_http_dates() -> None:
    from datetime import datetime, timezone

    now = datetime(2026, 5, 1, 12, 0, 0, tzinfo=timezone.utc)
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after("Fri, 01 May 2026 12:00:05 GMT", now) == 5.0
    assert parse_retry_after("soon") is None and parse_retry_after(None) is None
    policy = RetryPolicy(max_retries=2, max_wait_seconds=10)
    assert policy.wait_before_retry(429, "3", 0) == 3.0
    assert policy.wait_before_retry(429, "30", 0) is None  # over the bound
    assert policy.wait_before_retry(503, None, 1) == 1.0
    assert policy.wait_before_retry(503, "1", 2) is None  # out of retries
    assert policy.wait_before_retry(500, "1", 0) is None  # only 429 and 503
