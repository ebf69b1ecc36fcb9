"""Facts in ordinary phrasing: a possessive pronoun for someone named before, a relative named once,
and the later message that replaces what they said."""

from __future__ import annotations


import pytest
from conftest import beliefs_after

from engram_core.adapters.offline.heuristics import extract_facts

pytestmark = pytest.mark.both_stores


def _facts(text: str) -> list[tuple[str, str, str]]:
    return [(d.subject, d.predicate, d.object) for d in extract_facts(text)]


@pytest.mark.parametrize(("text", "fact"), [
    ("My son is in year 5, and his favourite food is pizza.", ("son", "prefers_food", "pizza")),
    ("My daughter is in class 2B, and her allergy is kiwi.", ("daughter", "allergy", "kiwi")),
    ("My daughter is in class 2B. Her allergy is kiwi.", ("daughter", "allergy", "kiwi")),
])
def test_her_or_his_goes_on_about_the_person_named_before(text, fact):
    assert fact in _facts(text)


def test_her_is_not_read_as_he():
    assert _facts("My sister lives in Rome. Her husband is a chef.") == [("sister", "lives_in", "Rome")]


@pytest.mark.parametrize("text", ["My niece is called Sofia.", "My sister's name is Ana."])
def test_a_relative_is_named_once(text):
    [(subject, predicate, _)] = _facts(text)
    assert subject == "user" and predicate.startswith("family_")


def test_a_corrected_name_of_a_relative_leaves_no_old_name_current(engine, clock):
    held = beliefs_after(engine, clock,
                         "My niece is called Sofia.", "Small correction: my niece is Sophie, not Sofia.")
    current = [(s, o) for s, values in held.items() for o, now in values if now]
    assert current == [(("user", "family_niece"), "Sophie")]


def test_a_correction_that_opens_with_is_and_a_name_is_no_question(engine, clock):
    held = beliefs_after(engine, clock, "My husband name is Dmitri.",
                 "Excuse me, I wrote wrong. Is Dimitar, he is Bulgarian, not Russian.")
    assert held[("user", "family_husband")] == [("Dmitri", False), ("Dimitar", True)]


@pytest.mark.parametrize("text", ["Is Dimitar coming?", "Is Dimitar coming tomorrow"])
def test_a_question_opening_with_is_and_a_name_states_nothing(text):
    assert _facts(text) == []


@pytest.mark.parametrize(("text", "fact"), [
    ("our wifi network is called smithhouse lol", ("user", "wifi_network", "smithhouse")),
    ("My street is called Station Road.", ("user", "street", "Station Road")),
])
def test_a_thing_called_by_one_word_is_named_whatever_its_case(text, fact):
    assert _facts(text) == [fact]


@pytest.mark.parametrize("text", ["our band is called something", "my problem is called procrastination"])
def test_no_name_from_words_that_are_not_one(text):
    assert not [f for f in _facts(text) if f[1] in ("band", "problem")]


def test_a_rename_of_a_thing_in_lower_case_replaces_its_one_word_name(engine, clock):
    held = beliefs_after(engine, clock, "our wifi network is called smithhouse lol",
                 "renamed the wifi to fbi_van_3 bc my brother dared me")
    assert held[("user", "wifi_network")] == [("smithhouse", False), ("fbi_van_3", True)]


def test_a_rename_of_a_thing_not_held_changes_nothing(engine, clock):
    held = beliefs_after(engine, clock, "I live in Lisbon.", "renamed the cat to Pudding")
    assert held == {("user", "lives_in"): [("Lisbon", True)]}


@pytest.mark.parametrize(("text", "place"), [
    ("lol im in leeds, its grim up north they say but i like it", "leeds"),
    ("I'm in Braga, for what it's worth.", "Braga"),
    ("I'm in New York.", "New York"),
    ("She lives in Rome and I'm up in Milan, so I'm thinking we meet halfway", "Milan"),
])
def test_a_place_said_alone_after_im_in_is_a_tentative_home(text, place):
    [draft] = extract_facts(text)
    assert (draft.predicate, draft.object, draft.tentative) == ("lives_in", place, True)


@pytest.mark.parametrize("text", [
    "I'm in a meeting, back in 10.", "im in bed lol", "I'm in IT.", "I'm in Paris this week.", "I'm in love.",
    "I'm in Year 10.", "Im in the office", "Am I in Leeds?", "I'm out in the garden.", "I'm back in bed",
])
def test_im_in_something_that_is_no_home_states_no_home(text):
    assert all(d.predicate != "lives_in" for d in extract_facts(text))


