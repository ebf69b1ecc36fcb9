"""Values read by shape, attributes stated as a value, and corrections that say only the new value."""

from __future__ import annotations


import pytest
from conftest import beliefs_after

from engram_core.adapters.offline.heuristics import extract_facts
from engram_core.core.people import CORRECTION
from engram_core.core.values import Shape, replace_value, shape_of, values_in

pytestmark = pytest.mark.both_stores


@pytest.mark.parametrize(("value", "shape"), [
    ("the 12th of May", Shape.DATE), ("july 17", Shape.DATE), ("25 of March", Shape.DATE),
    ("August 2031", Shape.DATE), ("Thursday", Shape.WEEKDAY), ("5pm", Shape.TIME), ("10:30", Shape.TIME),
    ("94107", Shape.NUMBER), ("shadowfox99", Shape.HANDLE), ("fbi_van_3", Shape.HANDLE),
    ("Mr. Shah", Shape.NAME), ("Windrush Way", Shape.NAME),
    ("a blue Golf", None), ("green", None), ("meeting with the bank on Monday", None),
])
def test_a_whole_value_has_one_shape_or_none(value, shape):
    assert shape_of(value) is shape


def test_values_are_read_once_by_their_most_specific_shape():
    found = [(v.shape, v.text) for v in values_in("Sorry, is not 15, is 25 of March at 5pm.")]
    assert found == [(Shape.NUMBER, "15"), (Shape.DATE, "25 of March"), (Shape.TIME, "5pm")]


@pytest.mark.parametrize(("held", "new", "expected"), [
    ("flight to Athens is on Tuesday", "Thursday", "flight to Athens is on Thursday"),
    ("july 17", "july 27", "july 27"),
    ("Mr. Patel", "Mr. Shah", "Mr. Shah"),
    ("4471", "4417", "4417"),
    ("4471", "4471", None),  # the same value corrects nothing
    ("Lisbon", "4417", None),  # no value of that shape
    ("Monday or Tuesday", "Thursday", None),  # two of that shape: which one is unclear
])
def test_a_value_of_the_same_shape_takes_the_held_ones_place(held, new, expected):
    assert replace_value(held, new) == expected


@pytest.mark.parametrize(("text", "predicate", "obj"), [
    ("my zip is 94107", "zip", "94107"),
    ("Our anniversary is on the 12th of May.", "anniversary", "the 12th of May"),
    ("my phone number ends in 4471", "phone_number", "4471"),
    ("Our street is Station Road.", "street", "Station Road"),
    ("My small company has the name Petrov Transport.", "small_company", "Petrov Transport"),
    ("My appointment in the immigration office is 15 of March.", "appointment", "15 of March"),
    ("I'm a Scorpio.", "zodiac_sign", "Scorpio"),
    ("The name of my dog is Bobik.", "pet_dog", "Bobik"),
])
def test_an_attribute_stated_as_a_value_is_a_fact(text, predicate, obj):
    assert [(d.predicate, d.object) for d in extract_facts(text)] == [(predicate, obj)]


@pytest.mark.parametrize("text", [
    "My favourite colour is green.",  # no shape: the table's rules or nothing
    "My sister is Italian.",  # a person, not an attribute (her nationality is her own fact)
    "my problem is 2 kids and no time",
    "Is my flight at 5pm?",
    "If my zip was 94107, would that change the price?",
])
def test_no_attribute_from_words_that_state_none(text):
    assert all(d.predicate not in {"colour", "favourite_colour", "sister", "problem", "flight", "zip"}
               or d.subject != "user" for d in extract_facts(text))


@pytest.mark.parametrize(("text", "value", "slot"), [
    ("nvm its july 27 lol", "july 27", ""),
    ("Sorry, Mr. Shah. Patel is my old boss.", "Mr. Shah", ""),
    ("ugh typo, ends in 4417", "4417", ""),
    ("Sorry, is not 15, is 25 of March.", "25 of March", ""),
    ("lol no its the 3rd of july, june is his mums", "the 3rd of july", ""),
    ("The council renamed our street, it's Windrush Way now.", "Windrush Way", "council street"),
])
def test_a_correction_may_say_only_its_new_value(text, value, slot):
    [draft] = extract_facts(text)
    assert (draft.predicate, draft.object, draft.slot) == (CORRECTION, value, slot)


@pytest.mark.parametrize("text", [
    "Actually, I went to Rome with Ana.",  # a story, not a correction: a fact of its own or none
    "Sorry to hear that, Mr. Shah.",
    "No, I think so.",
    "Wait, is it July 27?",
])
def test_no_bare_correction_without_an_opening_and_a_value_right_after_it(text):
    assert all(d.predicate != CORRECTION or d.replaces for d in extract_facts(text))


