"""The slot veto at recall: a newer message that says a single-valued slot changed keeps the older one out."""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import pytest
from conftest import START, make_engine

from engram_core.core.chattext import corrected
from engram_core.core.config import EngineConfig
from engram_core.core.model import Belief, Cardinality, Memory, MemoryKind
from engram_core.core.slots import slot_restated, slots_changed, slots_named

pytestmark = pytest.mark.both_stores  # recall here needs no SQL


@pytest.mark.parametrize(("text", "slots"), [
    ("Moving day's over, hello Denver!", {"home"}),
    ("The new flat is tiny but it's ours.", {"home"}),
    ("Went freelance: I'm at my own studio now.", {"work"}),
    ("I quit the bakery job, no more 4am starts.", {"work"}),
    ("Started at Northwind on Monday.", {"work"}),
    ("Ms. Adeyemi now, I went back to my maiden name.", {"name"}),
    ("My brother finished uni, now he works in a bank.", {"work:brother"}),  # his, not the speaker's
    ("We renamed the podcast.", {"name"}),
    ("No meat for me anymore, I'm vegetarian now.", {"diet"}),
    ("If I moved to Oslo would I survive the winters?", set()),  # only thought of
    ("Someday I want to work at a zoo now that I think of it.", set()),
    ("Your new flat looks great.", set()),  # someone else's
    ("She moved to Leeds now.", set()),
    ("I also started at the gym.", set()),  # added beside, not instead
    ("Nice job, Maria! That's new to me.", set()),  # praise, not employment
    ("We hiked, swam, and made great memories.", set()),  # "hiked" is not "hired"
    ("Where do you live now?", set()),
])
def test_what_a_sentence_says_changed(text, slots):
    assert slots_changed(text) == frozenset(slots)


def test_what_an_older_message_speaks_of():
    assert slots_named("I work for the post office.") == {"work"}
    assert slots_named("Caroline: I live in Boise with my two cats.") == {"home"}
    assert slots_named("I love live music.") == frozenset()
    assert slots_named("My sister lives in Leeds, I'm in York.") == {"home:sister"}
    assert slots_named("I'm living in Denver with my partner.") == {"home"}
    assert slots_named("Nice job on the cake!") == frozenset()


def test_real_words_are_not_read_as_typos_of_key_words():
    assert [corrected(w) for w in ("hiked", "movies", "there", "words", "chance", "bother")] == \
        ["hiked", "movies", "there", "words", "chance", "bother"]
    assert corrected("livng") == "living" and corrected("husbnd") == "husband"


def _memory(mid: str, text: str, hours: float, kind: MemoryKind = MemoryKind.EPISODE, **extra) -> Memory:
    at = START + timedelta(hours=hours)
    return Memory(id=mid, kind=kind, text=text, importance=0.5, stability_hours=100, created_at=at,
                  last_accessed_at=at, **extra)


def _veto(memories: list[tuple[Memory, Belief | None]], least: float = 0.1) -> set[str]:
    vectors = np.ones((len(memories), 4)) / 2.0  # all alike: only the slot rules decide
    texts = [m.text for m, _ in memories]
    return slot_restated(memories, vectors, least, [slots_changed(t) for t in texts], [slots_named(t) for t in texts])


def test_a_newer_change_of_the_same_slot_retires_the_older_memory_and_only_that():
    old = _memory("old", "I work for the post office.", 0)
    home = _memory("home", "I live in Boise.", 1)
    new = _memory("new", "Went freelance: I'm at my own studio now.", 48)
    assert _veto([(old, None), (home, None), (new, None)]) == {"old"}


def test_the_slot_veto_spares_other_speakers_other_people_facts_newer_and_critical_memories():
    new = _memory("new", "Went freelance: I'm at my own studio now.", 48)
    sister = _memory("sister", "My sister works at the post office.", 0)
    other = _memory("other", "Caroline: I work for the post office.", 0)
    critical = _memory("critical", "I work for the post office.", 0, critical=True)
    later = _memory("later", "I work for the post office.", 72)
    assert _veto([(sister, None), (other, None), (critical, None), (later, None), (new, None)]) == set()
    drawn = _memory("drawn", "The user works at the studio now.", 48, kind=MemoryKind.FACT)
    many = Belief("b", "user", "likes", "post", "The user likes the post office.", START, START,
                  cardinality=Cardinality.MANY)
    liked = _memory("liked", "The user works for the post office.", 0, kind=MemoryKind.FACT)
    assert _veto([(_memory("old", "I work for the post office.", 0), None), (drawn, None)]) == set()
    assert _veto([(liked, many), (new, None)]) == set()  # a fact of many values is left to the ledger
    assert _veto([(_memory("old", "I work for the post office.", 0), None), (new, None)], least=1.01) == set()


def test_same_message_parts_never_retire_each_other():
    old = _memory("old", "I work for the post office.", 0, provenance=("msg_1",))
    new = _memory("new", "Went freelance: I'm at my own studio now.", 1, provenance=("msg_1",))
    assert _veto([(old, None), (new, None)]) == set()


def _block(config: EngineConfig | None, clock, *messages: str) -> str:
    from engram_core.adapters.minilm import MiniLMEmbedder

    engine = make_engine(clock, config=config, embedder=MiniLMEmbedder())  # the shipped threshold and embedder
    for text in messages:
        clock.advance(timedelta(days=3))
        engine.observe(text)
    clock.advance(timedelta(hours=1))
    block = engine.recall("Where do I live?", budget_tokens=256, reinforce=False).block
    engine.close()
    return block


def test_recall_leaves_out_the_old_home_once_a_move_is_told_in_other_words(clock):
    said = ("I'm living in Denver with my partner.", "Moving day's over, hello Austin!")
    assert "Denver" in _block(None, clock, *said)  # the veto off (the default): stale
    block = _block(EngineConfig(slot_veto_similarity=0.10), clock, *said)
    assert "Austin" in block and "Denver" not in block
