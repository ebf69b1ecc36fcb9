"""More everyday ways of telling a change (a new name after a wedding, a job by the day it began, a band that is
"my band these days", a taste that "lost its shine") and the readings that must not happen: a nickname given in
jest, a game character's name, a show's heroine at a library, "New York" as the word "new"."""

from __future__ import annotations

import pytest
from conftest import told

from engram_core.adapters.offline.heuristics import extract_facts
from engram_core.core.chattext import normalise_chat
from engram_core.core.kin import own_changed
from engram_core.core.stopping import clause_stops
from engram_core.core.words import carries

pytestmark = pytest.mark.both_stores


def _read(text: str) -> set[tuple[str, str, str]]:
    return {(d.subject, d.predicate, d.object) for d in extract_facts(text)}


def _firm(text: str) -> set[tuple[str, str, str]]:
    return {(d.subject, d.predicate, d.object) for d in extract_facts(text) if not d.tentative}


# -- the pure rules ----------------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "fact"), [
    ("Got married on Saturday!! I'm officially Sarah Okafor, still getting used to signing it",
     ("user", "name", "Sarah Okafor")),
    ("we got hitched in vegas lol, it's Katherine Nguyen these days", ("user", "name", "Katherine Nguyen")),
    ("I legally changed my name last week - it's Kit Johnson on paper.", ("user", "name", "Kit Johnson")),
    ("The divorce went through, so I've gone back to my maiden name, Desai.", ("user", "corrects", "Desai")),
    ("I'd like to be called Alexis going forward, she/her.", ("user", "name", "Alexis")),
    ("Please use David when you talk to me.", ("user", "name", "David")),
    ("For work I chose an English name, David.", ("user", "name", "David")),
    ("Everyone knows me as Bobby.", ("user", "name", "Bobby")),
    ("handed in my notice at st vincent's, started at Kaiser Permanente on monday and the day shifts are a dream",
     ("user", "works_at", "Kaiser Permanente")),
    ("lol guess who got hired by Maersk", ("user", "works_at", "Maersk")),
    ("I joined a small fintech called Brightwave as their finance lead", ("user", "works_at", "Brightwave")),
    ("i landed a sous chef gig at The Copper Pot", ("user", "works_at", "The Copper Pot")),
    ("Doing deliveries for DoorDash instead", ("user", "works_at", "DoorDash")),
    ("got promoted off the registers, im a shift supervisor as of this week",
     ("user", "job_title", "shift supervisor")),
    ("Same firm but I'm an associate attorney now.", ("user", "job_title", "associate attorney")),
    ("my daughter quit the dental office, she's a flight dispatcher of all things",
     ("daughter", "job_title", "flight dispatcher")),
    ("I have shift to Bangalore for my new job.", ("user", "lives_in", "Bangalore")),
    ("we buy an apartment in Marseille near the sea.", ("user", "lives_in", "Marseille")),
    ("Arctic Monkeys are my band these days", ("user", "prefers_band", "Arctic Monkeys")),
    ("Mia dropped violin completely and picked up the drums.", ("mia", "hobby", "drums")),
    ("been all about jazz lately", ("user", "likes", "jazz")),
    ("I don't like Titanic either, way too long.", ("user", "dislikes", "Titanic")),  # not "Titanic either"
    ("my neighbour Gerhard plays the trumpet at 7am every saturday", ("neighbour", "hobby", "the trumpet")),
    ("My nephew just started at Oakmont Academy, it's a private school.", ("nephew", "school", "Oakmont Academy")),
])
def test_a_fact_in_everyday_words(text, fact):
    assert fact in _firm(text)


