"""Facts that depend on a superseded value go to review; a newer restatement retires an older episode in recall."""

from __future__ import annotations

from datetime import timedelta
from typing import NamedTuple

import numpy as np
import pytest
from conftest import START, make_engine

from engram_core.core.config import EngineConfig
from engram_core.usecases.dependents import dependent_on
from engram_core.core.model import Belief, Cardinality, EventKind, Memory, MemoryKind, MemoryStatus
from engram_core.core.restatements import demoted, restated, retracted, retracts, states_a_change

pytestmark = pytest.mark.both_stores  # the use cases here need no SQL


def _say(engine, clock, *messages: str) -> list:
    written = []
    for text in messages:
        clock.advance(timedelta(days=1))
        written.append(engine.observe(text))
    return written


def _memory(mid: str, text: str, hours: float, kind: MemoryKind = MemoryKind.EPISODE, **extra) -> Memory:
    at = START + timedelta(hours=hours)
    return Memory(id=mid, kind=kind, text=text, importance=0.5, stability_hours=100, created_at=at,
                  last_accessed_at=at, **extra)


# -- dependent facts ----------------------------------------------------------------------------

def test_memories_that_name_or_were_said_about_the_old_value_depend_on_it():
    old = Belief("b1", "user", "lives_in", "Lisbon", "The user lives in Lisbon.", START, START)
    new = Belief("b2", "user", "lives_in", "Madrid", "The user lives in Madrid.", START + timedelta(days=30), START)
    memories = [
        _memory("dentist", "My dentist in Lisbon is Dr. Costa.", 24),
        _memory("tram", "The tram to work takes 20 minutes.", 48),
        _memory("tram-later", "The tram to work takes 20 minutes.", 24 * 40),  # said after the move
        _memory("move", "Moved from Lisbon to Madrid!", 24 * 30),  # names the new value: about the change
        _memory("cats", "I have two cats.", 24),
        _memory("lisbon-gone", "I once saw a show in Lisbon.", 24, status=MemoryStatus.SUPERSEDED),
    ]
    found = {d.memory.id: d.reason for d in dependent_on(old, new, memories)}
    assert set(found) == {"dentist", "tram"}
    assert "Lisbon" in found["dentist"] and "Madrid" in found["dentist"]


def test_a_superseded_home_sends_its_dependents_to_review_and_nothing_changes_without_approval(clock):
    engine = make_engine(clock)
    _say(engine, clock, "I live in Lisbon.", "My dentist in Lisbon is Dr. Costa, I see her twice a year.")
    dentist = next(m for m in engine.memories() if "dentist" in m.text)
    moved = _say(engine, clock, "I moved to Madrid last week.")[0]
    assert any(e.kind is EventKind.POSSIBLY_STALE and e.memory_id == dentist.id for e in moved.events)
    assert engine.get_memory(dentist.id).status is MemoryStatus.ACTIVE  # flagged, not changed
    assert engine.get_memory(dentist.id).text == dentist.text
    proposal = engine.dream()
    review = [(f"a{i + 1}", a) for i, a in enumerate(proposal.actions) if a.memory_ids == (dentist.id,)]
    assert {a.action for _, a in review} == {"confirm", "forget"}
    assert all("Lisbon" in a.reason for _, a in review)
    assert engine.get_memory(dentist.id).status is MemoryStatus.ACTIVE  # proposing changes nothing
    flagged = engine.store.possibly_stale()  # the episode, and the fact read from it ("dentist in Lisbon")
    assert dentist.id in flagged and all("Lisbon" in why for why in flagged.values())
    forgets = [f"a{i + 1}" for i, a in enumerate(proposal.actions)
               if a.action == "forget" and set(a.memory_ids) <= set(flagged)]
    engine.dream_apply(proposal.id, forgets)
    assert engine.get_memory(dentist.id).status is MemoryStatus.DELETED
    assert engine.store.possibly_stale() == {}
    engine.close()


