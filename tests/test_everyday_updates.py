"""Changes said in everyday words: the later message replaces the held value, and places one only
visits (a coffee shop, a friend's home) replace nothing."""

from __future__ import annotations

import pytest
from conftest import beliefs_after

from engram_core.adapters.offline.heuristics import extract_facts

pytestmark = pytest.mark.both_stores


@pytest.mark.parametrize(("before", "after", "slot", "new", "old"), [
    ("I work at Initech.", "I'm at Globex Labs now.", "works_at", "Globex Labs", "Initech"),
    ("I drink coffee every morning.", "Lately it's all chai for me.", "prefers_drink", "chai", "coffee"),
    ("My favourite band is Coldplay.", "Favourite band these days is Radiohead.", "prefers_band", "Radiohead",
     "Coldplay"),
    ("I'm vegetarian.", "I've gone vegan.", "diet", "vegan", "vegetarian"),
    ("I'm a junior developer.", "I've been promoted to team lead.", "job_title", "team lead", "junior developer"),
    ("I'm an accountant.", "I retrained as a plumber.", "job_title", "plumber", "accountant"),
    ("I work at Aldi.", "Sainsbury's hired me!", "works_at", "Sainsbury's", "Aldi"),
    ("I'm a nurse at St Thomas.", "I transferred to the Royal London.", "works_at", "the Royal London",
     "St Thomas"),
    ("I teach at Lincoln High.", "This fall I moved over to Roosevelt Middle School.", "works_at",
     "Roosevelt Middle School", "Lincoln High"),
    ("I live in Leeds.", "We moved to Bath to be near my sister.", "lives_in", "Bath", "Leeds"),
    ("I live in London.", "After ten years away, Porto is home now.", "lives_in", "Porto", "London"),
])
def test_a_change_in_everyday_words_replaces_the_held_value(engine, clock, before, after, slot, new, old):
    held = beliefs_after(engine, clock, before, after)[("user", slot)]
    assert (new, True) in held
    assert (old, False) in held


@pytest.mark.parametrize("leaving", [
    "Amazon laid me off last week.",
    "I handed in my notice at Amazon.",
])
def test_being_let_go_ends_the_employer_without_naming_a_new_one(engine, clock, leaving):
    held = beliefs_after(engine, clock, "I work at Amazon.", leaving)
    assert not any(current for _, current in held[("user", "works_at")] if _ == "Amazon")


@pytest.mark.parametrize("visit", ["I'm at Starbucks now.", "I'm at Heathrow Airport now.", "I'm at Sarah's now.",
                                   "I'm with Sarah now.", "He laid me off."])
def test_a_place_visited_or_a_pronoun_leaves_the_employer_alone(engine, clock, visit):
    held = beliefs_after(engine, clock, "I work at Initech.", visit)
    assert held[("user", "works_at")] == [("Initech", True)]


def test_a_pet_brought_home_is_a_pet_and_a_school_is_no_town(engine, clock):
    held = beliefs_after(engine, clock, "We adopted a puppy called Luna.", "I switched schools to Oakwood Academy.")
    assert held[("user", "pet_dog")] == [("Luna", True)]
    assert held[("user", "school")] == [("Oakwood Academy", True)]
    assert ("user", "lives_in") not in held


def test_the_reason_for_a_move_is_not_the_place(engine, clock):
    held = beliefs_after(engine, clock, "We moved to Bath to be near my sister.")
    assert held[("user", "lives_in")] == [("Bath", True)]


@pytest.mark.parametrize(("before", "after", "new", "old"), [
    ("I share a two-bed flat in Glasgow with a friend from uni.",
     "I moved back in with my parents in Paisley to save for a deposit.", "Paisley", "Glasgow"),
    ("I live in Braga.", "New address: 22 Rua do Almada, Porto.", "Porto", "Braga"),
    ("We rent a tiny flat in Leith.", "Got the keys to our new place in York!", "York", "Leith"),
])
def test_a_new_home_said_by_its_keys_address_or_who_one_lives_with(engine, clock, before, after, new, old):
    assert beliefs_after(engine, clock, before, after)[("user", "lives_in")] == [(old, False), (new, True)]


@pytest.mark.parametrize("text", ["Back in 2010 I lived in Oslo.", "back in the day I lived in Oslo",
                                  "Back in college I lived in Oslo."])
def test_back_in_a_time_is_the_past_but_back_in_with_someone_is_not(engine, clock, text):
    assert ("user", "lives_in") not in beliefs_after(engine, clock, text)


def test_a_pet_that_died_is_no_longer_the_users(engine, clock):
    held = beliefs_after(engine, clock, "We have a dog named Max.", "Our dog Max passed away last week.")
    assert held[("user", "pet_dog")] == [("Max", False)]


def test_a_new_gp_replaces_the_old_one_in_the_same_slot(engine, clock):
    held = beliefs_after(engine, clock, "My GP is Dr Smith.", "My new GP is Dr Jones.")
    assert held[("user", "gp")] == [("Dr Smith", False), ("Dr Jones", True)]
    assert ("user", "new_gp") not in held


