"""Sleep cycle, session consolidation, dreaming, forget and purge."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from engram_core.core.errors import NotFoundError, ValidationError
from engram_core.core.model import EventKind, MemoryKind, MemoryStatus

from conftest import make_engine
from fakes import ScriptedLLM, assessment

pytestmark = pytest.mark.both_stores  # the use cases here need no SQL


def chatty(clock, path: str = ":memory:", **llm_kwargs):
    engine = make_engine(clock, ScriptedLLM(assess=lambda t: assessment(0.4), **llm_kwargs), path=path)
    for day in range(3):
        for n in range(4):
            engine.observe(f"day {day} small talk number {n} about the weather", session_id=f"s{day}")
        clock.advance(timedelta(days=1))
    return engine


def test_sleep_turns_faded_groups_into_gists_and_archives_originals(clock) -> None:
    engine = chatty(clock)
    clock.advance(timedelta(days=60))
    result = engine.sleep()
    gists = [m for m in result.memories if m.kind is MemoryKind.GIST]
    assert len(gists) == 3
    archived = engine.memories(status=["archived"], limit=1000)
    assert len(archived) == 12 and {m.superseded_by for m in archived} == {g.id for g in gists}
    assert all(len(g.provenance) == 4 for g in gists)
    kinds = [e.kind for e in result.events]
    assert kinds.count(EventKind.DECAYED) == 12 and kinds.count(EventKind.ARCHIVED) == 12
    # The gist is recalled; the archived originals stay in the cold tier, where a matching cue may wake them
    # beside it (they compete at the retention floor, and stay archived).
    recalled = engine.recall("weather small talk", 500, reinforce=False).items
    assert MemoryKind.GIST in [item.kind for item in recalled]
    assert len(engine.memories(status=["archived"], limit=1000)) == 12


def test_sleep_with_an_unusable_gist_archives_nothing(clock) -> None:
    engine = chatty(clock, summarise=lambda texts: "no json here")
    clock.advance(timedelta(days=60))
    result = engine.sleep()
    assert not [m for m in result.memories if m.kind is MemoryKind.GIST]
    assert engine.memories(status=["archived"]) == []
    assert EventKind.FALLBACK in [e.kind for e in result.events]


def test_storage_levels_off_over_repeated_sleep(clock) -> None:
    engine = make_engine(clock, ScriptedLLM(assess=lambda t: assessment(0.4)))
    active = []
    for day in range(240):
        for n in range(3):
            engine.observe(f"day {day} chat {n}", session_id=f"d{day}")
        if day % 7 == 0:
            engine.sleep()
        active.append(len(engine.memories(status=["active"], limit=100_000)))
        clock.advance(timedelta(days=1))
    total = sum(engine.store.count_memories().values())
    assert max(active[180:]) <= max(active[120:180]) + 3  # bounded, not growing with days
    assert active[-1] < 0.25 * total


def test_consolidate_session_writes_through_adjudication(clock) -> None:
    from engram_core.adapters.offline.llm import OfflineLLM

    engine = make_engine(clock, OfflineLLM())
    engine.observe("I live in Lisbon.", session_id="s1")
    result = engine.consolidate("s1")
    assert EventKind.CONSOLIDATED in [e.kind for e in result.events]
    assert EventKind.DISCARDED in [e.kind for e in result.events]  # already known from the live write
    with pytest.raises(NotFoundError):
        engine.consolidate("nope")


def _dream_llm(clock):
    def propose(memories):
        ids = [m[0] for m in memories]
        return json.dumps({"actions": [
            {"action": "forget", "ids": [ids[0]], "reason": "trivial"},
            {"action": "forget", "ids": ["mem_hallucinated"], "reason": "made up"},
            {"action": "reimportance", "ids": [ids[1]], "importance": 0.95},
        ]})
    return make_engine(clock, ScriptedLLM(assess=lambda t: assessment(0.6), dream=propose))


def test_dream_proposes_validates_and_applies_only_approved(clock) -> None:
    engine = _dream_llm(clock)
    a = engine.observe("first memory here").memories[0]
    b = engine.observe("second memory here").memories[0]
    proposal = engine.dream()
    assert len(proposal.actions) == 2 and any("mem_hallucinated" in r for r in proposal.rejected)
    assert engine.get_memory(a.id).status is MemoryStatus.ACTIVE  # nothing applied yet
    events = engine.dream_apply(proposal.id, ["a2", "a9"])
    assert [e.kind for e in events] == [EventKind.DREAM_APPLIED, EventKind.DREAM_REJECTED]
    assert engine.get_memory(b.id).importance == 0.95
    assert engine.get_memory(a.id).status is MemoryStatus.ACTIVE
    with pytest.raises(ValidationError):
        engine.dream_apply(proposal.id, ["a1"])
    with pytest.raises(NotFoundError):
        engine.dream_apply("drm_missing", ["a1"])


def test_soft_forget_keeps_audit_and_leaves_recall(clock) -> None:
    engine = make_engine(clock, ScriptedLLM(assess=lambda t: assessment(0.7)))
    memory = engine.observe("my locker code is 4312").memories[0]
    events = engine.forget(memory.id)
    assert events[0].kind is EventKind.FORGOTTEN
    assert engine.get_memory(memory.id).status is MemoryStatus.DELETED
    assert not engine.recall("locker code", 200).items
    with pytest.raises(NotFoundError):
        engine.forget("mem_nope")


@pytest.mark.sql  # reads the database file
def test_purge_removes_text_everywhere_on_disk(clock, tmp_path: Path) -> None:
    from engram_core.adapters.offline.llm import OfflineLLM

    path = tmp_path / "t.sqlite"
    engine = make_engine(clock, OfflineLLM(), path=str(path))
    result = engine.observe("I'm allergic to Zyrtecillin, please remember that.")
    for memory in result.memories:
        engine.forget(memory.id, purge=True)
    engine.close()
    blob = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert b"Zyrtecillin" not in blob and b"zyrtecillin" not in blob
    reopened = make_engine(clock, OfflineLLM(), path=str(path))
    assert reopened.memories() == [] and "Zyrtecillin" not in "\n".join(reopened.export_lines())
    assert [e.kind for e in reopened.events()][-1] is EventKind.PURGED


def _recalled(engine) -> list:
    return [e for e in engine.events(limit=100_000) if e.kind is EventKind.RECALLED]


def test_sleep_prunes_the_recall_log_past_its_window_and_nothing_else(clock) -> None:
    engine = make_engine(clock, ScriptedLLM(assess=lambda t: assessment(0.8)))
    engine.observe("I keep bees on the roof.", session_id="s1")
    old = engine.recall("bees on the roof", 500)
    clock.advance(timedelta(days=40))
    fresh = engine.recall("bees on the roof", 500)
    assert old.events and fresh.events
    before = engine.events(limit=100_000)
    kept_kinds = {e.kind for e in before} - {EventKind.RECALLED}
    memory = engine.memories(limit=10)[0]
    result = engine.sleep()
    recalled = _recalled(engine)
    assert {e.id for e in recalled} == {e.id for e in fresh.events}  # the 40-day-old ones went, the new stayed
    assert not {e.id for e in old.events} & {e.id for e in engine.events(limit=100_000)}
    assert kept_kinds <= {e.kind for e in engine.events(limit=100_000)}
    assert len(engine.events(limit=100_000)) == len(before) - len(old.events) + len(result.events)
    summary = [e for e in result.events if e.kind is EventKind.CONSOLIDATED][-1]
    assert dict(summary.detail)["recall_events_pruned"] == len(old.events)
    after = engine.memories(limit=10)[0]  # what the log taught stays in the memory
    assert after.access_count == memory.access_count and after.last_accessed_at == memory.last_accessed_at


def test_a_zero_recall_log_window_keeps_every_event(clock) -> None:
    from engram_core.core.config import EngineConfig

    engine = make_engine(clock, ScriptedLLM(assess=lambda t: assessment(0.8)),
                         config=EngineConfig(recall_log_days=0))
    engine.observe("I keep bees on the roof.", session_id="s1")
    old = engine.recall("bees on the roof", 500)
    assert old.events
    clock.advance(timedelta(days=400))
    engine.sleep()
    assert {e.id for e in old.events} <= {e.id for e in _recalled(engine)}


def test_an_archived_memory_wakes_on_a_strong_cue_and_stays_archived(clock) -> None:
    engine = chatty(clock)
    clock.advance(timedelta(days=60))
    engine.sleep()
    archived = {m.id: m for m in engine.memories(status=["archived"], limit=1000)}
    target = next(m for m in archived.values() if m.text == "day 1 small talk number 2 about the weather")
    woken = engine.recall("day 1 small talk number 2 about the weather", 500)
    assert target.id in [i.memory_id for i in woken.items]
    after = engine.store.get_memory(target.id)
    assert after.status is MemoryStatus.ARCHIVED and after.superseded_by == target.superseded_by  # its gist stays
    assert after.access_count == target.access_count + 1
    weak = engine.recall("tax forms", 500, reinforce=False)  # no strong cue: the archive stays asleep
    assert not set(archived) & {i.memory_id for i in weak.items}


def test_a_belief_changed_after_its_episode_was_archived_never_surfaces_the_old_value(clock) -> None:
    from engram_core.adapters.offline.llm import OfflineLLM

    engine = make_engine(clock, OfflineLLM())
    engine.observe("I live in Lisbon.", session_id="s1")
    engine.observe("I had a long walk by the river.", session_id="s1")
    clock.advance(timedelta(days=90))
    engine.sleep()
    lisbon = [m for m in engine.memories(status=["archived"], limit=100) if "Lisbon" in m.text]
    assert lisbon, "the episode was archived"
    gists = {m.superseded_by for m in lisbon}
    engine.observe("I moved to Ponta Delgada.", session_id="s2")
    assert all(engine.store.get_memory(m.id).status is MemoryStatus.SUPERSEDED for m in lisbon)
    assert all(engine.store.get_memory(g).status is MemoryStatus.SUPERSEDED for g in gists)  # it said Lisbon too
    result = engine.recall("I live in Lisbon, the city where I live", 500, reinforce=False)
    assert "Lisbon" not in result.block and "Ponta Delgada" in result.block
    walk = engine.recall("I had a long walk by the river", 500, reinforce=False)  # the gist's other original
    assert "long walk by the river" in walk.block