def test_a_confirmed_dependent_stays_and_leaves_review(clock):
    engine = make_engine(clock)
    _say(engine, clock, "I live in Lisbon.", "My dentist in Lisbon is Dr. Costa, I see her twice a year.")
    _say(engine, clock, "I moved to Madrid last week.")
    dentist = next(m for m in engine.memories() if "dentist" in m.text)
    assert dentist.id in engine.store.possibly_stale()
    flagged = set(engine.store.possibly_stale())  # the episode, and the fact read from it
    proposal = engine.dream()
    confirms = [f"a{i + 1}" for i, a in enumerate(proposal.actions)
                if set(a.memory_ids) <= flagged and a.action == "confirm"]
    engine.dream_apply(proposal.id, confirms)
    assert engine.get_memory(dentist.id).status is MemoryStatus.ACTIVE
    assert engine.store.possibly_stale() == {}
    assert not any(a.memory_ids == (dentist.id,) for a in engine.dream().actions)
    engine.close()


def test_possibly_stale_candidates_rank_lower():
    class Candidate(NamedTuple):
        id: str
        score: float

    pool = [Candidate(_memory("kept", "a", 0).id, 0.8), Candidate(_memory("flagged", "b", 0).id, 0.8)]
    ranked = demoted(pool, {"flagged": "names Lisbon"}, 0.5)
    assert [(c.id, c.score) for c in ranked] == [("kept", 0.8), ("flagged", 0.4)]


# -- the restatement veto -----------------------------------------------------------------------

def _unit(*values: float) -> np.ndarray:
    vector = np.array(values, dtype=np.float32)
    return vector / np.linalg.norm(vector)


@pytest.mark.parametrize(("text", "changes"), [
    ("I'm at Globex now.", True), ("I don't drink coffee anymore.", True), ("Switched to tea.", True),
    ("I also speak German now.", False), ("Is Madrid nice now?", False), ("I live in Lisbon.", False),
])
def test_change_cues(text, changes):
    assert states_a_change(_memory("m", text, 0)) is changes


def test_a_newer_change_cued_restatement_of_the_same_slot_retires_the_older_episode():
    memories = [
        (_memory("old", "I work at Initech.", 0), None),
        (_memory("new", "I'm at Globex now.", 24), None),
        (_memory("sister", "My sister is at Globex now.", 30), None),  # someone else
        (_memory("cats", "I have two cats.", 1), None),
    ]
    vectors = np.stack([_unit(1, 0.1, 0), _unit(1, 0.3, 0), _unit(1, 0.2, 0), _unit(0, 0, 1)])
    assert restated(memories, vectors, 0.9) == {"old"}
    assert restated(memories, vectors, 0.999) == set()  # not close enough in meaning


def test_the_veto_spares_critical_memories_facts_of_many_values_and_newer_ones():
    allergy = _memory("allergy", "I'm allergic to peanuts.", 0, kind=MemoryKind.FACT, critical=True)
    likes = _memory("likes", "The user likes jazz.", 0, kind=MemoryKind.FACT)
    many = Belief("b", "user", "likes", "jazz", "", START, START, cardinality=Cardinality.MANY)
    memories = [(allergy, None), (likes, many), (_memory("new", "Jazz is not my thing now, nor peanuts.", 24), None),
                (_memory("newest", "I live in Lisbon.", 48), None)]
    vectors = np.stack([_unit(1, 0, 0)] * 4)
    assert restated(memories, vectors, 0.5) == set()


def test_recall_leaves_out_an_episode_restated_later_with_a_change_cue(clock):
    from engram_core.adapters.minilm import MiniLMEmbedder

    said = ("Our weekly team sync is on Mondays.", "Our weekly team sync is on Thursdays now.")  # no belief made
    # The write path would retire the Monday episode itself ("Thursdays now": a new value said to hold
    # now); turned off here, so that this tests the recall-time veto alone.
    engine = make_engine(clock, embedder=MiniLMEmbedder(),
                         config=EngineConfig(restatement_similarity=0.55, retire_similarity=1.01))
    _say(engine, clock, *said)
    block = engine.recall("When is the team sync?", 256, reinforce=False).block
    assert "Thursdays" in block and "Mondays" not in block
    off = make_engine(clock, embedder=MiniLMEmbedder(), config=EngineConfig(retire_similarity=1.01))  # no veto
    _say(off, clock, *said)
    assert "Mondays" in off.recall("When is the team sync?", 256, reinforce=False).block  # the veto did it
    engine.close()
    off.close()


