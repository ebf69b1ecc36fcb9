"""``engram bench truth`` and its data set; ``bench scenario`` sessions with no messages (time passing)."""

from __future__ import annotations

import json
from collections import Counter
from datetime import timedelta
from pathlib import Path

import pytest
from test_bench_smoke import bench, ok, one_line_error

from engram_bench.common import BENCH_START
from engram_bench.scenario import MESSAGE_SPACING, PROBE_DELAY, ScenarioIn, load_scenario, probe_time, scenario_turns
from engram_bench.truth_cases import CaseIn, PackedItem, judge_ledger, load_cases, spec_matches, stale
from engram_core.core.errors import ValidationError
from engram_core.core.model import Belief

T0 = BENCH_START


def _belief(subject: str, predicate: str, obj: str, current: bool = True) -> Belief:
    return Belief(id=f"b-{subject}-{predicate}-{obj}", subject=subject, predicate=predicate, object=obj,
                  statement=f"{subject} {predicate} {obj}", valid_from=T0, recorded_at=T0,
                  expired_at=None if current else T0 + timedelta(days=1))


# -- the data set ----------------------------------------------------------------------------

def test_the_shipped_cases_are_many_kinds_in_two_fixed_halves():
    cases = load_cases()
    kinds = Counter(c.kind for c in cases)
    assert len(cases) >= 300 and len(kinds) >= 12
    for kind in kinds:
        halves = Counter(c.split for c in cases if c.kind == kind)
        assert halves["dev"] > 0 and halves["heldout"] > 0
    assert {c.style for c in cases} >= {"chat", "ramble", "typo", "l2"}
    assert all(c.probe.expect for c in cases)
    assert all(1 <= m <= len(c.messages()) for c in cases for m in c.outdated)


def _case(**extra) -> CaseIn:
    base = {"id": "t-1", "kind": "relocation", "style": "chat", "split": "dev",
            "sessions": [{"gap_hours": 0, "messages": ["I live in Lisbon."]},
                         {"gap_hours": 48, "messages": ["Just moved to Madrid!"]}],
            "current": [{"subject": ["user"], "value": ["Madrid"]}],
            "replaced": [{"subject": ["user"], "value": ["Lisbon"]}],
            "outdated": [1], "probe": {"query": "Where do I live?", "expect": [["Madrid"]], "forbid": ["Lisbon"]}}
    return CaseIn.model_validate({**base, **extra})


def test_the_ledger_judge_counts_false_beliefs_retired_truths_and_caught_updates():
    case = _case()
    caught = judge_ledger(case, [_belief("user", "lives_in", "Lisbon", current=False), _belief("user", "lives_in", "Madrid")])
    assert caught.false_beliefs == () and caught.false_supersessions == () and caught.update_caught is True
    missed = judge_ledger(case, [_belief("user", "lives_in", "Lisbon"), _belief("user", "name", "Tired")])
    assert missed.false_beliefs == ("user name: Tired",) and missed.update_caught is False
    retired = judge_ledger(case, [_belief("user", "lives_in", "Madrid", current=False)])
    assert retired.false_supersessions == ("Madrid",)


def test_specs_match_by_subject_polarity_and_value():
    sister = CaseIn.model_validate({**_case().model_dump(), "current": [{"subject": ["sister"], "value": ["Porto"]}]})
    spec = sister.current[0]
    assert spec_matches(spec, _belief("sister", "lives_in", "Porto, Portugal"))
    assert spec_matches(spec, _belief("user sister", "lives_in", "Porto"))
    assert not spec_matches(spec, _belief("user", "lives_in", "Porto"))  # the user's fact is not the sister's
    negative = _case(current=[{"subject": ["user"], "value": ["coffee"], "polarity": "negative"}]).current[0]
    assert spec_matches(negative, _belief("user", "not:likes", "coffee"))
    assert not spec_matches(negative, _belief("user", "likes", "coffee"))


