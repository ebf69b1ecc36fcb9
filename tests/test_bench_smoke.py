"""Every ``engram bench`` suite runs end to end on a tiny input in seconds (the full runs are not here).

Figures are measured, never asserted as performance; these tests check that each
suite runs, reports every system, writes JSON and plots, and that its metrics
mean what they say on inputs small enough to reason about.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from engram_core.adapters.hashing import HashingEmbedder
from engram_core.adapters.tokens import ConservativeTokenCounter
from engram_bench.baselines import ENGRAM, ENGRAM_NO_FORGETTING, ENGRAM_SLEEP, EngramSystem, Turn, all_systems
from engram_bench.common import CachingEmbedder
from engram_bench.conversations import load_dataset, normalise_evidence
from engram_bench.personas import make_personas
from engram_bench.scenario import ProbeIn, judge
from engram_core.core.config import EngineConfig
from engram_core.core.errors import ValidationError
from engram_core.core.model import EventKind, MemoryKind

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
SYSTEMS = ["B0 no memory", "B1 full history", "B2 top-k cosine", "B2L top-k BM25", "B2H top-k hybrid (RRF)", ENGRAM,
           ENGRAM_NO_FORGETTING]
AT = datetime(2025, 3, 1, 10, tzinfo=timezone.utc)


def bench(*args: str, env_extra: dict | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "ENGRAM_EMBEDDER": "hashing", **(env_extra or {})}
    return subprocess.run([sys.executable, "-m", "engram_core.cli.main", "bench", *args], env=env,
                          capture_output=True, text=True, timeout=300, cwd=ROOT)


def ok(out: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    return out


def one_line_error(out: subprocess.CompletedProcess, *needles: str) -> None:
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("engram: error:"), out.stderr
    for needle in needles:
        assert needle in lines[0]


# -- retrieval ------------------------------------------------------------------------

def test_retrieval_generic_format_reports_every_system(tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    out = ok(bench("retrieval", "--data", str(FIXTURES / "bench-conversations.json"), "--budgets", "64,2048",
                   "--json", str(report)))
    assert "Evidence recall" in out.stdout
    data = json.loads(report.read_text())
    assert sorted(data["results"]) == sorted(SYSTEMS)
    assert data["settings"]["questions"] == 3  # the question without evidence is not asked
    assert data["results"]["B0 no memory"]["2048"]["overall"]["recall"] == 0.0
    # seven short turns fit in 2,048 tokens: the whole history holds every evidence turn
    assert data["results"]["B1 full history"]["2048"]["overall"]["recall"] == 1.0
    for system in SYSTEMS:
        assert data["results"][system]["64"]["overall"]["tokens"] <= 64
    latency = next(t for t in data["tables"] if t["title"].startswith("Recall wall time"))
    assert sorted(row[0] for row in latency["rows"]) == sorted(SYSTEMS)
    assert all(row[1] == 3 * 2 and 0 <= row[2] <= row[3] for row in latency["rows"])  # 3 questions, 2 budgets


def test_retrieval_with_sleep_adds_engram_sleeping_nightly(tmp_path: Path) -> None:
    report = tmp_path / "s.json"
    ok(bench("retrieval", "--data", str(FIXTURES / "bench-conversations.json"), "--budgets", "512", "--sleep",
             "--json", str(report)))
    data = json.loads(report.read_text())
    assert sorted(data["results"]) == sorted([*SYSTEMS, ENGRAM_SLEEP]) and data["settings"]["nightly_sleep"] is True
    assert data["results"][ENGRAM_SLEEP]["512"]["overall"]["tokens"] <= 512


def test_nightly_sleep_runs_the_sleep_cycle_once_for_each_new_day() -> None:
    def sleeps(system: EngramSystem) -> int:
        return sum(1 for e in system.engine.events(limit=10_000)
                   if e.kind is EventKind.CONSOLIDATED and dict(e.detail).get("scope") == "sleep")

    embedder = CachingEmbedder(HashingEmbedder())
    sleeper = EngramSystem(ENGRAM_SLEEP, embedder, ConservativeTokenCounter(), EngineConfig(), AT, nightly_sleep=True)
    awake = EngramSystem(ENGRAM, embedder, ConservativeTokenCounter(), EngineConfig(), AT)
    for system in (sleeper, awake):
        for n in range(3):
            system.add(Turn(f"t{n}", "s1", "Ana", f"We walked by the river, stop {n}.", AT + timedelta(minutes=n)))
        system.add(Turn("t9", "s2", "Ana", "I adopted a cat.", AT + timedelta(days=60)))
        system.recall("Which pet?", 256, AT + timedelta(days=60, hours=1))  # the same day: no second sleep
        system.recall("Which pet?", 256, AT + timedelta(days=62))
    assert sleeps(sleeper) == 2 and sleeps(awake) == 0
    sleeper.close()
    awake.close()


def test_retrieval_locomo_shape_is_detected_and_evidence_normalised() -> None:
    dataset = load_dataset(FIXTURES / "bench-locomo-shaped.json")
    conv = dataset.conversations[0]
    assert [s.id for s in conv.sessions] == ["session_1", "session_2"]  # a date key without a session is skipped
    assert [q.evidence for q in conv.questions] == [["D1:1", "D2:1"], ["D1:2"], ["D1:2"]]
    assert [q.category for q in conv.questions] == ["4 single-hop", "1 multi-hop", "5 adversarial"]
    assert dataset.dropped_evidence == 1 and dataset.apart == ("5 adversarial",)
    assert "lighthouse" in conv.sessions[0].turns[1].text  # image turns carry their caption


def test_retrieval_locomo_runs_and_reports_adversarial_apart(tmp_path: Path) -> None:
    report = tmp_path / "l.json"
    ok(bench("retrieval", "--data", str(FIXTURES / "bench-locomo-shaped.json"), "--budgets", "512",
             "--json", str(report)))
    results = json.loads(report.read_text())["results"]["B1 full history"]["512"]
    assert results["overall"]["questions"] == 2 and results["5 adversarial"]["questions"] == 1


@pytest.mark.parametrize("raw, expected", [
    ("D8:6; D9:17", ["D8:6", "D9:17"]), ("D:11:26", ["D11:26"]), ("D30:05", ["D30:5"]), ("D2:1", ["D2:1"]),
])
def test_malformed_evidence_ids_are_normalised(raw: str, expected: list[str]) -> None:
    assert normalise_evidence(raw) == expected


def test_retrieval_bad_input_is_one_clear_line(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"conversations": [{"id": "c", "sessions": []}]}')
    one_line_error(bench("retrieval", "--data", str(broken)), "sessions")
    one_line_error(bench("retrieval", "--data", str(FIXTURES / "bench-conversations.json"), "--budgets", "a,b"),
                   "budgets")


def test_a_gist_retrieves_no_turn_but_a_fact_retrieves_its_turn() -> None:
    embedder = CachingEmbedder(HashingEmbedder())
    system = EngramSystem(ENGRAM, embedder, ConservativeTokenCounter(), EngineConfig(), AT)
    system.add(Turn("t1", "s1", "Ana", "I live in Lisbon.", AT))
    message_id = next(iter(system.turn_of_message))
    assert system._sources(MemoryKind.FACT, (message_id,)) == ("t1",)
    assert system._sources(MemoryKind.GIST, (message_id,)) == ()
    context = system.recall("Where does Ana live?", 512, AT)
    assert "t1" in context.source_turns()
    system.close()


def test_every_system_keeps_to_the_budget_on_the_same_turns() -> None:
    systems = all_systems(CachingEmbedder(HashingEmbedder()), AT)
    for n in range(30):
        turn = Turn(f"t{n}", "s1", "Ana", f"Note number {n}: I walked the dog to the park and met friend {n}.", AT)
        for system in systems:
            system.add(turn)
    for system in systems:
        for budget in (10, 40, 100, 300):
            assert system.recall("Who did Ana meet at the park?", budget, AT).tokens_used <= budget
        system.close()


# -- supersession ------------------------------------------------------------------------

def test_personas_are_deterministic_and_never_reuse_a_value() -> None:
    first, again = make_personas(7, 20, AT), make_personas(7, 20, AT)
    assert first == again and sum(len(p.probes) for p in first) >= 100
    for persona in first:
        for probe in persona.probes:
            assert probe.current not in probe.superseded


def test_supersession_smoke(tmp_path: Path) -> None:
    report = tmp_path / "s.json"
    out = ok(bench("supersession", "--personas", "3", "--budgets", "64,256", "--json", str(report)))
    assert "Staleness" in out.stdout
    data = json.loads(report.read_text())
    assert sorted(data["results"]["recall"]) == sorted(SYSTEMS)
    assert data["results"]["recall"]["B0 no memory"] == {"64": 0.0, "256": 0.0}
    assert {c["system"] for c in data["results"]["ledger"]} == {ENGRAM, ENGRAM_NO_FORGETTING}


def test_supersession_with_sleep_reports_the_sleeping_engram(tmp_path: Path) -> None:
    report = tmp_path / "s.json"
    ok(bench("supersession", "--personas", "2", "--budgets", "256", "--sleep", "--json", str(report)))
    data = json.loads(report.read_text())
    assert sorted(data["results"]["staleness"]) == sorted([*SYSTEMS, ENGRAM_SLEEP])
    assert {c["system"] for c in data["results"]["ledger"]} == {ENGRAM, ENGRAM_NO_FORGETTING, ENGRAM_SLEEP}


# -- scenario ------------------------------------------------------------------------------

def test_shipped_scenarios_run(tmp_path: Path) -> None:
    report = tmp_path / "sc.json"
    out = ok(bench("scenario", "--json", str(report)))
    assert "Lisbon to Ponta Delgada" in out.stdout
    results = json.loads(report.read_text())["results"]
    assert len(results) >= 3
    b0 = [r for r in results["Lisbon to Ponta Delgada"] if r["system"] == "B0 no memory"]
    assert len(b0) == 6 and all(r["missing"] and not r["passed"] for r in b0)  # empty context: every expect missing


def test_a_probe_needs_every_expected_and_no_forbidden_string() -> None:
    probe = ProbeIn(query="q", budget=50, expect=["Ponta Delgada", "abyss"], forbid=["Lisbon"])
    assert judge("- lives in PONTA DELGADA; project ABYSS", probe) == ((), ())
    assert judge("- lives in Ponta Delgada, once Lisbon", probe) == (("abyss",), ("Lisbon",))


def test_scenario_bad_file_is_one_clear_line() -> None:
    one_line_error(bench("scenario", "--file", str(FIXTURES / "bench-bad-scenario.json")), "gap_hours")


# -- scale and growth ------------------------------------------------------------------------

def test_scale_smoke_with_plot(tmp_path: Path) -> None:
    report, plots = tmp_path / "scale.json", tmp_path / "plots"
    ok(bench("scale", "--sizes", "300", "--dims", "384", "--queries", "5", "--warmup", "3", "--json", str(report),
             "--plot", str(plots)))
    point = json.loads(report.read_text())["results"]["points"][0]
    assert point["memories"] == 300 and point["dim"] == 384 and point["recall_p95_ms"] > 0
    assert point["warmup_queries"] == 3 and point["warmup_p95_ms"] > 0
    assert (plots / "scale-latency.png").stat().st_size > 1000


def test_growth_smoke(tmp_path: Path) -> None:
    report = tmp_path / "g.json"
    ok(bench("growth", "--days", "4", "--turns", "2", "--json", str(report)))
    days = json.loads(report.read_text())["results"]["days"]
    full = [d for d in days if d["system"] == "B1 full history"]
    assert [d["day"] for d in full] == [1, 2, 3, 4]
    assert all(later["total"] > earlier["total"] for earlier, later in itertools.pairwise(full))
    engram = [d for d in days if d["system"] == ENGRAM]
    assert all(d["active"] <= d["total"] for d in engram) and engram[-1]["snapshot_bytes"] > 0


def test_plot_without_matplotlib_fails_fast_with_a_hint(tmp_path: Path) -> None:
    blocker = tmp_path / "blocker"
    blocker.mkdir()
    (blocker / "matplotlib.py").write_text("raise ImportError('matplotlib is not installed here')\n")
    out = bench("growth", "--days", "1", "--plot", str(tmp_path / "p"),
                env_extra={"PYTHONPATH": str(blocker)})
    one_line_error(out, "engram[bench]")


def test_budgets_must_be_positive_numbers() -> None:
    from engram_bench.common import parse_budgets

    assert parse_budgets("512,256,512") == (256, 512)
    with pytest.raises(ValidationError):
        parse_budgets("0,5")


def test_fanout_smoke_an_idle_hour_costs_two_requests_and_a_busy_one_grows_with_the_due(tmp_path: Path) -> None:
    report = tmp_path / "f.json"
    ok(bench("fanout", "--tenants", "150", "--due", "0.02", "--json", str(report)))
    rows = {row["hour"]: row for row in json.loads(report.read_text())["results"]["rows"]}
    idle, busy = rows["idle"], rows["2% due"]
    assert idle["OSS requests"] == 2 and idle["dispatched"] == 0 and idle["InvokeFunction"] == 0  # HEAD + LIST
    assert busy["dispatched"] == busy["due"] == 3 and busy["InvokeFunction"] == 3
    assert busy["OSS requests"] == 2 + 3 * 3  # per due tenant: claim, next entry, old entry removed
    one_line_error(bench("fanout", "--tenants", "0"), "tenant counts must be positive")