@pytest.mark.parametrize(("messages", "slot", "expected"), [
    (["my birthday is july 17", "nvm its july 27 lol"], ("user", "birthday"), [("july 17", False), ("july 27", True)]),
    (["my zip is 94107", "oops 94110 not 94107"], ("user", "zip"), [("94107", False), ("94110", True)]),
    (["My boss is called Mr. Patel.", "Sorry, Mr. Shah. Patel is my old boss."], ("boss", "name"),
     [("Mr. Patel", False), ("Mr. Shah", True)]),
    (["Our street is Station Road.", "The council renamed our street, it's Windrush Way now."], ("user", "street"),
     [("Station Road", False), ("Windrush Way", True)]),
    (["My flight to Athens is on Tuesday.", "Wait, I mean Thursday, not Tuesday."], ("user", "scheduled"),
     [("flight to Athens is on Tuesday", False), ("flight to Athens is on Thursday", True)]),
])
def test_the_new_value_supersedes_the_held_one_of_its_shape(engine, clock, messages, slot, expected):
    assert beliefs_after(engine, clock, *messages)[slot] == expected


def test_a_slot_the_sentence_does_not_name_is_left_alone(engine, clock):
    held = beliefs_after(engine, clock, "Our street is Station Road.", "My cat is called Biscuit.",
                 "We renamed the cat Pudding, Biscuit never suited her.")
    assert held[("user", "street")] == [("Station Road", True)]


def test_a_bare_correction_with_nothing_of_its_shape_makes_no_belief(engine, clock):
    held = beliefs_after(engine, clock, "I live in Lisbon.", "nvm its july 27 lol")
    assert held == {("user", "lives_in"): [("Lisbon", True)]}


@pytest.mark.parametrize("text", ["nvm its july 27", "I gave up chess."])
def test_remember_keeps_the_text_when_its_facts_change_nothing_held(engine, text):
    """An explicit remember stores its facts in place of its text; a fact that the ledger will not
    hold (a correction or a give-up of nothing held) must not take the text with it."""
    engine.remember(text, importance=0.6)
    assert [m.text for m in engine.store.memories()] == [text]


@pytest.mark.parametrize(("text", "expected"), [
    # The subject left out is still the sister.
    ("sis qualified as a pharmacist n moved to lloyds pharmacy, so proud of her",
     [("sister", "job_title", "pharmacist"), ("sister", "works_at", "lloyds pharmacy")]),
    ("Dropped paleo. I eat grains and beans again and feel way better.",
     [("user", "eats", "grains"), ("user", "eats", "beans")]),  # "feel way better" is no food
    ("Honestly I can't stand The Office these days, it's aged badly.", [("user", "dislikes", "The Office")]),
])
def test_list_items_and_left_out_subjects_are_read_asbeliefs_after(text, expected):
    assert [(d.subject, d.predicate, d.object) for d in extract_facts(text) if not d.negated] == expected


@pytest.mark.parametrize("text", [
    "My mum called, just moved to Madrid!",  # a move, read by the table's rules or not at all: no rename
    "My children wanted another name, so now the dog is called Max.",
])
def test_a_rename_never_names_a_person_as_its_slot(text):
    for draft in extract_facts(text):
        assert draft.predicate != CORRECTION or not {"mum", "children", "child"} & set((draft.slot or "").split())


@pytest.mark.parametrize(("text", "expected"), [
    ("My grandad lives in Cork.", [("grandfather", "lives_in", "Cork")]),
    ("Grandad's moved into a flat in Limerick.", [("grandfather", "lives_in", "Limerick")]),
    ("Now I am staying in Kumasi alone, I have my own room.", [("user", "lives_in", "Kumasi")]),
    ("this week I started at a small climate nonprofit called Terrafund", [("user", "works_at", "Terrafund")]),
    ("I started a band called The Static.", []),  # a band is no employer
])
def test_more_ways_to_say_where_someone_lives_and_works(text, expected):
    assert [(d.subject, d.predicate, d.object) for d in extract_facts(text)] == expected


@pytest.mark.parametrize(("text", "switch"), [
    ("Left Deloitte. KPMG since last week.", ("KPMG", "Deloitte")),
    ("I left Unilever, now I am accountant by Nestle.", ("Nestle", "Unilever")),
    ("My sister left Rome and moved to Paris.", None),  # the sister's move, not the user's switch
    ("I left Berlin and never looked back, Anna stayed.", None),  # nothing new named there
])
def test_a_switch_told_in_two_steps_names_the_old_value_and_the_new(text, switch):
    found = [(d.object, d.replaces) for d in extract_facts(text) if d.predicate == CORRECTION]
    assert found == ([switch] if switch else [])


def test_a_switch_told_in_two_steps_replaces_the_employer(engine, clock):
    held = beliefs_after(engine, clock, "My employer is Deloitte.", "Left Deloitte. KPMG since last week.")
    assert held[("user", "works_at")] == [("Deloitte", False), ("KPMG", True)]