def test_a_move_replaces_a_home_said_as_im_in(engine, clock):
    held = beliefs_after(engine, clock, "lol im in leeds, its grim up north they say but i like it",
                 "finaly moved to sheffield, leeds was getting way too pricy")
    assert held[("user", "lives_in")] == [("leeds", False), ("sheffield", True)]


def test_a_trip_never_replaces_a_home_held(engine, clock):
    held = beliefs_after(engine, clock, "I live in Porto.", "I'm in Madrid.")
    assert held[("user", "lives_in")] == [("Porto", True)]


def test_a_value_ends_with_no_dangling_preposition():
    assert _facts("Living in Chicago for now.") == [("user", "lives_in", "Chicago")]


def test_a_new_city_said_as_its_now_replaces_the_home(engine, clock):
    held = beliefs_after(engine, clock, "Moved to Milwaukee in June.",
                 "And now it's Minneapolis, third city in two years, I know.")
    assert held[("user", "lives_in")] == [("Milwaukee", False), ("Minneapolis", True)]


@pytest.mark.parametrize(("text", "fact"), [
    ("husband sold the civic, he got a tesla model 3", ("husband", "drives", "tesla model 3")),
    ("I got a new Toyota Corolla last week.", ("user", "drives", "Toyota Corolla")),
])
def test_a_car_got_by_its_make_is_one_driven(text, fact):
    assert fact in _facts(text)


@pytest.mark.parametrize("text", ["I got a golf umbrella", "I got a seat at the front", "I got a new phone"])
def test_a_thing_got_that_is_no_car_is_not_driven(text):
    assert all(d.predicate != "drives" for d in extract_facts(text))


@pytest.mark.parametrize(("text", "fact"), [
    ("my son doesnt play minecraft anymore, its all fortnite now", ("son", "hobby", "fortnite")),
    ("I don't drink coffee anymore. Now only tea.", ("user", "prefers_drink", "tea")),
])
def test_a_value_said_after_a_stop_takes_its_place(text, fact):
    assert fact in _facts(text)


@pytest.mark.parametrize("text", [
    "I don't play chess anymore, it's just boring now.", "I don't play chess anymore, it's fine.",
    "I don't play chess anymore, its all over now.",
])
def test_no_value_after_a_stop_from_words_that_say_how_it_is(text):
    assert all(d.negated for d in extract_facts(text) if d.predicate in ("hobby", "prefers_drink"))


def test_the_new_pastime_after_a_stop_is_current(engine, clock):
    held = beliefs_after(engine, clock, "my son is really into minecraft",
                 "my son doesnt play minecraft anymore, its all fortnite now")
    current = {o for values in held.values() for o, now in values if now}
    assert "fortnite" in current and "minecraft" not in {o for k, v in held.items() if k[1] == "likes"
                                                        for o, now in v if now}


def test_a_diet_said_after_so_is_its_own_clause(engine, clock):
    held = beliefs_after(engine, clock, "im pescatarian rn", "gave up fish too so fully veggie now")
    assert held[("user", "diet")] == [("pescatarian", False), ("veggie", True)]


def test_now_the_pet_is_called_renames_the_pet(engine, clock):
    held = beliefs_after(engine, clock, "The name of my dog is Bobik.",
                 "My children wanted other name, so now the dog is called Max.")
    assert held[("user", "pet_dog")] == [("Bobik", False), ("Max", True)]


def test_now_a_thing_is_called_leaves_another_slot_alone(engine, clock):
    held = beliefs_after(engine, clock, "The name of my dog is Bobik.", "So now the cafe is called Bean There.")
    assert held[("user", "pet_dog")] == [("Bobik", True)]


@pytest.mark.parametrize(("text", "employer"), [
    ("I work in company Unilever like accountant.", "Unilever"), ("I work for the bank Santander.", "Santander"),
])
def test_the_kind_of_workplace_then_its_name_is_the_employer(text, employer):
    assert ("user", "works_at", employer) in _facts(text)


def test_leaving_a_workplace_named_after_its_kind_for_another(engine, clock):
    held = beliefs_after(engine, clock, "I work in company Unilever like accountant.",
                 "I left Unilever, now I am accountant by Nestle.")
    assert held[("user", "works_at")] == [("Unilever", False), ("Nestle", True)]


def test_a_correction_names_the_old_value_as_spelled_now(engine, clock):
    held = beliefs_after(engine, clock, "im allergic to penicilin",
                 "wait no its amoxicillin im allergic to, not penicillin, i always mix them up")
    assert held[("user", "allergy")] == [("penicilin", False), ("amoxicillin", True)]