# -- retractions (off by default) ----------------------------------------------------------------

@pytest.mark.parametrize(("text", "retracting"), [
    ("Stopped the intermittent fasting, it made me cranky.", True), ("I'm no longer a morning person.", True),
    ("Guess who doesn't work at the Hilton anymore!", True), ("My father is not working more in the factory.", True),
    ("I quit the choir in May.", True), ("I used to go camping with my dad.", False),
    ("I'm at Globex now.", False),  # a change, but not one that stops something
    ("Did you stop the fasting?", False), ("I also gave up sugar.", False), ("I live in Lisbon.", False),
])
def test_retraction_cues(text, retracting):
    assert retracts(_memory("m", text, 0)) is retracting


def _pairs(*rows: tuple[str, str, float]) -> list[tuple[Memory, None]]:
    return [(_memory(mid, text, hours), None) for mid, text, hours in rows]


def test_a_retraction_that_names_what_it_retracts_retires_the_older_memory():
    memories = _pairs(("fast", "I'm doing intermittent fasting.", 0),
                      ("hotel", "Long day. I manage the front desk at the Hilton downtown.", 1),
                      ("walk", "I walk to work most days.", 2),  # close in meaning, names neither
                      ("stop", "Stopped the intermittent fasting, it made me cranky.", 24),
                      ("left", "Guess who doesn't work at the Hilton anymore! Marriott now.", 30))
    vectors = np.stack([_unit(1, 0.1, 0)] * 5)
    flags = [retracts(m) for m, _ in memories]
    assert retracted(memories, vectors, 0.45, flags) == {"fast", "hotel"}
    far = np.stack([_unit(1, 0, 0), _unit(1, 0, 0), _unit(1, 0, 0), _unit(0, 1, 0), _unit(0, 1, 0)])
    assert retracted(memories, far, 0.45, flags) == set()  # named, but not close in meaning


def test_a_retraction_spares_other_people_other_speakers_newer_memories_and_critical_ones():
    allergy = _memory("allergy", "I'm allergic to peanuts, so no peanut butter.", 0, kind=MemoryKind.FACT,
                      critical=True)
    memories = [(allergy, None)] + _pairs(
        ("gym", "Caroline: I go to the climbing gym on Fridays.", 1),
        ("sister", "My sister goes to the climbing gym.", 2),
        ("later", "I run in the park every morning.", 60),  # newer than the retraction: it stays
        ("other", "Melanie: I don't go to the climbing gym anymore.", 24),  # another speaker
        ("mine", "My sister doesn't go to the climbing gym anymore, and peanuts are no longer a problem.", 30),
        ("run", "Caroline: I stopped running in the park every morning.", 40))
    vectors = np.stack([_unit(1, 0, 0)] * len(memories))
    flags = [retracts(m) for m, _ in memories]
    # "mine" is about the sister: it retires her gym; "run" (Caroline) names the run but is older than it.
    assert retracted(memories, vectors, 0.45, flags) == {"sister"}


def test_recall_leaves_out_what_the_speaker_said_stopped_when_retractions_are_on(clock):
    from engram_core.adapters.minilm import MiniLMEmbedder

    said = ("I'm a morning person.", "I'm no longer a morning person, night shifts changed that.")
    # The write path's retirement (on by default, tests/test_write_retirements.py) is off here: this is recall's rule.
    write_path_off = 1.01
    engine = make_engine(clock, embedder=MiniLMEmbedder(),
                         config=EngineConfig(retraction_similarity=0.45, retire_similarity=write_path_off))
    _say(engine, clock, *said)
    block = engine.recall("Am I a morning person?", 256, reinforce=False).block
    assert "no longer" in block and block.count("morning person") == 1
    assert {m.text for m in engine.memories(status=["active"])} == set(said)  # kept: only recall leaves it out
    # Recall's rule as by default (off), and the newest word on a habit a question names (core/asked_things,
    # on by default) off too: this is the retraction rule alone.
    off = make_engine(clock, embedder=MiniLMEmbedder(),
                      config=EngineConfig(retire_similarity=write_path_off, asked_slot_recency=False))
    _say(off, clock, *said)
    assert off.recall("Am I a morning person?", 256, reinforce=False).block.count("morning person") == 2
    engine.close()
    off.close()
