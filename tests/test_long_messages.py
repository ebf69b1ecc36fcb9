"""Messages over the stored-text limit: kept whole, stored and recalled as linked parts of one message."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

from engram_core.core.config import EngineConfig
from engram_core.core.errors import ValidationError
from engram_core.usecases.longtext import split_text

from conftest import make_engine
from fakes import ScriptedLLM, assessment

sys.path.insert(0, str(Path(__file__).parent))
from test_cli import run

pytestmark = pytest.mark.both_stores  # the use cases here need no SQL

WORDS = "harbour ledger copper orchard lantern meadow quarry velvet signal timber ember willow".split()


def report(paragraphs: int, seed: int = 1) -> str:
    """A long pasted report: paragraphs of plain sentences, one line naming a rare fact in the middle."""
    rng = random.Random(seed)
    body = [" ".join(rng.choice(WORDS) for _ in range(60)) + "." for _ in range(paragraphs)]
    body[paragraphs // 2] = "The vault combination for the archive room is 7 3 9 1, kept by Ines."
    return "\n\n".join(body)


def test_split_keeps_every_word_in_order_under_the_limit() -> None:
    text = report(400) + " " + "é" * 5000 + " " + "x" * 4000
    parts = split_text(text, 1000)
    assert all(len(p.encode("utf-8")) <= 1000 for p in parts)
    assert "".join(parts).replace(" ", "") == "".join(text.split())


def test_a_long_message_is_stored_whole_and_as_linked_parts(clock) -> None:
    text = report(100)
    engine = make_engine(clock, ScriptedLLM(assess=lambda t: assessment(0.5)))
    assert len(text.encode("utf-8")) > engine.config.max_text_bytes
    result = engine.observe(text, message_id="doc-1", speaker="Ines")
    message = result.message
    assert message is not None and message.text == text  # nothing lost: the message keeps every byte
    parts = result.memories
    assert len(parts) > 32
    assert all(m.provenance == (message.id,) for m in parts)
    assert all(len(m.text.encode("utf-8")) <= engine.config.part_bytes for m in parts)
    assert parts[0].text.startswith(f"Ines: (part 1 of {len(parts)}) ")
    found = engine.recall("What is the vault combination for the archive room?", 1000, reinforce=False)
    hit = next(i for i in found.items if "vault combination" in i.text)
    assert hit.source_message_ids == (message.id,) and "(part " in hit.line
    assert engine.observe(text, message_id="doc-1").memories == ()  # the same id again: skipped


def test_a_message_beyond_the_message_limit_is_refused_and_nothing_is_written(clock) -> None:
    engine = make_engine(clock, config=EngineConfig(max_text_bytes=100, max_message_bytes=1000))
    with pytest.raises(ValidationError, match="the limit is 1000"):
        engine.observe("word " * 300)
    assert engine.stats()["messages"] == 0


def test_engram_ingest_takes_a_long_message(tmp_path: Path) -> None:
    conversation = tmp_path / "long.json"
    messages = [{"text": "Here is the report you asked for.", "id": "m1"},
                {"text": report(100), "id": "m2", "speaker": "Ines"}]
    conversation.write_text(json.dumps(messages), encoding="utf-8")
    out = run(tmp_path / "s.sqlite", "ingest", str(conversation))
    assert out.returncode == 0, out.stderr
    assert "ingested 2 messages" in out.stdout
    recalled = run(tmp_path / "s.sqlite", "recall", "vault combination for the archive room", "--budget", "1000")
    assert "7 3 9 1" in recalled.stdout
