"""`engram bench storage` runs end to end on tiny tenants (figures are printed, never asserted on time)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_bench_storage_prints_a_table_and_writes_json(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "engram_core.cli.main", "bench", "storage", "--sizes", "30,60",
                          "--repeat", "3", "--stores", "local,moto", "--json", str(tmp_path / "storage.json")],
                         capture_output=True, text=True, timeout=300, cwd=ROOT, env=dict(os.environ))
    assert out.returncode == 0, out.stderr
    assert "Snapshot storage" in out.stdout and "bytes/memory" in out.stdout
    rows = json.loads((tmp_path / "storage.json").read_text())["results"]["rows"]
    assert [(r["store"], r["memories"]) for r in rows] == [("local", 30), ("local", 60), ("moto", 30), ("moto", 60)]
    assert all(r["bytes/memory"] > 0 and r["commit p95 ms"] >= r["commit ms"] > 0 for r in rows)
    assert all(r["cold load p95 ms"] >= r["cold load ms"] > 0 and r["warm read p95 ms"] >= r["warm read ms"] > 0
               for r in rows)  # every column kept in the JSON: no two share a name


def test_bench_storage_rejects_bad_options() -> None:
    out = subprocess.run([sys.executable, "-m", "engram_core.cli.main", "bench", "storage", "--sizes", "ten"],
                         capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 2 and out.stderr.startswith("engram: error:") and "sizes" in out.stderr


def test_bench_replica_compares_a_replica_brought_up_in_place_with_one_rebuilt(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "engram_core.cli.main", "bench", "replica", "--sizes", "400",
                          "--repeat", "3", "--stores", "local", "--json", str(tmp_path / "replica.json")],
                         capture_output=True, text=True, timeout=300, cwd=ROOT, env=dict(os.environ))
    assert out.returncode == 0, out.stderr
    rows = json.loads((tmp_path / "replica.json").read_text())["results"]["rows"]
    assert [(r["store"], r["memories"], r["way"]) for r in rows] == [("local", 400, "in place"),
                                                                     ("local", 400, "rebuilt")]
    assert rows[0]["advanced in place"] == "3 of 3"  # every in-place refresh applied its delta, none fell back
    assert all(r["refresh + recall ms"] >= r["refresh ms"] > 0 for r in rows)
