"""The slot veto at recall: a newer message that says a single-valued slot changed keeps the older one out."""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import pytest
from conftest import START, make_engine

from engram_core.core.chattext import corrected
from engram_core.core.config import EngineConfig
from engram_core.core.model import Belief, Cardinality, Memory, MemoryKind
from engram_core.core.slots import asks_about_the_past, slot_restated, slots_changed, slots_named

pytestmark = pytest.mark.both_stores  # recall here needs no SQL


@pytest.mark.parametrize(("text", "slots"), [
    ("Moving day's over, hello Denver!", {"home"}),
    ("Doctor put me on a gluten free diet.", {"diet"}),
    ("Mum put me on the phone to grandma.", set()),  # a call, not a new number
    ("The new flat is tiny but it's ours.", {"home"}),
    ("Went freelance: I'm at my own studio now.", {"employer"}),
    ("I quit the bakery job, no more 4am starts.", {"employer"}),
    ("Started at Northwind on Monday.", {"employer"}),
    ("Ms. Adeyemi now, I went back to my maiden name.", {"name"}),
    ("My brother finished uni, now he works in a bank.", {"employer:brother"}),  # his, not the speaker's
    ("We renamed the podcast.", {"name:podcast"}),  # a thing's name is the thing's own slot
    ("We renamed the coffee shop to Grind now.", {"name:shop"}),
    ("Call me Sam now.", {"name"}),
    ("No meat for me anymore, I'm vegetarian now.", {"diet"}),
    ("If I moved to Oslo would I survive the winters?", set()),  # only thought of
    ("Someday I want to work at a zoo now that I think of it.", set()),
    ("Your new flat looks great.", set()),  # someone else's
    ("She moved to Leeds now.", set()),
    ("I also started at the gym.", set()),  # added beside, not instead
    ("Nice job, Maria! That's new to me.", set()),  # praise, not employment
    ("We hiked, swam, and made great memories.", set()),  # "hiked" is not "hired"
    ("Where do you live now?", set()),
    # "now" and "new" in passing say nothing changed
    ("My job is stressful now.", set()),
    ("The meat substitute burger was great now that I think of it.", set()),
    ("My company just launched a new app.", set()),
    ("I hired a new cleaner.", set()),
    ("I left my phone at work.", set()),
    ("I'm at work now.", set()),
    ("My diet is going well now.", set()),
    ("Its official, I am working for Santander now.", {"employer"}),  # "Its" is no "it"
    ("The company moved offices to Leeds now.", set()),  # the company's move, not the speaker's
    ("Our firm switched to a four-day week.", set()),
    ("Now I'm at the airport, flight delayed.", set()),  # where one is for an hour
    ("I've started working from home now.", set()),
    ("I started a new job search.", set()),
    ("We switched the kids' school run to dad.", set()),
    ("I changed my diet app to a new one.", set()),
    ("im at wagamama now", {"employer"}),  # a value said to hold now, in lower case
    ("hubby switched to days finally, hes on the 8 to 4 now", {"shifts:husband"}),
    ("My daughter started at Oakfield Academy now.", {"school:daughter", "employer:daughter"}),
    ("See you in two days.", set()),
    ("We moved the team offsite to Porto.", set()),  # something moved, not the speaker
    ("Now we moved the party to Saturday.", set()),
    ("We relocated the office to Leeds now.", set()),
    ("Just moved to Ponta Delgada!", {"home"}),
    ("My cousin told me she's moved to Kisumu.", set()),  # reported: the cousin's move
    ("My colleague Pieter said, 'I live in Bruges now, the commute is killing me.'", set()),
    ("I told my boss I'm moving to Leeds now.", {"home"}),  # the speaker's own, told to someone
])
def test_what_a_sentence_says_changed(text, slots):
    assert slots_changed(text) == frozenset(slots)


def test_where_one_has_been_for_years_is_home():
    assert slots_named("We've been in Toronto for six years.") == {"home"}
    assert slots_named("I've lived in New York since 2010.") == {"home"}


def test_what_an_older_message_speaks_of():
    assert slots_named("I work for the post office.") == {"employer"}
    assert slots_named("Caroline: I live in Boise with my two cats.") == {"home"}
    assert slots_named("I love live music.") == frozenset()
    assert slots_named("My sister lives in Leeds, I'm in York.") == {"home:sister"}
    assert slots_named("I'm living in Denver with my partner.") == {"home"}
    assert slots_named("Nice job on the cake!") == frozenset()


