"""The Lisbon to Ponta Delgada story, offline, through the real CLI and the embedded defaults."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
STORY = (ROOT / "examples" / "lisbon-story.txt").read_text(encoding="utf-8")


def engram(store: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "ENGRAM_STORE": str(store)}
    return subprocess.run([sys.executable, "-m", "engram_core.cli.main", *args], input=stdin, env=env,
                          capture_output=True, text=True, timeout=300, cwd=ROOT)


def recalled(store: Path, query: str) -> str:
    out = engram(store, "recall", query, "--budget", "300", "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["tokens_used"] <= 300
    return result["block"]


@pytest.mark.slow
def test_lisbon_to_ponta_delgada_story(tmp_path: Path) -> None:
    store = tmp_path / "story.sqlite"
    session_one_day = datetime.now(timezone.utc) + timedelta(days=1)
    chat = engram(store, "chat", stdin=STORY)
    assert chat.returncode == 0, chat.stderr
    assert "engram>" in chat.stdout

    where = recalled(store, "where do I live?")
    assert "Ponta Delgada" in where and "Lisbon" not in where

    project = recalled(store, "project name?")
    assert "ABYSS" in project and "ECHO" not in project

    dinner = recalled(store, "book a team dinner")
    assert "shellfish" in dinner

    past = engram(store, "beliefs", "--as-of", session_one_day.isoformat(), "--json")
    assert past.returncode == 0, past.stderr
    lives = [b for b in json.loads(past.stdout) if b["predicate"] == "lives_in"]
    assert [b["object"] for b in lives] == ["Lisbon"]

    now = json.loads(engram(store, "beliefs", "--json").stdout)
    assert {b["object"] for b in now if b["predicate"] == "lives_in"} == {"Ponta Delgada"}
