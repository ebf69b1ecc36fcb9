"""The offline bookkeeper keeps a value when a later message only seems to change it: a relative's relative
("her cousin ... she is a lawyer"), a stay ("for three weeks"), a jest, a name someone gets wrong, a word
opening a sentence ("Right now he's ...") and a title that starts with "Love"."""

from __future__ import annotations

import pytest
from conftest import told

from engram_core.adapters.offline.heuristics import extract_facts
from engram_core.core.kin import kin_changed, own_changed

pytestmark = pytest.mark.both_stores


@pytest.mark.parametrize(("old", "new", "kept"), [
    ("My wife Marta works as a nurse in the children's ward.",
     "Yesterday her cousin stopped by, she is a lawyer, very loud.", "wife job_title: nurse"),
    ("My dad lives in York, in a terraced house.",
     "Dad's staying with us here in Leeds for three weeks, first time he's come up since we moved",
     "father lives_in: York"),
])
def test_with_minilm_a_later_message_that_only_seems_to_change_it_keeps_the_value(clock, minilm, old, new, kept):
    with told(clock, minilm, old, new) as (_, beliefs):
        assert beliefs.get(kept) is True, beliefs


@pytest.mark.parametrize("text", [
    "my brother joked he's quitting to become a surf instructor in Bali",
    "Dad's staying with us here in Leeds for three weeks, first time he's come up since we moved",
    "haha my new coach keeps calling me Seamus in emails, ive given up correcting him",
])
def test_a_jest_a_stay_or_a_wrong_name_changes_no_ones_slot(text):
    assert kin_changed(text) == frozenset()
    assert own_changed(text) == {}


@pytest.mark.parametrize(("text", "wrong"), [
    ("Right now he's in Oslo for a match, and his sister Ida lives in Bergen.", "right"),
    ("Love Boat reruns are my guilty pleasure, don't judge me", "likes"),
])
def test_no_fact_from_a_word_that_only_looks_like_one(text, wrong):
    drafts = extract_facts(text)
    assert not [d for d in drafts if wrong in (d.subject, d.predicate)], drafts


@pytest.mark.parametrize(("text", "wrong"), [
    ("My aunt adopted an old greyhound, his name is Bruno. He is 11 and sleeps all day.", "aunt"),  # his, he: the dog
    ("My brother got engaged last week, her name is Mireille.", "brother name"),  # her: the fiancée
])
def test_a_he_or_she_that_cannot_mean_the_relative_is_not_theirs(text, wrong):
    said = [f"{d.subject} {d.predicate}" for d in extract_facts(text)]
    assert not [s for s in said if s.startswith(wrong) and (s.endswith(" name") or s.endswith(" age"))], said


def test_a_faith_is_no_nationality():
    assert [d.object for d in extract_facts("I am Hindu, so no beef for me.") if d.predicate == "nationality"] == []
    assert [d.object for d in extract_facts("I am Polish, from Gdansk.") if d.predicate == "nationality"] == ["Polish"]
