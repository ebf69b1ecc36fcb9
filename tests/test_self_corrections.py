"""Setting one's own words right with no old value named: "oops I meant three kids"."""

from __future__ import annotations

import pytest
from conftest import START, make_engine, recalled, say

from engram_core.core.model import Belief, Cardinality, Memory, MemoryKind, MemoryStatus
from engram_core.core.selfcorrection import (
    CORRECTED_SIMILARITY, SWAPPED_SIMILARITY, corrected, may_set_right, sets_right, swapped_values,
)

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
    assert corrected("oops I meant three kids", older) == (older[0][0], (kids,))


@pytest.mark.parametrize("older", [
    [(_episode("I live in Porto and work at Acme."), 0.6,
      [_belief("lives_in", "Porto"), _belief("works_at", "Acme")])],  # which one?
    [(_episode("far"), CORRECTED_SIMILARITY - 0.01, [_belief("lives_in", "Porto")])],
    [(_episode("allergy", critical=True), 0.8, [_belief("allergy", "peanuts")])],
    [(_episode("allergy"), 0.8, [_belief("allergy", "peanuts")])],  # a health fact is never guessed away
    [(_episode("closest, no fact"), 0.7, []), (_episode("a fact"), 0.6, [_belief("lives_in", "Porto")])],
])
def test_nothing_is_set_right_on_a_guess(older):
    assert corrected("oops I meant three kids", older) is None


@pytest.mark.parametrize(("text", "right"), [
    ("Oops, my birthday's actually March 17.", True),
    ("Correction: it lands at 8:15 pm.", True),
    ("sorry, the wedding is in Cascais", True),
    ("My mistake, the dentist is Tuesday.", True),
    ("Flat number is 24, I mixed it up.", True),
    ("Got his name wrong, it's Mr. Papadakis.", True),
    ("Small fix: it's Schmidt, with dt.", True),
    ("it turns out our anniversary is March 13th. Can you find a place for that date?", True),
    ("Sorry to hear that, I ran 5k on Sunday.", False),  # sympathy, not a correction
    ("Sorry about the late reply, the kids were sick.", False),
    ("Did I get the date wrong?", False),  # a question
    ("The wedding is in Cascais.", False),
])
def test_softer_words_may_set_a_value_right(text, right):
    assert may_set_right(text) is right


@pytest.mark.parametrize(("old", "new", "gone"), [
    ("My flight lands at 6:40 pm.", "Correction: it lands at 8:15 pm.", {"6:40 pm"}),
    ("The wedding is in Sintra.", "sorry, the wedding is in Cascais", {"sintra"}),
    ("My dentist appointment is on Thursday.", "My mistake, the dentist is Tuesday.", {"thursday"}),
    ("My flat number is 42.", "Flat number is 24, I mixed it up.", {"42"}),  # "Flat" opening names nothing
    ("I have three kids.", "typo earlier, I have four kids", {"three"}),
    ("My apartment number is 12B.", "ugh its 21B not the other way round", {"12b"}),
    ("My flight lands at 6:40 pm.", "Sorry, it lands at 6:40 pm, not earlier", set()),  # the same value
    ("My flight lands at 6:40 pm.", "oops, spilled coffee on my laptop", set()),  # no value of that shape
])
def test_the_values_a_correction_says_anew(old, new, gone):
    assert swapped_values(old, new) == gone


def test_a_correction_with_a_new_value_retires_the_closest_episode_saying_the_old_one():
    flight, lands = _episode("My flight lands at 6:40 pm."), _belief("scheduled", "flight lands at 6:40 pm")
    other = _belief("lives_in", "Porto")
    assert corrected("Correction: it lands at 8:15 pm.", [(flight, 0.6, [lands, other])]) == (flight, (lands,))
    assert corrected("Correction: it lands at 8:15 pm.", [(flight, SWAPPED_SIMILARITY - 0.01, [lands])]) is None
    assert corrected("Correction: it lands at 8:15 pm.",
                     [(_episode("My flight lands at 6:40 pm. I'm allergic to nuts."), 0.6,
                       [lands, _belief("allergy", "nuts")])]) is None  # a health fact is never guessed away


def test_a_respelled_name_reaches_further():
    surname = _episode("My surname is spelled Thomson.")
    assert corrected("Sorry, it's Thompson with a p.", [(surname, 0.3, [])]) == (surname, ())
    assert corrected("Sorry, it's Davies with an e.", [(surname, 0.3, [])]) is None


