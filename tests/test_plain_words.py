"""Ordinary sentences the bookkeeper used to misread: values cut short or made up, corrections that name
only the new value, tastes that end in other words."""

from __future__ import annotations

from datetime import timedelta

import pytest
from conftest import beliefs_after, make_engine

from engram_core.adapters.offline.heuristics import extract_facts

pytestmark = pytest.mark.both_stores


def _facts(text: str) -> set[tuple[str, str, str, bool]]:
    return {(f.subject, f.predicate, f.object, f.negated) for f in extract_facts(text)}


@pytest.mark.parametrize(("text", "expected"), [
    # a list ends where a remark on it begins
    ("I'm into bouldering now, three times a week.", {("user", "likes", "bouldering", False)}),
    ("I don't really like jazz anymore, too chaotic.", {("user", "likes", "jazz", True)}),
    ("I love pasta, pizza, and so much more.", {("user", "likes", "pasta", False), ("user", "likes", "pizza", False)}),
    # where one works is not where one lives; "from" is where one is from
    ("I'm a software engineer at a small startup in Austin.",
     {("user", "works_at", "a small startup in Austin", False), ("user", "job_title", "software engineer", False)}),
    ("I'm a nurse from Lagos.", {("user", "hometown", "Lagos", False), ("user", "job_title", "nurse", False)}),
    ("I'm a teacher in Leeds.", {("user", "lives_in", "Leeds", False), ("user", "job_title", "teacher", False)}),
    # a generic employer keeps its place; a named one does not need it
    ("I'm a barista at a café in Kreuzberg.",
     {("user", "works_at", "a café in Kreuzberg", False), ("user", "job_title", "barista", False)}),
    ("I work at Deloitte in Leeds.", {("user", "works_at", "Deloitte", False)}),
    # a rank or a new job is no home
    ("My daughter moved up to Year 4 this September.", set()),
    ("My brother moved over to Leeds General as a nurse.", set()),
    ("We moved up to Scotland in May.", {("user", "lives_in", "Scotland", False)}),
    # an adjective is no job
    ("My job is stressful now, so many double shifts.", set()),
    # a promotion with its "I" left out; a gym joined is no employer, a company is
    ("Promoted to senior dev today!!", {("user", "job_title", "senior dev", False)}),
    ("Cancelled PureGym, joined the Leisure Centre instead.", set()),
    ("I joined Google last month.", {("user", "works_at", "Google", False)}),
    # "had to" is no stative past
    ("I had to give up football because of my back.", {("user", "likes", "football", True)}),
    # a taste, whatever adverb stands before it
    ("Radiohead just doesn't do it for me these days.", {("user", "likes", "Radiohead", True)}),
])
def test_what_an_ordinary_sentence_says(text, expected):
    assert _facts(text) == expected


def test_a_stressful_job_keeps_the_nurse(engine, clock):
    held = beliefs_after(engine, clock, "I work as a nurse at the children's hospital.",
                         "My job is stressful now, so many double shifts.")
    assert held[("user", "job_title")] == [("nurse", True)]


def test_a_correction_of_the_digits_replaces_the_number(engine, clock):
    held = beliefs_after(engine, clock, "My phone number ends in 4417.", "Oops, it ends in 4471, I swapped the digits.")
    assert [value for value, current in held[("user", "phone_number")] if current] == ["4471"]


@pytest.fixture
def minilm(clock):
    """An engine with the shipped embedder: how close two messages are is the real model's say."""
    from engram_core.adapters.minilm import MiniLMEmbedder

    eng = make_engine(clock, embedder=MiniLMEmbedder())
    yield eng
    eng.close()


def _recalled(engine, clock, query: str, *messages: str) -> str:
    for text in messages:
        clock.advance(timedelta(days=1))
        engine.observe(text)
    clock.advance(timedelta(hours=1))
    return engine.recall(query, budget_tokens=256, reinforce=False).block


def test_a_correction_that_names_only_the_old_value_retires_the_message_that_said_it(minilm, clock):
    block = _recalled(minilm, clock, "When is my appointment?", "My appointment is on the 3rd.",
                      "I'm taking the bus into town on Tuesday.", "Sorry I meant the 13th, not the 3rd.")
    assert "13th" in block and "on the 3rd." not in block
    assert "Tuesday" in _recalled(minilm, clock, "What am I doing on Tuesday?")  # only the corrected one goes


def test_a_value_named_as_replaced_without_a_correction_needs_the_closeness(minilm, clock):
    block = _recalled(minilm, clock, "When do I swim?", "I go swimming on Tuesday.",
                      "The meeting is Thursday, not Tuesday.")
    assert "swimming on Tuesday" in block  # a different thing on that day: not set right


def test_make_it_sets_a_time_right(minilm, clock):
    block = _recalled(minilm, clock, "What time is the party?", "The party is at 8pm.",
                      "Make it 9pm for the party, people finish work late.")
    assert "9pm" in block and "8pm" not in block


def test_a_number_closing_its_sentence_corrects_the_held_one(engine, clock):
    held = beliefs_after(engine, clock, "My locker code is 3312.", "Nope, locker code is 3321.")
    assert [value for value, current in held[("user", "locker_code")] if current] == ["3321"]


def test_a_meeting_moved_to_another_time_leaves_the_old_time(minilm, clock):
    block = _recalled(minilm, clock, "When is my meeting with Sara?", "Meeting with Sara at 10.",
                      "Sara moved our meeting to 11.")
    assert "to 11" in block and "Sara at 10" not in block


def test_a_new_home_the_ledger_holds_keeps_the_old_words_out(minilm, clock):
    block = _recalled(minilm, clock, "Where do I live?", "I'm living with my parents in Cardiff.",
                      "Finally got my own place in Swansea!")
    assert "Swansea" in block and "Cardiff" not in block
    assert "Cardiff" in _recalled(minilm, clock, "Where did I live before Swansea?")  # history still answers


def test_a_relation_opening_the_sentence_owns_the_move(minilm, clock):
    block = _recalled(minilm, clock, "Where does my grandma live?", "My grandma lives in a care home in Bath.",
                      "Grandma moved to a new care home nearer us, in Bristol.")
    assert "Bristol" in block and "in Bath" not in block


@pytest.mark.parametrize(("text", "stops"), [
    ("I'm off coffee completely, switched to decaf tea.", True),
    ("I'm off to Berlin tomorrow.", False),
    ("I'm off work today.", False),
    ("I turned off the light.", False),
    ("I had to give up football because of my back.", True),
    ("I'll never give up!", False),
])
def test_what_says_something_of_the_speakers_stopped(text, stops):
    from engram_core.core.stopping import stopping_sentences

    assert bool(stopping_sentences(text)) is stops
