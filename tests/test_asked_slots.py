"""A question about one of the asker's own slots now ("What's my favourite show?") takes the newest memory that
states that slot as the word on it: an older one leaves the block, though the newer says no "now" or "moved"."""

from __future__ import annotations

import pytest
from conftest import make_engine, say, told

from engram_core.core.asked import asked_slots
from engram_core.core.broad_slots import slots_named_broadly
from engram_core.core.config import EngineConfig
from engram_core.core.slots import slots_named

pytestmark = pytest.mark.both_stores


@pytest.mark.parametrize(("query", "slots"), [
    ("Where do I live these days?", {"home"}),
    ("Which city does the user live in?", {"home"}),
    ("What's my daughter's school?", {"school:daughter"}),
    ("What is my favourite TV show?", {"favourite:show"}),
    ("What should you call me?", {"name"}),
    ("What diet do I follow?", {"diet"}),
    ("Where does Caroline live?", set()),  # a third person named: the chat's history, left alone
    ("Where did I live before?", set()),  # the past
    ("Was I ever vegan?", set()),
    ("Which team do I support?", {"team"}),
    ("What car do I drive now?", {"car"}),
])
def test_what_a_question_asks_about_now(query, slots):
    assert asked_slots(query) == frozenset(slots)


@pytest.mark.parametrize(("text", "slots"), [
    ("they made me store manager after the review", {"occupation"}),
    ("Now I am charge nurse of the ward", {"occupation"}),
    ("after our trip I have a new favourite food: pad thai", {"favourite:food"}),
    ("ok new fave food unlocked: khachapuri", {"favourite:food"}),
    ("Breaking Bad is my favourite TV show.", {"favourite:show"}),
    ("Cant stop watching Shogun, it is my favourite now", {"favourite"}),
    ("my bf's fav food is curry", {"favourite:food:boyfriend"}),
    ("We're settling into Austin nicely.", {"home"}),
    ("I'm with Klarna since Monday.", {"employer"}),
    ("Nestlé onboarding is a LOT of compliance training", {"employer"}),
    ("finally done w the move lol", {"home"}),
    ("I'm cheering for the Celtics now", {"team"}),
    ("Picked up the Tesla from the dealer this morning", {"car"}),
])
def test_what_a_memory_says_to_a_question_about_now(text, slots):
    assert slots_named_broadly(text) == frozenset(slots)


def test_the_broad_words_leave_the_narrow_reading_alone():
    """The write path's "an older message of that slot alone" reads narrowly: one slot here, not two."""
    assert slots_named("I am software developer in Infosys since 2019.") == {"employer"}
    assert slots_named("they made me store manager after the review") == frozenset()


@pytest.mark.parametrize(("old", "new", "query", "hidden", "shown"), [
    ("My favourite food is lasagna.", "after our trip to Bangkok I have a new favourite food: pad thai.",
     "What is my favourite food?", "lasagna", "pad thai"),
    ("My title is Marketing Coordinator.", "my boss left and they've made me Marketing Manager in her place.",
     "What is my job title?", "Coordinator", "Marketing Manager"),
    ("You can call me Liz.", "Formally requesting a change: kindly address me as Beth going forward.",
     "What should you call me?", "Liz", "Beth"),
    ("I prefer to be called Dani.", "I have transitioned and my name is now River.",
     "What name do I go by?", "Dani", "River"),
    ("I'm living in Denver with my partner.", "We're settling into Austin nicely, the neighbours brought cookies.",
     "Where do I live?", "Denver", "Austin"),
    ("I work at Unilever in the supply team.", "Nestlé onboarding is a LOT of compliance training, send help",
     "Where do I work?", "Unilever", "Nestlé"),
    ("Call me Hiro.", "I have transitioned and my name is now River, I would appreciate if you use it.",
     "What name do I go by?", "Hiro", "River"),
    ("I support Arsenal, season ticket and all.", "Moved cities and my coworkers converted me, I'm cheering for the "
     "Celtics now lol.", "Which team do I support?", "Arsenal", "Celtics"),
    ("I drive a Honda Civic.", "Picked up the Tesla Model 3 from the dealer this morning and I keep grinning.",
     "What car do I drive?", "Civic", "Tesla"),
])
def test_with_minilm_the_newest_word_on_an_asked_slot_stands(clock, minilm, old, new, query, hidden, shown):
    with told(clock, minilm, old, new) as (engine, _):
        block = engine.recall(query, 256, reinforce=False).block
    assert shown in block
    assert hidden not in block