def test_a_renamed_thing_leaves_other_names_standing():
    puppy = _memory("puppy", "Our puppy goes by the name Biscuit, she is adorable.", 0)
    mine = _memory("mine", "My name is Sam Rivera.", 1)
    podcast = _memory("podcast", "The podcast is called Night Owls.", 2)
    renamed = _memory("renamed", "Renamed my podcast to Lark Hour now.", 48)
    assert slots_named(puppy.text) == {"name:puppy"} and slots_named(mine.text) == {"name"}
    assert _veto([(puppy, None), (mine, None), (podcast, None), (renamed, None)]) == {"podcast"}
    assert slots_named("I'm not sure what it's named.") == frozenset()  # no thing to tell: no slot


def test_a_fact_drawn_about_someone_leaves_when_their_change_is_told():
    fact = _memory("fact", "The user's husband works nights.", 0, kind=MemoryKind.FACT, subject="husband")
    belief = Belief("b", "husband", "work_schedule", "nights", fact.text, START, START)
    mine = _memory("mine", "I work nights too.", 1)
    new = _memory("new", "hubby switched to days finally, hes on the 8 to 4 now", 48)
    assert slots_named(fact.text) == {"shifts:husband"}
    assert _veto([(fact, belief), (mine, None), (new, None)]) == {"fact"}  # the speaker's own shifts stay


def test_a_home_got_is_a_move():
    assert slots_changed("Finally got my own place in Swansea!") == {"home"}
    assert slots_changed("Got a new flat in Leeds, moving in May.") == {"home"}


def test_a_new_employer_leaves_the_trade_standing():
    trade = _memory("trade", "I'm working as an electrician these days.", 0)
    librarian = _memory("librarian", "I work as a librarian.", 1)
    employer = _memory("employer", "I started a new job at Initech.", 48)
    also_employer = _memory("also", "Big news: I'm now working for Umbrella Labs.", 49)
    assert slots_named(trade.text) == {"occupation"} and slots_changed(employer.text) == {"employer"}
    assert _veto([(trade, None), (librarian, None), (employer, None), (also_employer, None)]) == {"employer"}


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


def _block(config: EngineConfig | None, clock, *messages: str, query: str = "Where do I live?") -> str:
    from engram_core.adapters.minilm import MiniLMEmbedder

    engine = make_engine(clock, config=config, embedder=MiniLMEmbedder())  # the shipped threshold and embedder
    for text in messages:
        clock.advance(timedelta(days=3))
        engine.observe(text)
    clock.advance(timedelta(hours=1))
    block = engine.recall(query, budget_tokens=256, reinforce=False).block
    engine.close()
    return block


def test_recall_leaves_out_the_old_home_once_a_move_is_told_in_other_words(clock):
    said = ("I'm living in Denver with my partner.", "Moving day's over, hello Austin!")
    both_off = EngineConfig(slot_veto_similarity=1.01, asked_slot_recency=False)
    assert "Denver" in _block(both_off, clock, *said)  # both vetoes off: stale
    block = _block(None, clock, *said)  # the default
    assert "Austin" in block and "Denver" not in block


@pytest.mark.parametrize(("query", "past"), [
    ("Where do I live?", False),
    ("When is my flight?", False),
    ("What do I eat these days?", False),
    ("When did I move to Austin?", True),
    ("Where did I live before?", True),
    ("Was I ever vegetarian?", True),
    ("Where was I working in 2023?", True),
    ("wher did i live", True),  # chat spelling
])
def test_what_asks_about_the_past(query, past):
    assert asks_about_the_past(query) is past


def test_a_question_about_the_past_still_finds_the_old_home(clock):
    said = ("I'm living in Denver with my partner.", "Moving day's over, hello Austin!")
    block = _block(EngineConfig(slot_veto_similarity=0.10), clock, *said, query="Where did I live before Austin?")
    assert "Denver" in block


def test_words_in_passing_leave_the_diet_standing(clock):
    said = ("I'm vegetarian, no meat or fish for me.", "The meat substitute burger was great now that I think of it.")
    assert "vegetarian" in _block(None, clock, *said, query="What do I eat?")