def test_a_correction_of_a_value_two_letters_away_changes_nothing(engine, clock):
    held = beliefs_after(engine, clock, "I live in Berlin.", "Sorry, Bern, not Bonn.")
    assert held[("user", "lives_in")] == [("Berlin", True)]


@pytest.mark.parametrize(("text", "fact"), [
    ("Inês moved to Lisbon for her master's.", ("inês", "lives_in", "Lisbon")),
    ("Zoë moved to Paris.", ("zoë", "lives_in", "Paris")),
    ("I moved to Oslo for work", ("user", "lives_in", "Oslo")),
])
def test_a_name_with_accents_is_a_person_and_a_home_ends_before_its_reason(text, fact):
    assert _facts(text) == [fact]


def test_a_sister_named_with_accents_moves(engine, clock):
    held = beliefs_after(engine, clock, "I live in Porto, and so does my sister Inês.",
                 "Inês moved to Lisbon for her master's. I'm staying in Porto.")
    assert held[("user", "lives_in")] == [("Porto", True)]
    assert [o for (s, p), v in held.items() if p == "lives_in" and s != "user" for o, now in v if now] == ["Lisbon"]


@pytest.mark.parametrize(("text", "fact"), [
    ("Still at Accenture, still tired.", ("user", "works_at", "Accenture")),
    ("I'm still at Accenture.", ("user", "works_at", "Accenture")),
])
def test_still_at_a_name_is_a_tentative_employer(text, fact):
    [draft] = extract_facts(text)
    assert ((draft.subject, draft.predicate, draft.object), draft.tentative) == (fact, True)


@pytest.mark.parametrize("text", ["At Heathrow now", "Still at the office.", "I'm still at Starbucks waiting"])
def test_at_a_place_in_passing_is_no_employer(text):
    assert all(d.predicate != "works_at" for d in extract_facts(text))


def test_a_switch_replaces_an_employer_said_as_still_at(engine, clock):
    held = beliefs_after(engine, clock,
                         "Still at Accenture, still tired.", "Left Accenture for Capgemini, better team.")
    assert held[("user", "works_at")] == [("Accenture", False), ("Capgemini", True)]


@pytest.mark.parametrize(("messages", "expected"), [
    (["My surname is Kowalski.", "Got married last month and took my husband's name, so I'm Ana Novak now."],
     [("Kowalski", False), ("Novak", True)]),
    (["My surname is Hartley.", "The divorce is final and I'm back to my maiden name, so it's Ms. Okafor now."],
     [("Hartley", False), ("Okafor", True)]),
    (["My surname is Kowalski.", "I'm Ana now, it's shorter."], [("Kowalski", True)]),  # no new surname said
])
def test_a_surname_taken_on_marriage_or_divorce_replaces_the_held_one(engine, clock, messages, expected):
    assert beliefs_after(engine, clock, *messages)[("user", "surname")] == expected


@pytest.mark.parametrize(("text", "fact"), [
    ("sis qualified as a pharmacist n moved to lloyds pharmacy", ("sister", "works_at", "lloyds pharmacy")),
    ("I moved to Bath", ("user", "lives_in", "Bath")),
    ("I moved to Bank Street", ("user", "lives_in", "Bank Street")),
])
def test_moving_to_a_workplace_is_a_new_job_not_a_new_home(text, fact):
    facts = _facts(text)
    assert fact in facts
    assert [f for f in facts if f[1] == "lives_in"] == ([fact] if fact[1] == "lives_in" else [])


def test_a_relative_who_moves_in_with_the_user_leaves_their_old_home(engine, clock):
    held = beliefs_after(engine, clock, "my gran lives in a care home in derby",
                 "gran moved in with us last week, the care home was awful")
    assert held[("grandmother", "lives_in")] == [("a care home in derby", False), ("with us", True)]


def test_going_freelance_replaces_the_employer(engine, clock):
    held = beliefs_after(engine, clock, "I work at Pentagram.", "Went freelance in January, just me and my laptop.")
    assert held[("user", "works_at")] == [("Pentagram", False), ("freelance", True)]


@pytest.mark.parametrize("text", ["I went freelance?", "if I went freelance I'd be poor"])
def test_freelance_asked_or_imagined_is_no_employer(text):
    assert _facts(text) == []


@pytest.mark.parametrize(("text", "place"), [
    ("Renting in Dallas right now, month to month.", "Dallas"),
    ("I've been renting a little flat in Turin since the start of the month", "Turin"),
])
def test_renting_in_a_town_is_living_there(text, place):
    assert _facts(text) == [("user", "lives_in", place)]


@pytest.mark.parametrize("text", ["I'm renting a car in Rome", "Renting skis in Chamonix"])
def test_renting_a_thing_is_no_home(text):
    assert _facts(text) == []
