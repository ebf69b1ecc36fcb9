"""A question about someone close to the asker ("Where does my sister live?", "What's my band called?") takes the
newest word on that person's or thing's slot, as one about the asker's own does: the person may be named by
name ("my sister Ana", "Ravi, my husband") or by "she" and "he"; a sport, an instrument and a car are read from
their values."""

from __future__ import annotations

import pytest
from conftest import recalled

from engram_core.core.asked import asked_slots, named_people, states, told_of
from engram_core.core.broad_slots import slots_named_broadly

pytestmark = pytest.mark.both_stores


@pytest.mark.parametrize(("query", "slots"), [
    ("what car does my husband drive", {"car:husband"}),  # the owner comes after the slot word
    ("what does my brother do", {"occupation:brother"}),
    ("What sport does my niece play?", {"sport:niece"}),
    ("which instrument does my son play", {"instrument:son"}),
    ("what's my band called", {"name:band"}),  # a thing's name, not the asker's
    ("What's the name of my bakery?", {"name:bakery"}),
    ("What is our boat called?", {"name:boat"}),
    ("What's my maiden name?", {"name"}),
    ("What do my friends call me?", {"name"}),
    ("Where do I live with my wife?", {"home"}),  # an "I" in it: the asker's own
    ("Where does Tomasz live?", set()),
])
def test_whose_slot_a_question_asks(query, slots):
    assert asked_slots(query) == frozenset(slots)


@pytest.mark.parametrize(("text", "slot"), [
    ("My aunt Greta came for tea. She lives in Tallinn these days.", "home:aunt"),
    ("my husband drives a skoda now", "car:husband"),
    ("my wife is a paramedic now, night shifts and all", "occupation:wife"),
    ("Dad finally retired in June and the garden has never looked better", "employer:dad"),
    ("My band Copper Lanterns played a sold-out show", "name:band"),
    ("my granddaughter took up fencing this term", "sport:granddaughter"),
])
def test_what_states_someones_slot(text, slot):
    assert slot in slots_named_broadly(text)
    assert states(text, slot)


@pytest.mark.parametrize(("text", "slot"), [
    ("My aunt Greta is in Riga for a conference this week.", "home:aunt"),  # a stay
    ("my son wants to try fencing one day", "sport:son"),  # a wish
    ("My dad used to drive a Saab back in the day.", "car:dad"),  # the past
])
def test_what_does_not_state_someones_slot(text, slot):
    assert not states(text, slot)


def test_names_of_the_people_asked_about_come_from_the_texts():
    texts = ["My cousin Idris is great.", "Selin, my sister, lives in Izmir.", "my sister works a lot"]
    assert named_people([], texts, frozenset({"home:sister"})) == {"Selin": "sister"}
    assert told_of("Selin has a flat in Ankara now", {"Selin": "sister"}) == "my sister has a flat in Ankara now"
    assert told_of("my sister Selin called", {"Selin": "sister"}) == "my sister Selin called"


@pytest.mark.parametrize(("old", "new", "query", "hidden", "shown"), [
    ("My brother Tomasz lives in Gdynia near the shipyard.", "Tomasz finally has his own flat in Kraków, tiny but "
     "bright.", "Where does my brother live?", "Gdynia", "Kraków"),
    ("my husband drives a ford focus, it's falling apart", "my husband drives a tesla now, he won't shut up about it",
     "what car does my husband drive", "focus", "tesla"),
    ("My daughter Mira plays the violin in the school orchestra.", "Mira practises trumpet every evening and the "
     "neighbours are thrilled.", "What instrument does my daughter play?", "violin", "trumpet"),
    ("My band is called Paper Satellites.", "My band Harbour Lights played its first gig last night!",
     "What's my band called?", "Satellites", "Harbour Lights"),
])
def test_with_minilm_the_newest_word_on_someones_slot_stands(clock, minilm, old, new, query, hidden, shown):
    block = recalled(clock, minilm, query, old, new)
    assert shown in block
    assert hidden not in block


@pytest.mark.parametrize(("old", "new", "query", "kept"), [
    ("My sister lives in Oslo.", "My brother just moved to Bergen.", "Where does my sister live?", "Oslo"),
    ("My son plays football on Saturdays.", "My son wants to try basketball one day.",
     "What sport does my son play?", "football"),
    ("My sister Ana lives in Oslo.", "Ana is in Rome for work this week.", "Where does my sister live?", "Oslo"),
    ("My dad drives a Volvo.", "My dad used to drive a Saab back in the day.", "What car does my dad drive?", "Volvo"),
])
def test_with_minilm_what_states_nothing_new_of_them_leaves_the_older_word(clock, minilm, old, new, query, kept):
    assert kept in recalled(clock, minilm, query, old, new)
