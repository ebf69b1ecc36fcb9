"""`engram bench load` end to end on a few tenants, bounded to seconds: two server processes on one moto
bucket lose no acknowledged write and answer no 5xx (latency figures are printed, never asserted)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_bench_load_runs_two_servers_and_loses_no_acknowledged_write(tmp_path: Path) -> None:
    env = {**os.environ, "ENGRAM_EMBEDDER": "hashing"}
    out = subprocess.run([sys.executable, "-m", "engram_core.cli.main", "bench", "load", "--tenants", "4",
                          "--clients", "4", "--requests", "60", "--seconds", "60", "--hot-clients", "4",
                          "--hot-requests", "24", "--json", str(tmp_path / "load.json")],
                         capture_output=True, text=True, timeout=400, cwd=ROOT, env=env)
    assert out.returncode == 0, out.stderr
    assert "Two engram serve processes" in out.stdout
    results = json.loads((tmp_path / "load.json").read_text())["results"]
    assert results["lost"] == 0 and results["server_errors"] == 0
    assert set(results["statuses"]) <= {"200", "201"}
    answered = {(r["phase"], r["route"]): r["answered"] for r in results["rows"]}
    assert answered[("hot tenant", "remember")] == 24
    assert sum(n for (phase, _), n in answered.items() if phase == "mixed") == 60


def test_bench_load_open_loop_reports_offered_and_achieved_rates(tmp_path: Path) -> None:
    env = {**os.environ, "ENGRAM_EMBEDDER": "hashing"}
    out = subprocess.run([sys.executable, "-m", "engram_core.cli.main", "bench", "load", "--tenants", "3",
                          "--clients", "3", "--requests", "30", "--rate", "10", "--arrivals", "fixed",
                          "--seconds", "60", "--hot-clients", "2", "--hot-requests", "6",
                          "--json", str(tmp_path / "load.json")],
                         capture_output=True, text=True, timeout=400, cwd=ROOT, env=env)
    assert out.returncode == 0, out.stderr
    assert "latency from each request's due time" in out.stdout and "offered 10 requests/s" in out.stdout
    report = json.loads((tmp_path / "load.json").read_text())
    results = report["results"]
    assert results["lost"] == 0 and results["server_errors"] == 0
    assert report["settings"]["rate"] == 10 and report["settings"]["arrivals"] == "fixed"
    assert results["offered_rate"] == 10 and 0 < results["achieved_rate"] <= 10.5
    assert isinstance(results["sustained"], bool)
    answered = {(r["phase"], r["route"]): r["answered"] for r in results["rows"]}
    assert sum(n for (phase, _), n in answered.items() if phase == "mixed") == 30
