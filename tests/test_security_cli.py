"""The command line never sends stored terminal escapes or bidi controls to the terminal; exports stay exact."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HOSTILE = "title \x1b]0;PWNED\x07 \x1b[2J red \x9b31m \u202eevil\u202c tab\there"
RAW = ("\x1b", "\x07", "\x9b", "\u202e", "\u202c")


def engram(store: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "engram_core.cli.main", "--embedder", "hashing", "--store",
                           str(store), *args], capture_output=True, text=True, encoding="utf-8", timeout=120)


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("cli") / "a.sqlite"
    assert engram(path, "remember", HOSTILE, "--importance", "0.9").returncode == 0
    return path


@pytest.mark.parametrize("args", [("memories",), ("recall", "title red evil"), ("events",), ("stats",),
                                  ("memories", "--json"), ("recall", "title red evil", "--json"), ("dream",)])
def test_stored_escapes_reach_the_terminal_only_as_visible_text(store: Path, args: tuple[str, ...]) -> None:
    done = engram(store, *args)
    assert done.returncode == 0, done.stderr
    assert not any(c in done.stdout + done.stderr for c in RAW), repr(done.stdout[:400])


def test_text_output_shows_what_was_stored_and_json_output_round_trips(store: Path) -> None:
    shown = engram(store, "memories").stdout
    assert "\\u001b]0;PWNED\\u0007" in shown and "\\u202eevil" in shown
    listed = json.loads(engram(store, "memories", "--json").stdout)
    assert [m["text"] for m in listed] == [HOSTILE]


def test_an_export_is_the_exact_stored_text(store: Path, tmp_path: Path) -> None:
    out = tmp_path / "export.jsonl"
    assert engram(store, "export", str(out)).returncode == 0
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert HOSTILE in [r.get("text") for r in records if r["type"] == "memory"]
