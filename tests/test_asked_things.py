"""A question of the asker about a habit or a taste now ("Do I still play padel?") takes the newest word on the
thing it names: an older memory naming it leaves the block once a newer one says it stopped."""

from __future__ import annotations

import pytest
from conftest import recalled

from engram_core.core.asked_things import asked_things, stops

pytestmark = pytest.mark.both_stores


@pytest.mark.parametrize(("query", "things"), [
    ("Do I still play padel?", {"padel"}),
    ("am i still on tiktok", {"tiktok"}),
    ("What do I like to drink in the morning?", {"morning"}),
    ("Does Rosa still paint?", set()),  # no "I": a history the chat tells
    ("Did I use to smoke?", set()),  # the past
    ("Where do I live?", set()),  # a slot, asked of ``asked``
])
def test_what_a_question_names(query, things):
    assert asked_things(query) == frozenset(things)


@pytest.mark.parametrize(("text", "thing", "said"), [
    ("Long week, and I've given up padel completely, my wrist can't take it.", "padel", True),
    ("deleted tiktok last night, way too many hours gone", "tiktok", True),
    ("Cancelled my climbing gym membership, it was too far.", "climbing", True),
    ("I want to quit smoking before the wedding.", "smoke", False),  # a wish
    ("I stopped at the café for an espresso on the way home.", "espresso", False),  # a visit
    ("My sister said she quit padel.", "padel", False),  # someone else's words
    ("Should I give up padel?", "padel", False),  # a question
])
def test_what_says_a_thing_stopped(text, thing, said):
    assert stops(text, thing) is said


@pytest.mark.parametrize(("old", "new", "query", "hidden", "shown"), [
    ("Padel is my thing lately, I play at the club most evenings.",
     "Quick catch-up: the boiler finally got fixed, my cousin from Porto stayed for a week, work is calmer, and I "
     "cancelled my padel membership since my wrist kept flaring up. I also started a pottery class on Thursdays.",
     "Do I still play padel?", "most evenings", "cancelled my padel membership"),
    ("my evenings = tiktok scrolling till 1am lol",
     "ok so big week. landlord finally fixed the heating, i got a haircut, and i deleted tiktok on sunday bc my screen "
     "time was embarrassing. reading before bed now", "am i still on tiktok", "till 1am", "deleted tiktok"),
    ("omg i luv horror movies so much, watched 3 last nite", "ngl cant do horror anymore since the baby, gives me "
     "actual nightmares", "do i like horror films", "watched 3", "cant do horror"),
    ("Travel-wise I'm planning my annual cruise, I do one every year, love the buffets.",
     "Back from Norway, it was beautiful, but never again on a big ship. I'm done with cruises.",
     "Do I enjoy cruise holidays?", "annual cruise", "done with cruises"),
    # the kind stopped stops each thing of it
    ("Coffee is basically my personality - I'm on four double espressos a day and I've just ordered a grinder.",
     "Health stuff: my heart was doing weird fluttery things so I've cut caffeine completely, switched to rooibos.",
     "Do I drink coffee?", "double espressos", "cut caffeine"),
])
def test_with_minilm_the_newest_word_on_a_thing_stands(clock, minilm, old, new, query, hidden, shown):
    block = recalled(clock, minilm, query, old, new)
    assert shown in block
    assert hidden not in block


@pytest.mark.parametrize(("old", "new", "query", "kept"), [
    ("I drink two espressos every morning, can't start the day without.",
     "I stopped at the café on the way home for an espresso and a chat.", "Do I still drink espresso?",
     "two espressos"),
    ("I'm obsessed with padel, four evenings a week at the club.", "My brother quit padel after his knee surgery.",
     "Do I still play padel?", "four evenings a week"),
])
def test_with_minilm_what_stops_nothing_of_mine_leaves_the_older_word(clock, minilm, old, new, query, kept):
    assert kept in recalled(clock, minilm, query, old, new)
