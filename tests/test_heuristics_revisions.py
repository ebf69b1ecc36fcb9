"""Revisions in everyday wording: hedged favourites, head nouns, renamed projects, time tails."""

from __future__ import annotations

from datetime import timedelta

import pytest

from engram_core.adapters.offline.adjudicate import adjudicate
from engram_core.adapters.offline.heuristics import extract_facts
from engram_core.adapters.offline.lexicon import topic_of, topic_slug
from engram_core.core.model import Belief, Cardinality

from conftest import START, make_engine


def pairs(text: str) -> set[tuple[str, str]]:
    return {(f.predicate, f.object) for f in extract_facts(text)}


@pytest.mark.parametrize(("phrase", "topic"), [
    ("dark roast coffee", "drink"),
    ("red wine with dinner", "drink"),
    ("white tea", "drink"),
    ("a mug of oolong", "drink"),
    ("chocolate ice cream", "food"),
    ("black", "colour"),
    ("the navy one", "colour"),
    ("email over phone calls", "communication"),
    ("salsa dancing", None),
])
def test_the_head_noun_names_the_topic(phrase: str, topic: str | None) -> None:
    assert topic_of(phrase) == topic


@pytest.mark.parametrize(("spoken", "slug"), [
    ("dish these days", "food"), ("Snack right now", "food"), ("film of all time", "film"),
    ("band", "band"), ("colour at the moment", "colour"), ("music genre", "music"),
])
def test_hedges_never_reach_the_topic(spoken: str, slug: str) -> None:
    assert topic_slug(spoken) == slug


@pytest.mark.parametrize(("text", "predicate", "obj"), [
    ("Nowadays I prefer dark roast coffee.", "prefers_drink", "dark roast coffee"),
    ("Lately I prefer white tea", "prefers_drink", "white tea"),
    ("My go-to snack is popcorn", "prefers_food", "popcorn"),
    ("Honestly, my favourite film right now is Heat.", "prefers_film", "Heat"),
    ("My favorite color at the moment is navy", "prefers_colour", "navy"),
    ("My preferred beverage these days is oat milk", "prefers_drink", "oat milk"),
    ("The project name is now LANTERN.", "project_name", "LANTERN"),
    ("Our project's name is Kestrel", "project_name", "Kestrel"),
    ("We moved to Tromso in the autumn.", "lives_in", "Tromso"),
    ("I relocated to Faro in June", "lives_in", "Faro"),
    ("I moved to Leeds in 2023", "lives_in", "Leeds"),
])
def test_everyday_wording_extracts_the_fact(text: str, predicate: str, obj: str) -> None:
    assert (predicate, obj) in pairs(text)


@pytest.mark.parametrize("text", [
    "The other group's project is called LANTERN.",
    "My flatmate's favourite snack is popcorn.",
    "My uncle prefers dark roast coffee.",
])
def test_other_peoples_favourites_are_not_the_users(text: str) -> None:
    assert not any(f.subject == "user" and f.predicate.startswith(("prefers", "project"))
                   for f in extract_facts(text))


@pytest.mark.parametrize(("before", "after"), [
    ("My favourite snack is pretzels", "My go-to snack these days is popcorn"),
    ("My favourite film is Alien", "Honestly my favourite film right now is Heat"),
    ("I love espresso", "These days I prefer black tea"),
    ("My favourite drink is lemonade", "Nowadays I prefer dark roast coffee"),
    ("Our project is called KESTREL", "The project name is now LANTERN"),
])
def test_hedged_revisions_supersede_the_old_value(before: str, after: str) -> None:
    (old,), (new,) = extract_facts(before), extract_facts(after)
    held = Belief("b1", old.subject, old.predicate, old.object, old.statement, START, START,
                  cardinality=old.cardinality)
    assert adjudicate(new, [held]) == {"verdicts": [{"id": "b1", "verdict": "supersede"}]}


def test_a_hedged_revision_retires_the_old_belief_in_the_store(clock) -> None:
    engine = make_engine(clock)
    try:
        engine.observe("My favourite dessert is cheesecake.")
        clock.advance(timedelta(days=9))
        engine.observe("Honestly my go-to dessert these days is tiramisu.")
        current = {b.predicate: b.object for b in engine.beliefs()}
        history = [b.object for b in engine.history("user") if b.predicate == "prefers_food"]
    finally:
        engine.close()
    assert current == {"prefers_food": "tiramisu"}
    assert history == ["cheesecake", "tiramisu"]


def test_the_cardinality_of_a_topic_favourite_is_one() -> None:
    (fact,) = extract_facts("My go-to snack is popcorn")
    assert fact.cardinality is Cardinality.ONE
