"""Truth maintenance on ordinary phrasing: each mis-step once seen, as a regression test.

Engines here use the offline bookkeeper (``OfflineLLM``) end to end: extraction, adjudication and
the ledger, as a new user would meet them.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from conftest import make_engine

from engram_core.core.model import MemoryStatus

pytestmark = pytest.mark.both_stores  # the use cases here need no SQL


def _say(engine, clock, *messages: str, gap: timedelta = timedelta(days=1)) -> None:
    for text in messages:
        clock.advance(gap)
        engine.observe(text)


def _current(engine, subject: str = "user") -> set[tuple[str, str]]:
    return {(b.predicate, b.object) for b in engine.beliefs() if b.subject == subject}


@pytest.fixture
def engine(clock):
    eng = make_engine(clock)
    yield eng
    eng.close()


# -- identity from "I'm <state>" and other non-names ------------------------------------------

@pytest.mark.parametrize("chatter", ["Please don't call me before 10am.", "I'm Tired.", "I'm Starving!",
                                     "I'm on my way.", "I'm Lisbon-based.", "I'm so done with this week."])
def test_chatter_never_renames_the_user(engine, clock, chatter):
    _say(engine, clock, "My name is Sam Rivera.", chatter)
    names = {o for p, o in _current(engine) if p == "name"}
    assert names == {"Sam Rivera"}
    block = engine.recall("What is my name?", 64, reinforce=False).block
    assert "name: Sam Rivera" in block and "name: Tired" not in block and "name: before" not in block


def test_the_issues_sequence_keeps_the_name(engine, clock):
    _say(engine, clock, "My name is Sam Rivera.", "Please don't call me before 10am.", "I'm Tired.")
    history = engine.history("user", "name")
    assert [b.object for b in history] == ["Sam Rivera"] and history[0].is_current()


def test_a_name_said_only_as_im_is_kept_when_none_is_held(engine, clock):
    _say(engine, clock, "I'm Priya, by the way.")
    assert ("name", "Priya") in _current(engine)
    _say(engine, clock, "I'm Chloe.")  # the wording only suggests a name: the held one stays
    assert {o for p, o in _current(engine) if p == "name"} == {"Priya"}


def test_an_explicit_rename_still_replaces_the_name(engine, clock):
    _say(engine, clock, "My name is Sam Rivera.", "Call me Dr. Sam from now on.")
    assert {o for p, o in _current(engine) if p == "name"} == {"Dr. Sam"}


# -- updates in ordinary words ------------------------------------------------------------------

@pytest.mark.parametrize(("before", "after", "predicate", "old", "new"), [
    ("I live in Lisbon.", "Just moved to Ponta Delgada!", "lives_in", "Lisbon", "Ponta Delgada"),
    ("I live in Berlin.", "We're in Hamburg now.", "lives_in", "Berlin", "Hamburg"),
    ("I live in Porto.", "Sydney's home now, the move went fine.", "lives_in", "Porto", "Sydney"),
    ("I work at Initech.", "Started at Globex on Monday.", "works_at", "Initech", "Globex"),
    ("I work at Initech.", "Got hired at Globex last week.", "works_at", "Initech", "Globex"),
    ("My project is called ECHO.", "The project is now called ABYSS.", "project_name", "ECHO", "ABYSS"),
    ("My podcast is Night Owls.", "We renamed the podcast to Early Birds.", "podcast_name", "Night Owls",
     "Early Birds"),
    ("I'm vegetarian.", "Went fully vegan last month.", "diet", "vegetarian", "vegan"),
])
def test_a_change_in_other_words_retires_the_old_value(engine, clock, before, after, predicate, old, new):
    _say(engine, clock, before, after)
    held = {o for p, o in _current(engine) if p == predicate}
    assert held == {new}, held
    assert any(b.object == old and not b.is_current() for b in engine.history("user", predicate))


def test_a_preference_given_up_in_ordinary_words_is_no_longer_current(engine, clock):
    _say(engine, clock, "I love coffee.", "I don't drink coffee anymore.")
    assert not any(o == "coffee" and not p.startswith("not:") for p, o in _current(engine))
    _say(engine, clock, "Huge fan of jazz.", "Honestly I'm over jazz these days.")
    assert not any(o == "jazz" and not p.startswith("not:") for p, o in _current(engine))


def test_a_tentative_giving_up_of_something_never_held_makes_no_belief(engine, clock):
    _say(engine, clock, "I'm so done with this week.", "Quit chocolate for good, three weeks clean.")
    assert _current(engine) == set()


def test_a_correction_replaces_the_value_it_names(engine, clock):
    _say(engine, clock, "My favourite colour is green.")
    _say(engine, clock, "Sorry, I mean blue, not green.", gap=timedelta(minutes=2))
    assert {o for p, o in _current(engine) if p == "prefers_colour"} == {"blue"}


# -- other people --------------------------------------------------------------------------------

def test_a_family_members_change_is_theirs_and_supersedes_their_old_value(engine, clock):
    _say(engine, clock, "My daughter Maya goes to Hillside Primary.",
         "Maya switched schools, she's at Oakwood Academy now.")
    assert _current(engine, "daughter") == {("school", "Oakwood Academy")}
    assert ("family_daughter", "Maya") in _current(engine)
    assert not any("Oakwood" in o or "Hillside" in o for _, o in _current(engine))  # not the user's school
    block = engine.recall("Which school does my daughter go to?", 256, reinforce=False).block
    assert "Oakwood" in block and "Hillside" not in block


def test_a_family_members_hobby_change(engine, clock):
    _say(engine, clock, "My brother plays rugby every weekend.", "My brother doesn't play rugby anymore.")
    assert not any(p == "hobby" for p, _ in _current(engine, "brother"))
    assert _current(engine) == set()


@pytest.mark.parametrize("said", [
    "My friend said she moved to Madrid.", "Tom told me he lives in Madrid now.",
    "According to my sister, she's moved to Madrid for good.", "My boss mentioned she lives in Madrid.",
    "Someone on the train said 'I live in Madrid too!'",
])
def test_what_others_said_is_not_the_users_fact(engine, clock, said):
    _say(engine, clock, "I live in Lisbon.", said)
    assert _current(engine) == {("lives_in", "Lisbon")}


# -- questions, hypotheticals, wishes and the past -------------------------------------------------

@pytest.mark.parametrize("said", [
    "Should I move to Berlin?", "Is Berlin nicer than Lisbon?", "What if I took the job in Oslo?",
    "Someday I want to live by the sea in Cadiz.", "If I had money I'd buy a house in Varna.",
    "Back when I lived in Paris I ate croissants every day.", "I lived in Bergen as a student.",
    "I used to live in Tokyo.", "As a kid I lived in Durban.", "Wud love to move to London one day.",
    "I'd kill for a flat in Rome right now.", "Maybe in future I will live in Milan, I hope.",
    "grew up in el paso tho, miss the food", "I grew up in São Paulo and was raised by my gran.",  # childhood
])
def test_questions_wishes_and_the_past_leave_the_current_value(engine, clock, said):
    _say(engine, clock, "I live in Lisbon.", said)
    current = _current(engine)
    assert current == {("lives_in", "Lisbon")}, current
    assert engine.store.get_memory(engine.memories()[-1].id).status is MemoryStatus.ACTIVE  # the episode is kept


# -- the paraphrases that once made no belief ------------------------------------------------------

@pytest.mark.parametrize(("before", "after", "predicate", "new"), [
    ("I live in Lisbon.", "I now call Madrid home.", "lives_in", "Madrid"),
    ("I work at Initech.", "My employer these days is Globex.", "works_at", "Globex"),
    ("I work at Initech.", "I've taken a job with Globex.", "works_at", "Globex"),
    ("I live in Lisbon.", "We're in Ponta Delgada now.", "lives_in", "Ponta Delgada"),
    ("I live in Lisbon.", "I settled in Madrid.", "lives_in", "Madrid"),
    ("My project is called ECHO.", "The ECHO project has been renamed ABYSS.", "project_name", "ABYSS"),
    ("My project is called ECHO.", "Our project ECHO is now ABYSS.", "project_name", "ABYSS"),
])
def test_paraphrased_updates_from_the_review_now_supersede(engine, clock, before, after, predicate, new):
    _say(engine, clock, before, after)
    assert {o for p, o in _current(engine) if p == predicate} == {new}


def test_im_at_an_org_now_only_suggests_an_employer_unless_it_is_plainly_a_company(engine, clock):
    _say(engine, clock, "I'm at Globex now.")  # an empty slot: filled
    assert _current(engine) == {("works_at", "Globex")}
    _say(engine, clock, "I'm at Gatwick now.")  # as likely a flight as a new job: the held value stays
    _say(engine, clock, "I'm at Starbucks now.")
    _say(engine, clock, "I'm at Heathrow Airport now.")
    _say(engine, clock, "I'm at Sarah's now.")
    assert _current(engine) == {("works_at", "Globex")}
    _say(engine, clock, "I'm at Initech Labs now.")  # a company word: a new employer
    assert _current(engine) == {("works_at", "Initech Labs")}


def test_an_allergy_named_in_another_clause_is_a_critical_belief(engine, clock):
    _say(engine, clock, "I can't eat shellfish, I'm allergic.")
    allergy = [b for b in engine.beliefs() if b.predicate == "allergy"]
    assert [b.object for b in allergy] == ["shellfish"]
    assert engine.get_memory(allergy[0].memory_id).critical


# -- what recall says after a change ---------------------------------------------------------------

@pytest.mark.parametrize(("before", "after", "query", "new", "old"), [
    ("I'm vegetarian.", "Went fully vegan last month.", "What is my diet?", "vegan", "vegetarian"),
    ("I'm vegan.", "Started eating fish again, pescatarian now.", "What do I eat?", "pescatarian", "vegan"),
])
def test_a_diet_change_leaves_the_old_diet_out_of_recall(engine, clock, before, after, query, new, old):
    _say(engine, clock, before, after)
    for budget in (64, 256):
        block = engine.recall(query, budget, reinforce=False).block
        assert new in block and old not in block.replace(new, ""), block


def test_a_preference_given_up_leaves_recall_saying_so(engine, clock):
    _say(engine, clock, "I love coffee.", "I don't drink coffee anymore.")
    block = engine.recall("Do I like coffee?", 64, reinforce=False).block
    assert "no longer" in block and "likes: coffee" not in block


def test_a_family_members_given_up_hobby_is_not_recalled_as_current(engine, clock):
    _say(engine, clock, "My brother plays rugby every weekend.", "My brother doesn't play rugby anymore.")
    block = engine.recall("What does my brother do at weekends?", 256, reinforce=False).block
    assert "no longer plays rugby" in block and "plays rugby every weekend" not in block


def test_a_family_members_move_is_theirs(engine, clock):
    _say(engine, clock, "I live in Lisbon.", "My sister Ana lives in Porto.", "Ana moved to Faro.")
    assert _current(engine, "sister") == {("lives_in", "Faro")}
    assert _current(engine) == {("lives_in", "Lisbon"), ("family_sister", "Ana")}


@pytest.mark.parametrize(("before", "after", "predicate", "old", "new"), [
    ("I work at Accenture.", "Left Accenture for Capgemini, better team.", "works_at", "Accenture", "Capgemini"),
    ("I work for the NHS.", "I've moved from the NHS to Bupa, the private side pays better.", "works_at", "the NHS",
     "Bupa"),
    ("I live in Berlin.", "I moved from Berlin to Munich.", "lives_in", "Berlin", "Munich"),
])
def test_a_switch_that_names_the_old_value_replaces_the_belief_that_holds_it(engine, clock, before, after,
                                                                            predicate, old, new):
    _say(engine, clock, before, after)
    current = _current(engine)
    assert (predicate, new) in current and (predicate, old) not in current


def test_a_switch_from_a_value_nobody_held_keeps_only_what_the_rules_read(engine, clock):
    _say(engine, clock, "I moved from Berlin to Munich.")  # no Berlin held: the move still says where one lives
    assert _current(engine) == {("lives_in", "Munich")}
    _say(engine, clock, "Left Accenture for Capgemini.")  # nothing held to replace: no belief from it
    assert _current(engine) == {("lives_in", "Munich")}


@pytest.mark.parametrize("idiom", ["quit chocolate for good, 3 weeks clean", "I left work for the day."])
def test_for_a_time_is_not_a_new_value(engine, clock, idiom):
    _say(engine, clock, "I love chocolate.", idiom)
    assert not any(obj in ("good", "the day", "day") for _, obj in _current(engine))


def test_quoted_words_after_said_and_a_comma_are_someone_elses(engine, clock):
    _say(engine, clock, "I live in Ghent.",
         "My colleague Pieter said, 'I live in Bruges now, the commute is killing me.'")
    assert _current(engine) == {("lives_in", "Ghent")}
