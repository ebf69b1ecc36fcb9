"""Things ended in other words: "retired from Shell", "my last day at Google", "I can't eat spicy anymore"."""

from __future__ import annotations

import pytest
from conftest import START, make_engine, say

from engram_core.core.model import Memory, MemoryKind, MemoryStatus
from engram_core.core.restatements import ENDED_SLACK, retired_by
from engram_core.core.stopping import ended_values, stopping_clauses, stopping_sentences
from engram_core.core.words import meaning

pytestmark = pytest.mark.both_stores


@pytest.mark.parametrize(("text", "stops"), [
    ("I can't eat spicy food anymore, my stomach hates it.", True),  # "can't" with "anymore" is no resolve
    ("My knees can't take running anymore so I swim instead.", True),  # the speaker's knees
    ("Dad retired from Shell last month, finally!", True),  # someone the speaker names
    ("sis dropped law, she switched to nursing.", True),
    ("Today was my last day at Google. Monday I start at a small robotics startup.", True),
    ("I handed in my notice at Deloitte, going to join my friend's design studio.", True),
    ("Left Blue Bottle, I'm managing a bakery on Elm Street now.", True),
    ("After that food poisoning I can't look at sushi.", True),
    ("I kind of grew out of Taylor Swift, I'm more into jazz now.", True),
    ("I eat meat again, vegan didn't work for me.", True),
    ("Left Paris at 6am, landing in Rome soon!", False),  # a trip, not an ending
    ("My colleague left Google last week, sad to see her go.", False),
    ("I can't quit, not now.", False),  # a resolve
    ("I wouldn't eat meat anymore if I lived alone.", False),  # only thought of
    ("Don't quit, you're nearly there!", False),  # said to someone else
    ("The kids stopped by after school.", False),  # nothing of anyone's ended
    ("You quit smoking?", False),
])
def test_what_says_a_thing_ended(text, stops):
    assert bool(stopping_sentences(text)) is stops


@pytest.mark.parametrize(("text", "things"), [
    ("Dad retired from Shell last month, finally!", [{"shell"}]),
    ("Jack quit rugby after his knee injury.", [{"rugby"}]),
    ("Today was my last day at Google.", [{"google"}]),
    ("I left Initech after six years.", [{"initech"}]),
    ("Mum's last day at the hospital is Friday.", [{"hospital"}]),
    ("I sold my guitar.", [{"guitar"}]),
    ("I quit it.", []),  # names nothing
])
def test_the_thing_an_ending_names(text, things):
    assert list(ended_values(stopping_sentences(text))) == [frozenset().union(*map(meaning, t)) for t in things]


def test_whose_ending_it_is_comes_from_the_clause_that_ends_it():
    said = stopping_sentences("I handed in my notice at Deloitte, going to join my friend's design studio.")
    assert stopping_clauses(said) == "I handed in my notice at Deloitte"


def _memory(mid: str, text: str) -> Memory:
    return Memory(id=mid, kind=MemoryKind.EPISODE, text=text, importance=0.5, stability_hours=100, created_at=START,
                  last_accessed_at=START)


def test_an_older_episode_that_says_the_ended_thing_is_retired_a_little_further_in_meaning():
    text = "Today was my last day at Google. Monday I start at a small robotics startup."
    said = stopping_clauses(stopping_sentences(text))
    ended = ended_values(stopping_sentences(text))
    near = [(_memory("job", "I work for Google in Zurich."), 0.40 - ENDED_SLACK + 0.01)]
    far = [(_memory("job", "I work for Google in Zurich."), 0.40 - ENDED_SLACK - 0.01)]
    other = [(_memory("job", "My brother works for Google."), 0.5)]  # someone else's job
    assert retired_by(text, said, near, 0.40, ended=ended) == ["job"]
    assert retired_by(text, said, far, 0.40, ended=ended) == []
    assert retired_by(text, said, other, 0.40, ended=ended) == []



def _episodes(engine) -> dict[str, MemoryStatus]:
    return {m.text: m.status for m in engine.store.memories() if m.kind is MemoryKind.EPISODE}



@pytest.mark.parametrize(("old", "new", "query"), [
    ("I'm an accountant at Deloitte.", "I handed in my notice at Deloitte, going to join my friend's design studio.",
     "Where do I work?"),
    ("Running is my thing, I do 5k every morning.", "My knees can't take running anymore so I swim instead.",
     "What exercise do I do?"),
    ("I'm a big fan of sushi.", "After that food poisoning I can't look at sushi.", "Do I like sushi?"),
])
def test_with_minilm_an_ended_thing_leaves_recall_and_stays_in_history(clock, minilm, old, new, query):
    engine = make_engine(clock, embedder=minilm)
    say(engine, clock, old, new)
    assert _episodes(engine)[old] is MemoryStatus.SUPERSEDED
    block = engine.recall(query, 256, reinforce=False).block
    assert old not in block and new in block
    engine.close()


def test_with_minilm_a_parent_retiring_ends_the_parents_job_not_the_speakers(clock, minilm):
    engine = make_engine(clock, embedder=minilm)
    say(engine, clock, "I work at Shell too.", "My dad works for Shell.",
         "Dad retired from Shell last month, finally!")
    current = {(b.subject, b.object) for b in engine.store.current_beliefs()}
    assert ("user", "Shell") in current and not any(s != "user" and o == "Shell" for s, o in current)
    assert _episodes(engine)["I work at Shell too."] is MemoryStatus.ACTIVE
    engine.close()


def test_with_minilm_a_trip_ends_no_home(clock, minilm):
    engine = make_engine(clock, embedder=minilm)
    say(engine, clock, "I live in Paris.", "Left Paris at 6am, landing in Rome soon!")
    assert _episodes(engine)["I live in Paris."] is MemoryStatus.ACTIVE
    assert ("user", "Paris") in {(b.subject, b.object) for b in engine.store.current_beliefs()}
    engine.close()
