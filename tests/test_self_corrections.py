"""Setting one's own words right with no old value named: "oops I meant three kids"."""

from __future__ import annotations

import pytest
from conftest import START, make_engine, say

from engram_core.core.model import Belief, Cardinality, Memory, MemoryKind, MemoryStatus
from engram_core.core.selfcorrection import CORRECTED_SIMILARITY, corrected, sets_right

pytestmark = pytest.mark.both_stores


@pytest.mark.parametrize(("text", "right"), [
    ("oops I meant three kids, forgot to count the baby lol", True),
    ("sorry autocorrect got me earlier, my wife is Karin with an i", True),
    ("Sorry, I have made a mistake, the flight is on Thursday", True),
    ("realized I told you the wrong thing earlier, it's a 2017 Honda Accord", True),
    ("I meant to ask you about the party.", False),  # a plan, not a correction
    ("Sorry to hear that!", False),  # "sorry" alone fills real chats
    ("I mean, it was fun.", False),
    ("Did I get that wrong?", False),  # a question
])
def test_what_sets_ones_own_words_right(text, right):
    assert sets_right(text) is right


def _episode(mid: str, critical: bool = False) -> Memory:
    return Memory(id=mid, kind=MemoryKind.EPISODE, text=mid, importance=0.5, stability_hours=100, created_at=START,
                  last_accessed_at=START, critical=critical)


def _belief(predicate: str, value: str) -> Belief:
    return Belief(id=f"b-{predicate}", subject="user", predicate=predicate, object=value, statement=value,
                  valid_from=START,
                  recorded_at=START, cardinality=Cardinality.ONE, memory_id="m")


def test_the_closest_episode_of_one_fact_is_the_one_set_right():
    kids, colour = _belief("family_children_count", "two kids"), _belief("prefers_colour", "blue")
    older = [(_episode("kids"), 0.6, [kids]), (_episode("colour"), 0.5, [colour])]
    assert corrected(older) == (older[0][0], kids)


@pytest.mark.parametrize("older", [
    [(_episode("two facts"), 0.6, [_belief("lives_in", "Porto"), _belief("works_at", "Acme")])],  # which one?
    [(_episode("far"), CORRECTED_SIMILARITY - 0.01, [_belief("lives_in", "Porto")])],
    [(_episode("allergy", critical=True), 0.8, [_belief("allergy", "peanuts")])],
    [(_episode("allergy"), 0.8, [_belief("allergy", "peanuts")])],  # a health fact is never guessed away
    [(_episode("closest, no fact"), 0.7, []), (_episode("a fact"), 0.6, [_belief("lives_in", "Porto")])],
])
def test_nothing_is_set_right_on_a_guess(older):
    assert corrected(older) is None




@pytest.mark.parametrize(("old", "new", "held", "query"), [
    ("I have two kids.", "oops I meant three kids, forgot to count the baby lol",
     ("family_children_count", "two kids"), "How many kids do I have?"),
    ("My wife's name is Karen.", "sorry autocorrect got me earlier, my wife is Karin with an i",
     ("family_wife", "Karen"), "What is my wife's name?"),
])
def test_with_minilm_a_fact_set_right_leaves_recall_and_stays_in_history(clock, minilm, old, new, held, query):
    engine = make_engine(clock, embedder=minilm)
    say(engine, clock, old, new)
    assert held not in {(b.predicate, b.object) for b in engine.store.current_beliefs()}
    assert held in {(b.predicate, b.object) for b in engine.store.all_beliefs()}
    assert {m.text: m.status for m in engine.store.memories()}[old] is MemoryStatus.SUPERSEDED
    block = engine.recall(query, 256, reinforce=False).block
    assert old not in block and new in block
    engine.close()


def test_with_minilm_an_allergy_is_not_set_right_by_a_guess(clock, minilm):
    engine = make_engine(clock, embedder=minilm)
    say(engine, clock, "I'm allergic to peanuts.", "acutally i got that wrong, its tree nuts im allergic to")
    assert ("allergy", "peanuts") in {(b.predicate, b.object) for b in engine.store.current_beliefs()}
    engine.close()
