"""The pieces behind the routes, without HTTP: keys, rate limits, idempotency records, the sleep schedule."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from conftest import make_engine
from hypothesis import given
from hypothesis import strategies as st

from engram_core.core.errors import BusyError, ConfigurationError, NotFoundError, StoreError, ValidationError
from functions import idempotency, schedule
from engram_core.tenants.credentials import (
    KeyEntry, KeyRing, bearer_token, hash_key, new_key, parse_admin_keys, parse_key_entries,
)
from functions.errors import AuthError, RateLimitedError, status_of
from functions.sleepjobs import SleepJob, job_signature, signature_valid, signed_job
from functions.invokers import async_task_id
from functions.ratelimit import Bucket, RateLimiter, refill, retry_after_seconds
from functions.settings import load_settings

T0 = datetime(2026, 1, 6, 3, tzinfo=timezone.utc)


# -- API keys -------------------------------------------------------------------------------

def test_keys_are_stored_as_salted_hashes_and_resolve_to_their_tenant() -> None:
    alice, bob = new_key(), new_key()
    entries = [KeyEntry(tenant="alice", hash=hash_key(alice)), KeyEntry(tenant="bob", hash=hash_key(bob))]
    assert alice not in entries[0].model_dump_json()
    assert hash_key(alice) != hash_key(alice)  # a fresh salt each time
    ring = KeyRing([e.stored() for e in entries], admin_key="the-admin-key")
    assert ring.tenant_for(alice) == "alice" and ring.tenant_for(bob) == "bob"
    for wrong in (None, "", alice + "x", "the-admin-key"):
        assert ring.tenant_for(wrong) is None
    assert ring.is_admin("the-admin-key") and not ring.is_admin(alice) and not ring.is_admin(None)


def test_during_a_rotation_the_new_admin_key_signs_and_both_are_accepted() -> None:
    current, older = parse_admin_keys("# rotated 2026-01-05\negk_new-admin-key-0123\negk_old-admin-key-0123\n", "f")
    ring = KeyRing([], current, older)
    assert ring.signing_key == "egk_new-admin-key-0123"
    assert ring.is_admin("egk_new-admin-key-0123") and ring.is_admin("egk_old-admin-key-0123")
    assert not ring.is_admin("egk_another-key-01234") and ring.verifying_keys == (current, *older)
    for bad in ("", "\n# only a comment\n", "short\n", "egk_two words here-0123\n"):
        with pytest.raises(ConfigurationError):
            parse_admin_keys(bad, "ENGRAM_ADMIN_KEY_FILE")


def test_key_files_are_validated_with_a_clear_error() -> None:
    good = f'[{{"tenant": "alice", "hash": "{hash_key("k")}"}}]'
    assert [k.tenant for k in parse_key_entries(good, "ENGRAM_API_KEYS")] == ["alice"]
    for bad in ("not json", '{"tenant": "alice"}', '[{"tenant": "alice", "hash": "plain"}]',
                f'[{{"tenant": "../etc", "hash": "{hash_key("k")}"}}]'):
        with pytest.raises((ConfigurationError, ValidationError)):
            parse_key_entries(bad, "ENGRAM_API_KEYS")


@pytest.mark.parametrize(("header", "token"), [("Bearer abc", "abc"), ("bearer  abc ", "abc"), ("Basic abc", None),
                                               ("Bearer", None), ("", None), (None, None)])
def test_bearer_token(header: str | None, token: str | None) -> None:
    assert bearer_token(header) == token


# -- rate limits ----------------------------------------------------------------------------

@given(tokens=st.floats(0, 50), elapsed=st.floats(0, 1e6), rate=st.floats(0.001, 100), capacity=st.integers(1, 50))
def test_refill_never_exceeds_capacity_and_never_loses_tokens(tokens: float, elapsed: float, rate: float,
                                                              capacity: int) -> None:
    start = Bucket(min(tokens, capacity), 100.0)
    after = refill(start, 100.0 + elapsed, rate, capacity)
    assert start.tokens <= after.tokens <= capacity
    assert refill(start, 50.0, rate, capacity).tokens == start.tokens  # a clock going back adds nothing


def test_limiter_allows_the_burst_then_says_how_long_to_wait() -> None:
    now = [0.0]
    limiter = RateLimiter(per_minute=6, burst=2, monotonic=lambda: now[0])
    assert limiter.take("alice") is None and limiter.take("alice") is None
    assert limiter.take("alice") == 10  # one token every 10 s
    assert limiter.take("bob") is None  # per tenant
    now[0] = 10.0
    assert limiter.take("alice") is None and limiter.take("alice") == 10
    assert retry_after_seconds(Bucket(0.99, 0), 1.0) == 1


# -- idempotency records ----------------------------------------------------------------------

def test_idempotency_records_replay_and_refuse_a_changed_request(clock) -> None:
    engine = make_engine(clock)
    key = idempotency.check_key("order-42")
    assert idempotency.find(engine.store, key, "fp-1") is None
    idempotency.save(engine.store, key, "fp-1", idempotency.Replay(201, {"id": "mem_1"}))
    assert idempotency.find(engine.store, key, "fp-1") == idempotency.Replay(201, {"id": "mem_1"})
    with pytest.raises(idempotency.KeyReusedError):
        idempotency.find(engine.store, key, "fp-2")
    for bad in ("", "x" * 201, "spaces are not allowed", "caf\u00e9"):
        with pytest.raises(ValidationError):
            idempotency.check_key(bad)


def test_a_first_result_too_large_to_keep_replays_as_a_conflict(clock) -> None:
    engine = make_engine(clock)
    key = idempotency.check_key("big-turn")
    idempotency.save(engine.store, key, "fp", idempotency.Replay(200, {"block": "x" * idempotency.MAX_KEPT_BYTES}))
    kept = idempotency.find(engine.store, key, "fp")
    assert kept.status == 409 and kept.body["error"]["code"] == "idempotent_result_not_kept"


def test_idempotency_storage_is_a_bounded_ring(clock) -> None:
    engine = make_engine(clock)
    keys = [idempotency.check_key(f"k{n}") for n in range(idempotency.SLOTS + 5)]
    for n, key in enumerate(keys):
        idempotency.save(engine.store, key, "fp", idempotency.Replay(200, n))
    assert all(idempotency.find(engine.store, key, "fp") is None for key in keys[:5])  # the oldest went
    assert [idempotency.find(engine.store, key, "fp").body for key in keys[5:]] == list(range(5, len(keys)))
    rows = engine.store.conn.execute("SELECT COUNT(*) FROM meta WHERE key LIKE 'idempotency.%'").fetchone()[0]
    assert rows == idempotency.SLOTS + 1


# -- the sleep schedule -----------------------------------------------------------------------

def test_due_rule() -> None:
    period = timedelta(hours=24)
    assert schedule.is_due(None, T0, period)
    assert schedule.is_due(T0 - period, T0, period)
    assert not schedule.is_due(T0 - period + timedelta(seconds=1), T0, period)


def test_a_stores_marks_say_when_it_slept_and_for_which_trigger(clock) -> None:
    engine, period = make_engine(clock), timedelta(hours=24)
    assert schedule.last_sleep(engine) is None and not schedule.already_done(engine, T0)
    schedule.record_sleep(engine, T0, T0)
    assert schedule.last_sleep(engine) == T0
    assert schedule.already_done(engine, T0) and not schedule.already_done(engine, T0 + period)
    assert not schedule.is_due(schedule.last_sleep(engine), T0 + timedelta(hours=1), period)
    assert schedule.is_due(schedule.last_sleep(engine), T0 + period, period)


def test_jobs_carry_a_signature_for_their_own_tenant_and_trigger_only() -> None:
    job = signed_job("admin-secret", "alice", T0)
    assert signature_valid("admin-secret", job)
    assert not signature_valid("other-secret", job) and not signature_valid(None, job)
    assert not signature_valid("admin-secret", SleepJob(tenant="bob", trigger_time=T0, signature=job.signature))
    later = SleepJob(tenant="alice", trigger_time=T0 + timedelta(hours=1), signature=job.signature)
    assert not signature_valid("admin-secret", later)
    assert job_signature("admin-secret", "alice", T0) == job.signature
    task = async_task_id(SleepJob(tenant="team.a_b", trigger_time=T0))
    assert task == f"engram-sleep-team-a_b-{int(T0.timestamp())}" and len(task) <= 128


# -- settings and errors --------------------------------------------------------------------

def test_bad_settings_name_their_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENGRAM_RATE_BURST", "zero")
    with pytest.raises(ConfigurationError) as caught:
        load_settings()
    assert caught.value.field == "ENGRAM_RATE_BURST"
    monkeypatch.setenv("ENGRAM_RATE_BURST", "5")
    monkeypatch.setenv("ENGRAM_FUNCTION", "everything")
    with pytest.raises(ConfigurationError, match="ENGRAM_FUNCTION"):
        load_settings()


@pytest.mark.parametrize(("error", "status"), [
    (AuthError("x"), 401), (RateLimitedError(3), 429), (ValidationError("x"), 422),
    (idempotency.KeyReusedError("x"), 422), (NotFoundError("x"), 404), (BusyError("x"), 503),
    (StoreError("x"), 503), (ConfigurationError("x"), 500),
])
def test_error_statuses(error: Exception, status: int) -> None:
    assert status_of(error) == status


def test_a_kept_error_replays_as_that_error_not_as_the_route_model() -> None:
    from fastapi import Response
    from fastapi.responses import JSONResponse

    from functions.deps import shape
    from functions.service import WriteOutcome

    body = {"error": {"code": "idempotent_result_not_kept", "message": "m", "field": "Idempotency-Key"}}
    sent = shape(WriteOutcome(409, body, replayed=True), Response())
    assert isinstance(sent, JSONResponse) and sent.status_code == 409
    assert sent.headers["idempotent-replayed"] == "true"
    response = Response()
    assert shape(WriteOutcome(201, {"ok": 1}, replayed=True), response) == {"ok": 1}
    assert response.status_code == 201 and response.headers["idempotent-replayed"] == "true"
