"""``engram bench mcp`` runs end to end on a small store and reports what it measured (no timing asserted)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from mcp_support import ENGRAM, ROOT, server_env


def test_bench_mcp_prints_and_records_measured_figures(tmp_path: Path) -> None:
    report = tmp_path / "mcp.json"
    args = ["--embedder", "hashing", "bench", "mcp", "--memories", "300", "--trials", "1", "--warm-calls", "2",
            "--store-dir", str(tmp_path / "store"), "--json", str(report)]
    out = subprocess.run([*ENGRAM, *args], env=server_env(), cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "cold recall ms" in out.stdout and "start to ready ms" in out.stdout
    data = json.loads(report.read_text())
    trial = data["results"]["trials"][0]
    assert trial["cold_ms"] > 0 and len(trial["warm_ms"]) == 2 and trial["items"] > 0
    assert data["settings"]["memories"] == 300 and data["settings"]["embedder"] == "hashing"
    again = subprocess.run([*ENGRAM, *args], env=server_env(), cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and "reused from an earlier run" in again.stdout