@pytest.mark.parametrize(("text", "predicate"), [
    ("my friends jokingly call me Professor cuz i wear glasses", "name"),  # a nickname in jest
    ("my brother calls me Shorty because I'm tiny", "name"),
    ("In the game I play my character is called Valkyra, she's a warrior.", "name"),
    ("my sister's wedding was lovely, it's Anna Berg now for her", "name"),  # her name, not the speaker's
    ("I'm officially Team Leader now", "name"),  # no wedding, no name
    ("please use Slack when you message me", "name"),
    ("we started at Starbucks and then walked", "works_at"),  # an outing
    ("I am in Lloyds Pharmacy, it is more close to my home.", "lives_in"),  # a workplace, not a town
    ("I picked up the kids", "hobby"),
])
def test_no_such_fact(text, predicate):
    assert not {f for f in _read(text) if f[1] == predicate and f[0] == "user"}
    assert not {f for f in _read(text) if f[1].endswith("_name")}


def test_a_name_wish_is_a_request():
    assert normalise_chat("I'd rather you call me Sam") == "please call me Sam"


def test_getting_used_to_something_is_not_the_past():
    assert ("user", "name", "Sarah Okafor") in _read("Got married!! I'm officially Sarah Okafor, still getting used "
                                                     "to it")
    assert _read("I used to live in Leeds") == set()


def test_new_york_is_no_change():
    assert own_changed("The show I'm binging has a heroine who works at the New York Public Library.") == {}
    assert own_changed("Started my new job at Arup last week.") != {}


@pytest.mark.parametrize(("clause", "stops"), [
    ("Honestly tennis lost its shine for me", True),
    ("I'm over Marvel", True),
    ("I'm over the moon", False),
])
def test_a_taste_that_lost_its_shine(clause, stops):
    assert clause_stops(clause) is stops


def test_a_short_fact_stands_in_only_with_every_word():
    source = "My daughter study medicine at University of Porto."
    assert not carries("The user's daughter studies in University of Porto.", source)  # "medicine" would be lost
    assert carries("The user's name is Dana.", "My name is Dana.")


# -- on the write path -----------------------------------------------------------------------------------------

@pytest.mark.parametrize(("old", "new", "gone", "held"), [
    ("My name is Sarah Collins.", "Got married on Saturday!! I'm officially Sarah Okafor, still getting used to it",
     "user name: Sarah Collins", "user name: Sarah Okafor"),
    ("My surname is Kowalski.", "Got married and took my husband's name, so I'm Ana Novak now.",
     "user surname: Kowalski", "user surname: Novak"),  # the full name and the surname alike
    ("Everyone knows me as Bobby.", "Nobody calls me Bobby anymore - the kids call me Rob and honestly it stuck.",
     "user name: Bobby", "user name: Rob"),
    ("I eat pretty much everything, no restrictions.", "I went fully vegan at the start of the month.",
     "user eats: no restrictions", "user diet: vegan"),
    ("I love tennis, I play every weekend.", "Honestly tennis lost its shine for me. Picked up padel with workmates.",
     "user likes: tennis", None),
])
def test_with_minilm_a_change_in_everyday_words(clock, minilm, old, new, gone, held):
    with told(clock, minilm, old, new) as (_, beliefs):
        assert beliefs[gone] is False
        assert held is None or beliefs[held] is True


@pytest.mark.parametrize(("old", "new", "query", "kept"), [
    ("I work at the Seattle Public Library as a reference librarian.",
     "The show I'm binging has a heroine who works at the New York Public Library, it's so silly and I love it.",
     "Where do I work?", "Seattle Public Library"),
    ("call me Jake", "my friends jokingly call me Professor cuz i wear glasses and read a lot",
     "What do I like to be called?", "Jake"),
    ("My daughter study medicine at University of Porto.",
     "My daughter's friend study architecture in Lisbon, they are talking on phone every day.",
     "What does my daughter study?", "medicine"),
])
def test_with_minilm_what_changes_nothing(clock, minilm, old, new, query, kept):
    with told(clock, minilm, old, new) as (engine, beliefs):
        assert all(current for fact, current in beliefs.items() if fact.startswith("user"))
        assert not engine.store.possibly_stale()
        assert kept in engine.recall(query, 256, reinforce=False).block


@pytest.mark.parametrize("text", [
    "In Brazil my aunties still call me Rafinha, is cute but only family use it.",
    "At work they all call me Sunny, only there though.",
])
def test_a_name_some_people_use_is_no_name(text):
    assert not {fact for fact in _read(text) if fact[1] == "name"}