@pytest.mark.parametrize(("text", "expected"), [
    ("Mum retired at last.", [("mother", "job_title", "retired", False)]),
    ("Ravi graduated and works at Infosys now.", [("ravi", "works_at", "Infosys", False),
                                                  ("ravi", "job_title", "student", True)]),
    ("I graduated in 2010.", []),  # long ago: no student status ends now
    ("We've been in Rotterdam since spring, I forgot to tell you.", [("user", "lives_in", "Rotterdam", False)]),
    ("I've been in Paris since Tuesday.", []),  # a trip, not a home
    ("new flat in peckham!! got the keys yesterday", [("user", "lives_in", "peckham", False)]),
])
def test_ends_and_moves_in_other_words(text, expected):
    assert [(d.subject, d.predicate, d.object, d.negated) for d in extract_facts(text)] == expected


def test_a_graduation_ends_only_the_student_status(engine, clock):
    held = beliefs_after(engine, clock, "My cousin Ravi is a student.", "Ravi graduated and works at Infosys now.")
    assert held[("cousin", "job_title")] == [("student", False)]
    assert held[("cousin", "works_at")] == [("Infosys", True)]


@pytest.mark.parametrize(("text", "expected"), [
    ("Not into running anymore, my knees hate it. Swimming instead.",
     [("likes", "running", True), ("likes", "Swimming", False)]),
    ("clubbing isnt for me anymore, prefer a quiet pub tbh", [("prefers", "a quiet pub", False)]),
    ("I don't play chess more, it is not interesting for me now.", [("hobby", "chess", True)]),
    ("I don't want more, thanks.", []),
    ("I don't like beer anymore, now I drink only water.",
     [("likes", "beer", True), ("prefers_drink", "water", False)]),
])
def test_a_preference_given_up_and_the_one_taken_up(text, expected):
    assert [(d.predicate, d.object, d.negated) for d in extract_facts(text)] == expected


@pytest.mark.parametrize(("messages", "slot", "expected"), [
    (["Our band's called The Static.", "We're The Signals now, long story."], ("user", "band_name"),
     [("The Static", False), ("The Signals", True)]),
    (["my gamer tag is shadowfox99", "changed my gamertag to nightowl_77, shadowfox was so 2015"],
     ("user", "gamer_tag"), [("shadowfox99", False), ("nightowl_77", True)]),
])
def test_a_rename_by_we_or_in_one_word_finds_its_slot(engine, clock, messages, slot, expected):
    assert beliefs_after(engine, clock, *messages)[slot] == expected


def test_we_with_no_name_renames_nothing(engine, clock):
    held = beliefs_after(engine, clock, "Our band's called The Static.", "We're tired now.")
    assert held[("user", "band_name")] == [("The Static", True)]


@pytest.mark.parametrize(("text", "expected"), [
    ("Vegetarian, by the way.", [("diet", "Vegetarian")]),  # a diet said alone is no name
    ("Not raw anymore, just regular vegan.", [("diet", "vegan")]),
    ("I am fine, just tired.", []),
])
def test_a_diet_said_alone(text, expected):
    assert [(d.predicate, d.object) for d in extract_facts(text) if not d.negated] == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("Dentist on Friday at 9:30.", [("scheduled", "Dentist on Friday at 9:30")]),
    ("Dinner at 8 is fine.", []),  # no day: nothing scheduled
    ("my allergies are shellfish, eggs and kiwi",
     [("allergy", "shellfish"), ("allergy", "eggs"), ("allergy", "kiwi")]),
])
def test_engagements_and_allergies_said_plainly(text, expected):
    assert [(d.predicate, d.object) for d in extract_facts(text)] == expected


def test_turns_out_corrects_the_time_of_the_engagement(engine, clock):
    held = beliefs_after(engine, clock, "Dentist on Friday at 9:30.",
                 "Turns out the dentist is at 10:30, I misread the card.")
    assert held[("user", "scheduled")] == [("Dentist on Friday at 9:30", False),
                                           ("Dentist on Friday at 10:30", True)]


@pytest.mark.parametrize("other", ["The other team's project is called QUARTZ.", "Their project is QUARTZ now."])
def test_someone_elses_name_for_a_thing_renames_nothing_of_the_users(engine, clock, other):
    held = beliefs_after(engine, clock, "My project is called MERIDIAN.", other)
    assert held[("user", "project_name")] == [("MERIDIAN", True)]


def test_a_value_that_opens_a_new_thought_corrects_nothing(engine, clock):
    held = beliefs_after(engine, clock,
                         "My flight to Athens is on Tuesday.", "No, Thursday works better for the meeting.")
    assert held[("user", "scheduled")] == [("flight to Athens is on Tuesday", True)]