def test_a_relatives_pastime_given_up_and_another_taken_up(engine, clock):
    held = beliefs_after(engine, clock, "My brother Tom plays rugby every weekend.",
                         "Tom finally hung up his rugby boots, and now he's obsessed with rock climbing instead.")
    assert held[("brother", "hobby")] == [("rugby", False)]
    assert held[("brother", "likes")] == [("rock climbing", True)]


@pytest.mark.parametrize(("text", "fact"), [
    ("Leo has quit football.", ("leo", "likes", "football")),
    ("My brother has taken up pottery.", ("brother", "hobby", "pottery")),
    ("My son has joined the school robotics club.", ("son", "hobby", "school robotics club")),
    ("He's obsessed with rock climbing.", None),  # nobody named before "he"
])
def test_has_and_is_obsessed_keep_the_person_they_are_about(text, fact):
    facts = [(d.subject, d.predicate, d.object) for d in extract_facts(text)]
    assert facts == ([fact] if fact else [])


def test_a_town_that_is_vegan_heaven_is_no_person():
    assert not extract_facts("Paris is vegan heaven.")


@pytest.mark.parametrize(("before", "after", "food"), [
    ("No red meat for me.", "I've started eating red meat again, my iron levels were low.", "red meat"),
    ("I avoid dairy.", "Turns out I'm fine with dairy, the test came back negative.", "dairy"),
])
def test_a_food_back_on_the_menu_ends_avoiding_it(engine, clock, before, after, food):
    held = beliefs_after(engine, clock, before, after)
    assert held[("user", "avoids_food")] == [(food, False)]
    assert held[("user", "eats")] == [(food, True)]


@pytest.mark.parametrize("text", ["I avoid conflict.", "No worries for me.", "I'm fine with that."])
def test_avoiding_or_being_fine_with_what_is_no_food_says_nothing(engine, clock, text):
    assert beliefs_after(engine, clock, text) == {}


def test_cant_stand_a_favourite_any_more_retires_it(engine, clock):
    held = beliefs_after(engine, clock, "My favourite show is The Office.",
                         "Honestly I can't stand The Office these days, it's aged badly.")
    assert held[("user", "prefers_show")] == [("The Office", False)]
    assert held[("user", "dislikes")] == [("The Office", True)]


@pytest.mark.parametrize(("before", "after", "slot", "old"), [
    ("My favourite drink is Coca-Cola.", "I stopped the Coca-Cola, too much sugar.", "prefers_drink", "Coca-Cola"),
    ("I love watching football.", "I am not watching football anymore.", "likes", "watching football"),
    ("I love fantasy novels.", "Weirdly, I've gone right off fantasy this year.", "likes", "fantasy novels"),
])
def test_a_habit_stopped_retires_the_liking(engine, clock, before, after, slot, old):
    assert beliefs_after(engine, clock, before, after)[("user", slot)] == [(old, False)]


# -- a relation's "'s", a pastime begun, a label and its value, a role's new holder --------------------

@pytest.mark.parametrize(("text", "fact"), [
    ("My sister's based in Leeds.", ("sister", "lives_in", "Leeds")),
    ("My son's moved to Leeds.", ("son", "lives_in", "Leeds")),
    ("My daughter's started cello.", ("daughter", "hobby", "cello")),
    ("My son's taken up judo.", ("son", "hobby", "judo")),
    ("I started playing the drums last month.", ("user", "hobby", "drums")),
    ("Favourite show: The Office.", ("user", "prefers_show", "The Office")),
    ("My favourite band: Radiohead.", ("user", "prefers_band", "Radiohead")),
    ("My husband is Bulgarian.", ("husband", "nationality", "Bulgarian")),
])
def test_a_contraction_a_pastime_or_a_label_states_the_fact(text, fact):
    assert fact in [(d.subject, d.predicate, d.object) for d in extract_facts(text)]


@pytest.mark.parametrize("text", [
    "My sister's wedding is in May.",  # a possessive: the wedding is no home
    "I started painting the fence.",  # a chore, no pastime
    "I started running late.",
    "My new boss is Awful.",  # no name
    "I'm Bulgarian, not Russian.",  # a nationality, no name
])
def test_a_possessive_a_chore_or_a_state_states_no_such_fact(text):
    facts = [(d.subject, d.predicate) for d in extract_facts(text)]
    assert not [f for f in facts if f[1] in ("lives_in", "hobby", "name")]


def test_a_new_holder_of_a_role_replaces_the_one_named_before(engine, clock):
    held = beliefs_after(engine, clock, "My manager is Priya.", "Priya left, my new manager is Tom.")
    assert held[("manager", "name")] == [("Priya", False), ("Tom", True)]


@pytest.mark.parametrize(("before", "after", "slot", "old"), [
    ("I live in Bristol.", "We're Cardiff-based now.", "lives_in", "Bristol"),
    ("I love sushi.", "Sushi's off the menu for me now.", "likes", "sushi"),
    ("My favourite show is The Office.", "Honestly I can't stand The Office these days.", "prefers_show",
     "The Office"),
])
def test_a_change_said_in_a_set_phrase_retires_the_old_value(engine, clock, before, after, slot, old):
    assert (old, False) in beliefs_after(engine, clock, before, after)[("user", slot)]