def test_with_minilm_a_question_about_the_past_still_finds_the_older_word(clock, minilm):
    said = ("My favourite food is lasagna.", "after our trip to Bangkok I have a new favourite food: pad thai.")
    with told(clock, minilm, *said) as (engine, _):
        assert "lasagna" in engine.recall("What was my favourite food before?", 256, reinforce=False).block


def test_with_minilm_switched_off_the_older_word_stays(clock, minilm):
    engine = make_engine(clock, embedder=minilm,
                         config=EngineConfig(asked_slot_recency=False, slot_veto_similarity=1.01))
    say(engine, clock, "My favourite food is lasagna.", "after our trip I have a new favourite food: pad thai.")
    try:
        assert "lasagna" in engine.recall("What is my favourite food?", 256, reinforce=False).block
    finally:
        engine.close()


@pytest.mark.parametrize(("old", "new", "query", "kept"), [
    ("My favourite food is lasagna.", "my bf's fav food is curry, we argue about dinner constantly",
     "What is my favourite food?", "lasagna"),
    ("You can call me Kofi.", "My friends call me Professor as a joke because of my glasses.",
     "What should you call me?", "Kofi"),
    ("I follow a gluten-free diet because of celiac disease.", "My sister gave me a paleo cookbook for my birthday.",
     "What diet do I follow?", "gluten-free"),
    ("I live in Cape Town.", "As a kid I lived in Durban.", "Where do I live?", "Cape Town"),
    ("I live in Leeds.", "I'm thinking of moving to Bristol someday.", "Where do I live?", "Leeds"),
    ("I work at the Seattle Public Library.", "The show I'm binging has a heroine who works at the New York Public "
     "Library.", "Where do I work?", "Seattle Public Library"),
    ("I work at Siemens in Munich.", "I also work weekends at Café Luitpold.", "Where do I work?", "Siemens"),
    ("I'm vegan.", "In the restaurant they offered me the Mediterranean diet menu, but I don't take it.",
     "What diet do I follow?", "vegan"),
    ("I live in Lyon.", "ugh my landlord is the worst, the heating is broken again", "Where do I live?", "Lyon"),
    ("I support Arsenal.", "My brother is a huge fan of Spurs, we argue every derby.", "Which team do I support?",
     "Arsenal"),
    ("I drive a Honda Civic.", "If I win the lottery I'd test drive a Porsche.", "What car do I drive?", "Civic"),
    ("I live in Hamburg.", "as of monday i'm in Rotterdam for two weeks meeting buyers. so cold here!!",
     "Where do I live?", "Hamburg"),
    ("I'm vegan.", "Funny, I was pescatarian all through uni, ended the day I discovered kebab.",
     "What diet do I follow?", "vegan"),
    ("My husband is Arjun.", "In the movie we watched, the husband was called Vikram and he was awful.",
     "What is my husband called?", "Arjun"),
    ("Call me Rafael.", "In Brazil my aunties still call me Rafinha, is cute but only family use it.",
     "What should you call me?", "Rafael"),
])
def test_with_minilm_what_states_no_new_value_leaves_the_older_word(clock, minilm, old, new, query, kept):
    with told(clock, minilm, old, new) as (engine, _):
        assert kept in engine.recall(query, 256, reinforce=False).block