@pytest.mark.parametrize(("old", "new", "query"), [
    ("My flight lands at 6:40 pm.", "Correction: it lands at 8:15 pm.", "What time does my flight land?"),
    ("My surname is spelled Thomson.", "Sorry, it's Thompson with a p.", "How is my surname spelled?"),
    ("The wedding is in Sintra.", "sorry, the wedding is in Cascais", "Where is the wedding?"),
    ("Our anniversary is March 3rd.", "I pulled out our marriage certificate and it turns out our anniversary is "
     "March 13th. Can you help me find a good Italian place for that date?", "When is our anniversary?"),
    # the previous message, far in meaning: a respelled name (0.14 apart), or words said to be wrong (0.33)
    ("My last name is spelled Schmitt.", "Sorry, it's Schmidt with a d.", "How is my last name spelled?"),
    ("Our anniversary is in October.", "Wrong month, it's in November.", "When is our anniversary?"),
    ("My flight lands on the ninth.", "Correction: it lands on the tenth.", "On what day does my flight land?"),
    ("I have three cats.", "I miscounted, it's four cats.", "How many cats do I have?"),
])
def test_with_minilm_a_value_set_right_leaves_recall(clock, minilm, old, new, query):
    engine = make_engine(clock, embedder=minilm)
    say(engine, clock, old, new)
    assert {m.text: m.status for m in engine.store.memories()}[old] is MemoryStatus.SUPERSEDED
    block = engine.recall(query, 256, reinforce=False).block
    assert old not in block and new in block
    engine.close()


@pytest.mark.parametrize(("old", "new"), [
    ("I ran 10k on Saturday.", "Sorry to hear that, I ran 5k on Sunday."),
    ("My flight lands at 6:40 pm.", "Sorry, my train was late, the flight is fine."),
    ("My brother lives in Leeds.", "oops, my sister lives in York"),  # another person, no older value of hers
    ("My dentist appointment is on Monday.", "Sorry, I can't chat long, my train is on Tuesday."),  # no words wrong
])
def test_with_minilm_sympathy_and_other_values_set_nothing_right(clock, minilm, old, new):
    engine = make_engine(clock, embedder=minilm)
    say(engine, clock, old, new)
    assert {m.text: m.status for m in engine.store.memories()}[old] is MemoryStatus.ACTIVE
    engine.close()


@pytest.mark.parametrize(("old", "new", "held", "query"), [
    ("I have two kids.", "oops I meant three kids, forgot to count the baby lol",
     ("family_children_count", "two kids"), "How many kids do I have?"),
    ("My wife's name is Karen.", "sorry autocorrect got me earlier, my wife is Karin with an i",
     ("family_wife", "Karen"), "What is my wife's name?"),
    ("My daughter's name is Ellie.", "I spelled it wrong, it's Elly.",  # the episode retired, its fact ends too
     ("family_daughter", "Ellie"), "How is my daughter's name spelled?"),
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


@pytest.mark.parametrize(("messages", "query", "old", "new"), [
    # a correction that shares no word with what it sets right, two messages later
    (("I'm 34, by the way, if that matters for the running plan.", "Want to do a half marathon in spring.",
      "Wait, I'm 35 actually, birthday was last week and I forgot lol."), "How old am I?", "34", "35"),
    # a day of the month said alone is a date
    (("My flight to Oslo is on the 14th, can you make a packing list?",
      "Oops, I misread the booking, it's the 17th. Same list works though."), "When is my flight to Oslo?", "14th",
     "17th"),
])
def test_with_minilm_a_soft_correction_sets_a_recent_message_right(clock, minilm, messages, query, old, new):
    block = recalled(clock, minilm, query, *messages)
    assert new in block and old not in block, block


@pytest.mark.parametrize(("messages", "query", "old", "new"), [
    (("I'm thirty-four by the way, in case it matters for the insurance question.",
      "Which is better, term or whole life insurance?",
      "Oops, I'm actually thirty-six, I keep forgetting my own birthday."),
     "How old am I?", "thirty-four", "thirty-six"),  # a number in words
    (("my gfs name is jenna, shes allergic to cats so no cat cafe dates lol", "date ideas in chicago?",
      "sry typo earlier, her names jenny lol she'd kill me"), "whats my gf called", "jenna", "jenny"),  # lower case
    (("Right, so for the insurance forms I need help with: my car's a 2016 Honda Civic, I've got one speeding ticket "
      "from two years ago. Also my cousin is getting married in Goa and I have no idea what to wear as a guest.",
      "Quick fix to what I said yesterday - I checked the logbook and it's a 2018 Civic, not the year I gave you. "
      "Also, for the wedding, is it okay to wear black?"),
     "What year is my car?", "2016", "2018"),
])
def test_with_minilm_a_correction_in_chat_words_sets_the_value_right(clock, minilm, messages, query, old, new):
    block = recalled(clock, minilm, query, *messages)
    assert new in block and old not in block, block


def test_a_day_of_the_month_said_alone_is_a_date():
    assert swapped_values("My flight to Oslo is on the 14th.", "Oops, it's the 17th.") == frozenset({"the 14th"})


def test_having_something_wrong_sets_ones_words_right():
    assert sets_right("Huge correction, and I'm mortified: I had the date completely wrong, it's the 21st of June.")
