"""Entity links: who a memory is about, whom a query names, and recall preferring that person."""

from __future__ import annotations

from datetime import datetime, timezone

from engram_core.core.config import EngineConfig
from engram_core.core.entities import entity_key, memory_entity, named_entities
from engram_core.core.model import Memory, MemoryKind

import pytest
from conftest import make_engine
from fakes import ScriptedLLM, assessment

pytestmark = pytest.mark.both_stores  # the use cases here need no SQL

AT = datetime(2026, 1, 5, tzinfo=timezone.utc)


def _memory(kind: MemoryKind, text: str, subject: str | None = None) -> Memory:
    return Memory("m1", kind, text, 0.5, 72.0, AT, AT, subject=subject)


def test_an_episode_is_about_its_speaker_and_a_fact_about_its_subject() -> None:
    assert memory_entity(_memory(MemoryKind.EPISODE, "Melanie: I ran a charity race.")) == "melanie"
    assert memory_entity(_memory(MemoryKind.FACT, "Melanie lives in Oslo.", subject="Melanie")) == "melanie"
    assert memory_entity(_memory(MemoryKind.EPISODE, "Dr Ana Silva: results are in")) == "dr ana silva"


def test_a_sentence_before_a_colon_is_no_speaker() -> None:
    assert memory_entity(_memory(MemoryKind.EPISODE, "The plan was simple and it worked: we won")) is None
    assert memory_entity(_memory(MemoryKind.EPISODE, "Note: call the bank")) is None
    assert memory_entity(_memory(MemoryKind.EPISODE, "no speaker here")) is None
    assert entity_key("user") is None and entity_key("  ") is None


def test_a_query_names_known_entities_as_whole_words() -> None:
    known = {"melanie": 0, "caroline": 1, "dr ana silva": 2}
    assert named_entities("What books has Melanie's son read?", known) == [0]
    assert named_entities("Did Caroline meet Dr Ana Silva?", known) == [1, 2]
    assert named_entities("What do melanies like?", known) == []


def test_recall_prefers_what_the_named_person_said(clock) -> None:
    """Caroline's turn matches more of the question's words; the one its person said comes first."""
    config = EngineConfig(weights=EngineConfig().weights.model_copy(update={"entity": 0.2}))
    engine = make_engine(clock, ScriptedLLM(assess=lambda t: assessment(0.6)), config=config)
    engine.observe("I read a novel about sailing last week", speaker="Caroline")
    engine.observe("I read a novel about the sea last week", speaker="Melanie")
    result = engine.recall("Which novel about sailing did Melanie read?", 1000, reinforce=False)
    assert result.items[0].text.startswith("Melanie: ")
    unnamed = engine.recall("Which novel about sailing did someone read?", 1000, reinforce=False)
    assert unnamed.items[0].text.startswith("Caroline: ")
