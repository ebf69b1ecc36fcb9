"""Consolidating a session again changes nothing: no duplicate history, no new memories."""

from __future__ import annotations

from datetime import timedelta

from conftest import make_engine

from engram_core.core.model import EventKind


def _ledger(engine) -> list[tuple]:
    return sorted((b.predicate, b.object, b.valid_to is None, b.expired_at is None) for b in engine.store.all_beliefs())


def _memories(engine) -> list[tuple]:
    return sorted((m.kind.value, m.text, m.status.value) for m in engine.store.memories())


def test_consolidating_a_session_twice_adds_nothing(clock):
    engine = make_engine(clock)
    engine.observe("I live in Lisbon.", session_id="s1")
    clock.advance(timedelta(minutes=5))
    engine.observe("I moved to Madrid last week.", session_id="s1")
    engine.consolidate("s1")
    once = (_ledger(engine), _memories(engine))
    second = engine.consolidate("s1")
    third = engine.consolidate("s1")
    assert (_ledger(engine), _memories(engine)) == once
    assert second.beliefs == () and second.memories == () and third.beliefs == ()
    lisbon = [b for b in engine.history("user") if b.object == "Lisbon"]
    assert len(lisbon) == 1 and not lisbon[0].is_current()
    assert [b.object for b in engine.beliefs()] == ["Madrid"]
    assert any(e.kind is EventKind.DISCARDED and e.detail_dict().get("path") == "known" for e in second.events)
    engine.close()


def test_consolidation_does_not_repeat_what_observing_extracted(clock):
    engine = make_engine(clock)
    engine.observe("I live in Lisbon.", session_id="s1")
    before = len(engine.store.all_beliefs())
    engine.consolidate("s1")
    assert len(engine.store.all_beliefs()) == before  # the same fact from the same message: known
    engine.close()