def test_a_pastime_quit_is_said_of_the_pastime_not_of_a_job(engine, clock):
    beliefs_after(engine, clock, "I play football.", "I quit football.")
    current = {(b.predicate, b.statement) for b in engine.store.current_beliefs(subject="user")}
    assert current == {("not:hobby", "No longer so: The user plays football.")}


# -- "he" and "she" across messages ----------------------------------------------------------------

def test_she_in_a_later_message_is_whom_the_previous_one_named(engine, clock):
    held = beliefs_after(engine, clock, "my daughter plays violin in the school orchestra",
                         "she quit violin and started cello, the orchestra needed cellos")
    assert ("cello", True) in held[("daughter", "hobby")]
    assert not any(current for _, current in held[("daughter", "hobby")] if _.startswith("violin"))
    assert not [key for key in held if key[0] == "user"]


def test_she_with_nobody_named_before_is_nobodys_fact(engine, clock):
    held = beliefs_after(engine, clock, "I live in Leeds.", "She's moved to York now, and started cello.")
    assert held == {("user", "lives_in"): [("Leeds", True)]}


def test_a_correction_beside_anothers_fact_still_corrects(engine, clock):
    held = beliefs_after(engine, clock, "My husband name is Dmitri.",
                         "Excuse me, I wrote wrong. Is Dimitar, he is Bulgarian, not Russian.")
    assert held[("user", "family_husband")] == [("Dmitri", False), ("Dimitar", True)]
    assert held[("husband", "nationality")] == [("Bulgarian", True)]


# -- a diet broken, a partner left, a home said by its kind, freelance work -------------------------

@pytest.mark.parametrize(("diet", "eating"), [
    ("I am vegetarian since ten years.", "Now I eat also chicken, my doctor say I need more protein."),
    ("I'm vegan.", "I eat eggs again."),
])
def test_eating_what_a_diet_leaves_out_ends_the_diet(engine, clock, diet, eating):
    held = beliefs_after(engine, clock, diet, eating)
    assert not any(current for _, current in held[("user", "diet")])


@pytest.mark.parametrize(("diet", "eating"), [
    ("I'm pescatarian.", "I eat salmon twice a week."),
    ("I'm vegetarian.", "I eat lots of lentils."),
])
def test_eating_what_a_diet_allows_keeps_it(engine, clock, diet, eating):
    assert [current for _, current in beliefs_after(engine, clock, diet, eating)[("user", "diet")]] == [True]


@pytest.mark.parametrize(("before", "after", "slot", "new", "old"), [
    ("I'm pescatarian.", "Cut out fish too, fully vegetarian as of this month.", "diet", "vegetarian",
     "pescatarian"),
    ("I work at the council.", "I'm freelance these days.", "works_at", "freelance", "the council"),
    ("I live in Cork.", "I'm in a flat in Limerick now.", "lives_in", "Limerick", "Cork"),
    ("I live in York.", "Got my own flat in Leeds finally!", "lives_in", "Leeds", "York"),
])
def test_a_change_said_by_kind_or_label_replaces_the_old_value(engine, clock, before, after, slot, new, old):
    held = beliefs_after(engine, clock, before, after)[("user", slot)]
    assert (new, True) in held and (old, False) in held


def test_a_relative_in_a_care_home_now_has_moved(engine, clock):
    held = beliefs_after(engine, clock, "My dad lives in Cork.", "Dad's in a care home in Limerick now.")
    assert held[("father", "lives_in")] == [("Cork", False), ("Limerick", True)]


def test_a_partner_divorced_is_no_longer_one_and_a_bill_split_says_nothing(engine, clock):
    held = beliefs_after(engine, clock, "My wife is called Ana.", "Ana and I divorced last year.",
                         "Ana and I split the bill.")
    assert held[("user", "family_wife")] == [("Ana", False)]


def test_a_correction_that_says_make_that_replaces_the_time(engine, clock):
    held = beliefs_after(engine, clock, "The meeting is at 7pm on Friday.", "make that 8pm, traffic")
    assert [current for value, current in held[("user", "scheduled")] if "8pm" in value] == [True]
    assert [current for value, current in held[("user", "scheduled")] if "7pm" in value] == [False]


@pytest.mark.parametrize(("before", "after", "old"), [
    ("I like jazz.", "Jazz doesn't do it for me anymore.", "jazz"),
    ("I love running.", "My knees gave out so running's over for me.", "running"),
])
def test_a_liking_ended_in_a_set_phrase_is_no_longer_current(engine, clock, before, after, old):
    assert (old, False) in beliefs_after(engine, clock, before, after)[("user", "likes")]


def test_a_quantity_is_not_part_of_what_one_drinks(engine, clock):
    held = beliefs_after(engine, clock, "I drink a lot of coffee.", "Switched to decaf.")
    assert held[("user", "prefers_drink")] == [("coffee", False), ("decaf", True)]

