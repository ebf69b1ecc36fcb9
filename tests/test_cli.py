"""The engram CLI: every subcommand answers --help, reads answer --json, errors are one clear line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = ["observe", "remember", "recall", "beliefs", "history", "sleep", "sweep", "consolidate", "dream",
            "forget", "export", "import", "stats", "memories", "events", "clock", "ingest", "chat"]


def run(store: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "ENGRAM_STORE": str(store), "ENGRAM_EMBEDDER": "hashing"}
    return subprocess.run([sys.executable, "-m", "engram_core.cli.main", *args], input=stdin, env=env,
                          capture_output=True, text=True, timeout=120, cwd=ROOT)


@pytest.fixture
def store(tmp_path: Path) -> Path:
    return tmp_path / "cli.sqlite"


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help(store: Path, command: str) -> None:
    out = run(store, command, "--help")
    assert out.returncode == 0 and "Usage:" in out.stdout


def test_write_read_cycle_with_json(store: Path) -> None:
    assert run(store, "observe", "I live in Lisbon.", "--session", "s1").returncode == 0
    assert run(store, "remember", "Prefers aisle seats on flights", "--kind", "preference",
               "--importance", "0.8").returncode == 0
    recall = json.loads(run(store, "recall", "where do I live?", "--budget", "200", "--json").stdout)
    assert recall["tokens_used"] <= 200 and any("Lisbon" in i["text"] for i in recall["items"])
    components = {"similarity", "lexical", "importance", "recency", "retention", "type_prior"}
    assert components <= recall["items"][0]["score"].keys()
    beliefs = json.loads(run(store, "beliefs", "--json").stdout)
    assert any(b["object"] == "Lisbon" for b in beliefs)
    stats = json.loads(run(store, "stats", "--json").stdout)
    assert stats["memories"]["active"] >= 2 and stats["embedder"].startswith("hashing")
    listed = json.loads(run(store, "memories", "--json", "--kind", "preference").stdout)
    assert [m["kind"] for m in listed] == ["preference"]
    events = json.loads(run(store, "events", "--json").stdout)
    assert {"stored", "recalled"} <= {e["kind"] for e in events}


def test_clock_advance_is_persisted(store: Path) -> None:
    assert run(store, "clock", "advance", "3w").returncode == 0
    shown = json.loads(run(store, "clock", "show", "--json").stdout)
    assert shown["offset_hours"] == 21 * 24


@pytest.mark.parametrize("args, needle", [
    (("recall", "x", "--budget", "0"), "budget_tokens"),
    (("recall", "x", "--budget", "-3"), "budget_tokens"),
    (("observe", ""), "text"),
    (("observe", "hi", "--at", "yesterday-ish"), "occurred_at"),
    (("beliefs", "--as-of", "13/45/2026"), "as_of"),
    (("forget", "mem_missing"), "no memory"),
    (("clock", "advance", "soon"), "duration"),
    (("memories", "--kind", "dream"), "kind"),
])
def test_errors_are_one_line_without_traceback(store: Path, args: tuple[str, ...], needle: str) -> None:
    run(store, "observe", "I live in Lisbon.")
    before = run(store, "export").stdout
    out = run(store, *args)
    assert out.returncode == 2
    assert out.stderr.startswith("engram: error:") and needle in out.stderr
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1
    assert run(store, "export").stdout == before


def test_export_import_round_trip(store: Path, tmp_path: Path) -> None:
    run(store, "observe", "I live in Lisbon.")
    run(store, "observe", "I love jazz and long walks.")
    dump = tmp_path / "dump.jsonl"
    assert run(store, "export", str(dump)).returncode == 0
    other = tmp_path / "other.sqlite"
    out = run(other, "import", str(dump))
    assert out.returncode == 0 and "imported" in out.stdout
    assert "2 messages," in out.stdout and " memories" in out.stdout and "memorys" not in out.stdout
    assert run(other, "export").stdout == dump.read_text()
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "header", "format": "engram-export", "version": 1}\n{"type": "memory"}\n')
    out = run(tmp_path / "third.sqlite", "import", str(bad))
    assert out.returncode == 2 and "line 2" in out.stderr


def test_ingest_with_progress_and_timestamps(store: Path, tmp_path: Path) -> None:
    conversation = tmp_path / "conv.jsonl"
    rows = [{"id": f"t{i}", "text": f"I visited the museum number {i} today", "at": f"2025-05-0{i + 1}T10:00:00Z",
             "session_id": "trip"} for i in range(5)]
    conversation.write_text("\n".join(json.dumps(r) for r in rows))
    out = run(store, "ingest", str(conversation))
    assert out.returncode == 0 and "ingested 5 messages" in out.stdout
    again = run(store, "ingest", str(conversation))
    assert "0 memories stored" in again.stdout  # ids already seen: a re-run is safe
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps([{"text": "ok"}, {"role": "user"}]))
    out = run(store, "ingest", str(broken))
    assert out.returncode == 2 and "message 2" in out.stderr


def test_chat_script_runs_turns_and_commands(store: Path) -> None:
    out = run(store, "chat", stdin="I live in Lisbon.\n/advance 1d\nwhere do I live?\n/beliefs\n")
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("engram>") == 2 and "[belief] The user lives in Lisbon." in out.stdout


def test_purge_asks_for_confirmation(store: Path) -> None:
    run(store, "remember", "my PIN is 4312", "--importance", "0.9")
    memory_id = json.loads(run(store, "memories", "--json").stdout)[0]["id"]
    refused = run(store, "forget", memory_id, "--purge", stdin="n\n")
    assert refused.returncode != 0
    assert run(store, "forget", memory_id, "--purge", "--yes").returncode == 0
    assert "4312" not in run(store, "export").stdout
