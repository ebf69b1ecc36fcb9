"""Every bad-input rule: a clear error naming the field, and the store unchanged."""

from __future__ import annotations

import pytest

from engram_core.core.config import EngineConfig
from engram_core.core.errors import NotFoundError, ValidationError

from conftest import make_engine
from fakes import ScriptedLLM, assessment

CASES = [
    ("observe", lambda e: e.observe(""), "text"),
    ("observe", lambda e: e.observe("   \n "), "text"),
    ("observe", lambda e: e.observe("x" * (8 * 1024 * 1024 + 1)), "text"),  # longer messages are stored in parts
    ("remember", lambda e: e.remember("x" * (32 * 1024 + 1)), "text"),
    ("observe", lambda e: e.observe(42), "text"),
    ("observe", lambda e: e.observe("hi", role="robot"), "role"),
    ("observe", lambda e: e.observe("hi", occurred_at="last tuesday"), "occurred_at"),
    ("observe", lambda e: e.observe("hi", occurred_at="2026-13-45"), "occurred_at"),
    ("observe", lambda e: e.observe("hi", session_id=""), "session_id"),
    ("remember", lambda e: e.remember("hi", kind="dream"), "kind"),
    ("remember", lambda e: e.remember("hi", kind="gist"), "kind"),
    ("remember", lambda e: e.remember("hi", importance=1.5), "importance"),
    ("remember", lambda e: e.remember("hi", importance="high"), "importance"),
    ("recall", lambda e: e.recall("q", 0), "budget_tokens"),
    ("recall", lambda e: e.recall("q", -5), "budget_tokens"),
    ("recall", lambda e: e.recall("q", 10**9), "budget_tokens"),
    ("recall", lambda e: e.recall("q", 1.5), "budget_tokens"),
    ("recall", lambda e: e.recall("", 100), "query"),
    ("recall", lambda e: e.recall("q", 100, as_of="soon"), "as_of"),
    ("beliefs", lambda e: e.beliefs("not a date"), "as_of"),
    ("memories", lambda e: e.memories(kind=["nope"]), "kind"),
    ("memories", lambda e: e.memories(status=["nope"]), "status"),
    ("events", lambda e: e.events(since="nope"), "since"),
]


@pytest.mark.parametrize("name, call, field", CASES, ids=[f"{c[0]}-{c[2]}-{i}" for i, c in enumerate(CASES)])
def test_bad_input_names_the_field_and_changes_nothing(clock, name, call, field) -> None:
    engine = make_engine(clock, ScriptedLLM(assess=lambda t: assessment(0.7)))
    engine.observe("a memory that must survive")
    before = list(engine.export_lines())
    with pytest.raises(ValidationError) as info:
        call(engine)
    assert info.value.field == field and field.split("_")[0] in info.value.message
    assert list(engine.export_lines()) == before


@pytest.mark.parametrize("call", [lambda e: e.forget("mem_missing"), lambda e: e.get_memory("mem_missing"),
                                  lambda e: e.dream_apply("drm_missing", [])])
def test_unknown_ids_are_not_found(clock, call) -> None:
    engine = make_engine(clock, ScriptedLLM())
    with pytest.raises(NotFoundError):
        call(engine)


def test_text_limit_is_configurable(clock) -> None:
    engine = make_engine(clock, ScriptedLLM(), config=EngineConfig(max_text_bytes=100, max_message_bytes=200))
    with pytest.raises(ValidationError, match="limit is 100"):
        engine.remember("y" * 101)
    with pytest.raises(ValidationError, match="limit is 200"):
        engine.observe("y" * 201)


def test_clock_only_moves_forward(clock) -> None:
    from datetime import timedelta

    engine = make_engine(clock, ScriptedLLM())
    with pytest.raises(ValidationError):
        engine.advance_clock(timedelta(hours=-1))
    assert engine.advance_clock(timedelta(days=21)) == timedelta(days=21)
    assert engine.now() == clock.now() + timedelta(days=21)
