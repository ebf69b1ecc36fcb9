"""Defensive parsing of model output: garbage never supersedes anything."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engram_core.core.model import Verdict
from engram_core.core.verdicts import extract_json_object, parse_assessment, parse_dream, parse_gist, parse_verdicts

IDS = ["blf_1", "blf_2"]


def test_clean_verdicts() -> None:
    raw = json.dumps({"verdicts": [{"id": "blf_1", "verdict": "supersede"}, {"id": "blf_2", "verdict": "coexist"}]})
    assert parse_verdicts(raw, IDS) == {"blf_1": Verdict.SUPERSEDE, "blf_2": Verdict.COEXIST}


def test_prose_and_code_fences_around_json() -> None:
    raw = 'Here you go:\n```json\n{"verdicts": [{"id": "blf_1", "verdict": "supersede"}]}\n```\nThanks!'
    assert parse_verdicts(raw, IDS)["blf_1"] is Verdict.SUPERSEDE
    raw = 'I think {"verdicts": [{"id": "blf_2", "verdict": "discard"}]} is right.'
    assert parse_verdicts(raw, IDS)["blf_2"] is Verdict.DISCARD


@pytest.mark.parametrize("raw", [
    None, "", "garbage", "{", '{"verdicts": [{"id": "blf_1", "verdict": "supersede"}',  # truncated
    '{"verdicts": "supersede"}', '{"verdicts": [{"id": "blf_1", "verdict": "obliterate"}]}',
    '{"verdicts": [{"id": 1, "verdict": "supersede"}]}', "[1, 2, 3]", '{"verdict": "supersede"}',
])
def test_garbage_is_undecided(raw: str | None) -> None:
    assert set(parse_verdicts(raw, IDS).values()) == {Verdict.UNDECIDED}


def test_wrong_ids_are_ignored() -> None:
    raw = json.dumps({"verdicts": [{"id": "blf_999", "verdict": "supersede"}]})
    assert parse_verdicts(raw, IDS) == {"blf_1": Verdict.UNDECIDED, "blf_2": Verdict.UNDECIDED}


def test_first_verdict_for_an_id_wins() -> None:
    raw = json.dumps({"verdicts": [{"id": "blf_1", "verdict": "coexist"}, {"id": "blf_1", "verdict": "supersede"}]})
    assert parse_verdicts(raw, IDS)["blf_1"] is Verdict.COEXIST


@given(st.text(max_size=300))
def test_any_text_parses_without_raising(raw: str) -> None:
    verdicts = parse_verdicts(raw, IDS)
    assert set(verdicts) == set(IDS)
    assessment = parse_assessment(raw, 0.5)
    assert 0 <= assessment.importance <= 1


def test_assessment_out_of_range_falls_back() -> None:
    result = parse_assessment('{"importance": 7, "facts": []}', 0.5)
    assert result.fallback and result.importance == 0.5 and result.facts == ()


def test_assessment_keeps_valid_facts_and_drops_broken_ones() -> None:
    raw = json.dumps({"importance": 0.8, "facts": [
        {"subject": "user", "predicate": "lives_in", "object": "Lisbon", "statement": "The user lives in Lisbon."},
        {"subject": "user", "predicate": "lives_in"},
        {"subject": "user", "predicate": "x", "object": "y", "statement": "s", "importance": 3},
    ]})
    result = parse_assessment(raw, 0.5)
    assert not result.fallback and result.importance == 0.8
    assert [f.object for f in result.facts] == ["Lisbon"]


def test_gist_parsing() -> None:
    assert parse_gist('{"gist": "  Trips in May.  "}') == "Trips in May."
    assert parse_gist('{"gist": ""}') is None
    assert parse_gist("nope") is None


def test_dream_rejects_hallucinated_ids() -> None:
    raw = json.dumps({"actions": [
        {"action": "forget", "ids": ["m1"]},
        {"action": "forget", "ids": ["m1", "m404"]},
        {"action": "merge", "ids": ["m1", "m2"], "text": "merged"},
        {"action": "merge", "ids": ["m1"], "text": "one id"},
        {"action": "reimportance", "ids": ["m2"]},
        {"action": "explode", "ids": ["m1"]},
    ]})
    actions, rejected = parse_dream(raw, {"m1", "m2"})
    assert [(a.action, a.memory_ids) for a in actions] == [("forget", ("m1",)), ("merge", ("m1", "m2"))]
    assert len(rejected) == 4
    assert any("m404" in r for r in rejected)


def test_extract_json_skips_non_objects() -> None:
    assert extract_json_object('[1] {"a": 1}') == {"a": 1}