def test_staleness_is_a_stated_old_value_not_a_mention_of_it():
    case = _case()
    assert stale(case, [PackedItem("I live in Lisbon.", (1,))]) is True
    assert stale(case, [PackedItem("Just moved to Madrid from Lisbon!", (2,))]) is False
    assert stale(case, [PackedItem("lives in: Lisbon", (), _belief("user", "lives_in", "Lisbon"))]) is True
    assert stale(case, [PackedItem("Gist: lives in Lisbon", ())]) is True
    assert stale(_case(replaced=[], outdated=[]), [PackedItem("I live in Lisbon.", (1,))]) is None


def test_truth_smoke_reports_both_halves_every_kind_and_the_baselines(tmp_path: Path):
    report = tmp_path / "truth.json"
    out = ok(bench("truth", "--per-kind", "1", "--budgets", "64,256", "--failures", "--json", str(report)))
    for table in ("Engram's ledger after each case", "Per kind (dev", "Per kind (heldout", "Context at the probe"):
        assert table in out.stdout
    data = json.loads(report.read_text())
    cases = data["results"]["cases"]
    assert {c["split"] for c in cases} == {"dev", "heldout"} and len({c["kind"] for c in cases}) >= 12
    systems = {p["system"] for c in cases for p in c["probes"]}
    assert systems == {"B2 top-k cosine", "B2L top-k BM25", "B3 Engram"}


def test_truth_refuses_the_qwen_bookkeeper_without_a_key():
    one_line_error(bench("truth", "--per-kind", "1", "--llm", "qwen"), "Qwen Cloud key")


def test_truth_bad_case_file_is_one_clear_line(tmp_path: Path):
    bad = tmp_path / "cases.json"
    bad.write_text(json.dumps({"name": "x", "version": 1, "cases": [{"id": "a"}]}))
    one_line_error(bench("truth", "--file", str(bad)), "cases.0")


# -- scenario: a session with no messages is time passing ----------------------------------------

def _scenario(sessions: list[dict]) -> ScenarioIn:
    return ScenarioIn.model_validate({"sessions": sessions, "probes": [{"query": "q", "budget": 64}]})


def test_an_empty_session_moves_the_next_one_and_the_probes_later():
    plain = _scenario([{"gap_hours": 0, "messages": ["a"]}, {"gap_hours": 24, "messages": ["b"]}])
    waiting = _scenario([{"gap_hours": 0, "messages": ["a"]}, {"gap_hours": 24 * 30, "messages": []},
                         {"gap_hours": 24, "messages": ["b"]}])
    first, later = scenario_turns(plain, T0), scenario_turns(waiting, T0)
    assert [t.text for t in later] == ["a", "b"]
    assert later[1].at - first[1].at == timedelta(days=30)
    trailing = _scenario([{"gap_hours": 0, "messages": ["a"]}, {"gap_hours": 24 * 90, "messages": []}])
    assert probe_time(trailing, T0) == T0 + MESSAGE_SPACING + timedelta(days=90) + PROBE_DELAY
    assert probe_time(plain, T0) == first[-1].at + PROBE_DELAY  # unchanged without an empty session


def test_a_scenario_needs_some_message(tmp_path: Path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"sessions": [{"gap_hours": 1, "messages": []}],
                                "probes": [{"query": "q", "budget": 10}]}))
    with pytest.raises(ValidationError, match="no session has a message"):
        load_scenario(path)


def test_a_scenario_with_a_quiet_month_runs(tmp_path: Path):
    path = tmp_path / "quiet.json"
    path.write_text(json.dumps({"name": "quiet month", "sessions": [
        {"gap_hours": 0, "messages": ["I live in Lisbon."]}, {"gap_hours": 720, "messages": []},
        {"gap_hours": 1, "messages": ["I moved to Madrid last week."]}],
        "probes": [{"query": "Where do I live?", "budget": 64, "expect": ["Madrid"], "forbid": ["Lisbon"]}]}))
    out = ok(bench("scenario", "--file", str(path)))
    assert "quiet month" in out.stdout
