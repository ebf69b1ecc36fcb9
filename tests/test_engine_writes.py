"""The write path: importance gate, adjudication paths, supersession of beliefs and episodes."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from engram_core.core.config import EngineConfig
from engram_core.core.errors import ProviderError
from engram_core.core.model import EventKind, MemoryKind, MemoryStatus

from conftest import make_engine
from fakes import ScriptedLLM, assessment, fact

pytestmark = pytest.mark.both_stores  # the use cases here need no SQL

LISBON = fact("user", "lives_in", "Lisbon", "The user lives in Lisbon.")
AZORES = fact("user", "lives_in", "Ponta Delgada", "The user lives in Ponta Delgada.", revision=True)


def kinds(result) -> list[str]:
    return [e.kind.value for e in result.events]


def test_low_importance_is_observed_but_not_stored(clock) -> None:
    llm = ScriptedLLM(assess={"ok thanks": assessment(0.1)})
    engine = make_engine(clock, llm)
    result = engine.observe("ok thanks")
    assert result.memories == ()
    event = result.events[0]
    assert event.kind is EventKind.NOT_STORED and event.detail_dict()["importance"] == 0.1
    assert len(engine.store.messages()) == 1
    assert [e.kind for e in engine.events()] == [EventKind.NOT_STORED]


def test_important_message_becomes_an_episode_with_provenance(clock) -> None:
    engine = make_engine(clock, ScriptedLLM(assess={"I ran a marathon": assessment(0.7)}))
    result = engine.observe("I ran a marathon", session_id="s1", message_id="caller-1")
    (memory,) = result.memories
    assert memory.kind is MemoryKind.EPISODE and memory.importance == 0.7
    assert memory.provenance == (result.message.id,) and result.message.external_id == "caller-1"
    assert memory.embedding is not None and memory.embedding.model_id.startswith("hashing")


def test_repeated_caller_id_is_a_no_op(clock) -> None:
    engine = make_engine(clock, ScriptedLLM(assess={"hello there friend": assessment(0.7)}))
    first = engine.observe("hello there friend", message_id="x")
    again = engine.observe("hello there friend", message_id="x")
    assert again.message.id == first.message.id and again.memories == ()
    assert len(engine.store.messages()) == 1


def test_occurred_at_is_kept_for_imported_history(clock) -> None:
    engine = make_engine(clock, ScriptedLLM(assess={"old news": assessment(0.7)}))
    result = engine.observe("old news", occurred_at="2025-03-01T10:00:00Z")
    assert result.message.occurred_at.year == 2025 and result.memories[0].created_at.year == 2025
    assert result.message.recorded_at == clock.now()


def test_exact_path_supersedes_and_retires_the_old_episode(clock) -> None:
    llm = ScriptedLLM(assess={"I live in Lisbon.": assessment(0.8, LISBON),
                              "I moved to Ponta Delgada.": assessment(0.8, AZORES)})
    engine = make_engine(clock, llm)
    first = engine.observe("I live in Lisbon.")
    old_episode = next(m for m in first.memories if m.kind is MemoryKind.EPISODE)
    old_fact = next(m for m in first.memories if m.kind is MemoryKind.FACT)
    clock.advance(timedelta(days=21))
    second = engine.observe("I moved to Ponta Delgada.")
    assert EventKind.SUPERSEDED in [e.kind for e in second.events]
    assert engine.get_memory(old_fact.id).status is MemoryStatus.SUPERSEDED
    assert engine.get_memory(old_episode.id).status is MemoryStatus.SUPERSEDED
    (old, new) = engine.history("user")
    assert old.object == "Lisbon" and old.superseded_by == new.id and old.valid_to == new.valid_from
    assert [b.object for b in engine.beliefs()] == ["Ponta Delgada"]
    assert not any(c[0] == "adjudicate" for c in llm.calls)  # exact path needs no model


def test_same_fact_again_is_discarded(clock) -> None:
    llm = ScriptedLLM(assess={"I live in Lisbon.": assessment(0.8, LISBON), "Lisbon is home.": assessment(0.8, LISBON)})
    engine = make_engine(clock, llm)
    engine.observe("I live in Lisbon.")
    result = engine.observe("Lisbon is home.")
    assert EventKind.DISCARDED in [e.kind for e in result.events]
    assert len(engine.store.all_beliefs()) == 1


def test_multi_valued_facts_coexist(clock) -> None:
    likes = lambda o: fact("user", "likes", o, f"The user likes {o}.", cardinality="many", kind="preference")  # noqa: E731
    llm = ScriptedLLM(assess={"I love jazz": assessment(0.6, likes("jazz")),
                              "I love hiking": assessment(0.6, likes("hiking"))})
    engine = make_engine(clock, llm)
    engine.observe("I love jazz")
    result = engine.observe("I love hiking")
    assert EventKind.COEXISTED in [e.kind for e in result.events]
    assert sorted(b.object for b in engine.beliefs()) == ["hiking", "jazz"]


def test_semantic_path_supersedes_near_identical_statement_without_a_model(clock) -> None:
    first = fact("user", "drink", "tea", "The user drinks tea every morning.")
    second = fact("user", "morning_drink", "tea", "The user drinks tea every morning.")
    llm = ScriptedLLM(assess={"a": assessment(0.6, first), "b": assessment(0.6, second)})
    engine = make_engine(clock, llm)
    engine.observe("a")
    result = engine.observe("b")
    superseded = [e for e in result.events if e.kind is EventKind.SUPERSEDED]
    assert superseded and superseded[0].detail_dict()["path"] == "semantic"
    assert not any(c[0] == "adjudicate" for c in llm.calls)


LLM_PATH = EngineConfig(adjudication_candidate_threshold=0.05)  # the hashing embedder scores paraphrases low


def _llm_path_engine(clock, verdict_answer: str):
    coffee = fact("user", "favourite_drink", "coffee", "The user's favourite drink is coffee.")
    tea = fact("user", "drinks_mostly", "tea", "These days the user mostly drinks tea, not coffee.")
    llm = ScriptedLLM(assess={"coffee": assessment(0.6, coffee), "tea": assessment(0.6, tea)},
                      adjudicate=lambda new, cands: verdict_answer.replace("ID", cands[0].id))
    return make_engine(clock, llm, config=LLM_PATH), llm


def test_llm_path_supersedes_on_a_clean_verdict(clock) -> None:
    engine, llm = _llm_path_engine(clock, '{"verdicts": [{"id": "ID", "verdict": "supersede"}]}')
    engine.observe("coffee")
    result = engine.observe("tea")
    assert any(c[0] == "adjudicate" for c in llm.calls)
    assert {e.detail_dict().get("path") for e in result.events if e.kind is EventKind.SUPERSEDED} == {"llm"}
    assert [b.object for b in engine.beliefs()] == ["tea"]


@pytest.mark.parametrize("answer", ["not json at all", '{"verdicts": [{"id": "blf_404", "verdict": "supersede"}]}',
                                    '{"verdicts": [{"id": "ID", "verdict": "supersede"'])
def test_llm_garbage_never_supersedes(clock, answer: str) -> None:
    engine, _ = _llm_path_engine(clock, answer)
    engine.observe("coffee")
    result = engine.observe("tea")
    assert EventKind.UNDECIDED in [e.kind for e in result.events]
    assert sorted(b.object for b in engine.beliefs()) == ["coffee", "tea"]


def test_unreachable_llm_is_a_typed_error_and_writes_nothing(clock) -> None:
    engine = make_engine(clock, ScriptedLLM(unreachable=True))
    with pytest.raises(ProviderError):
        engine.observe("I live in Lisbon.")
    assert engine.store.messages() == [] and engine.memories() == []


@pytest.mark.sql  # compares whole exports
def test_failure_mid_write_rolls_back_everything(clock) -> None:
    """The model fails after the message and episode were inserted: the transaction undoes them."""
    coffee = fact("user", "favourite_drink", "coffee", "The user's favourite drink is coffee.")
    tea = fact("user", "drinks_mostly", "tea", "These days the user mostly drinks tea, not coffee.")
    llm = ScriptedLLM(assess={"coffee": assessment(0.6, coffee), "tea": assessment(0.9, tea)})
    engine = make_engine(clock, llm, config=LLM_PATH)
    engine.observe("coffee")
    before = list(engine.export_lines())
    def broken(new, cands):
        raise ProviderError("model went away mid-write")

    llm._adjudicate = broken  # assess answers; adjudicate, inside the write transaction, fails
    with pytest.raises(ProviderError):
        engine.observe("tea")
    assert list(engine.export_lines()) == before
    assert [m.text for m in engine.recall("drink", 200, reinforce=False).items]  # index rebuilt, still consistent


def test_unusable_assessment_falls_back_and_is_recorded(clock) -> None:
    engine = make_engine(clock, ScriptedLLM(assess=lambda text: "Sure! Importance is high."))
    result = engine.observe("I climbed Pico yesterday")
    assert EventKind.FALLBACK in [e.kind for e in result.events]
    assert result.memories and result.memories[0].importance == 0.5


def test_remember_with_explicit_importance_bypasses_the_gate(clock) -> None:
    engine = make_engine(clock, ScriptedLLM(assess={"use tabs": assessment(0.05)}))
    result = engine.remember("use tabs", kind="preference", importance=0.8)
    assert [(m.kind, m.importance) for m in result.memories] == [(MemoryKind.PREFERENCE, 0.8)]
    gated = engine.remember("use tabs")
    assert gated.memories == () and gated.events[0].kind is EventKind.NOT_STORED


def test_assistant_messages_are_logged_not_stored(clock) -> None:
    llm = ScriptedLLM()
    engine = make_engine(clock, llm)
    result = engine.observe("Sure, noted!", role="assistant")
    assert result.memories == () and result.message.role == "assistant"
    assert not llm.calls


def test_events_are_persisted_and_returned(clock) -> None:
    engine = make_engine(clock, ScriptedLLM(assess={"I live in Lisbon.": assessment(0.8, LISBON)}))
    result = engine.observe("I live in Lisbon.")
    assert [e.id for e in engine.events()] == [e.id for e in result.events]
    assert json.dumps([e.detail_dict() for e in engine.events()])


def test_a_reply_longer_than_the_text_limit_is_returned_whole_and_stored_clipped(clock) -> None:
    engine = make_engine(clock)
    for n in range(12):
        engine.remember(f"Harbour log entry {n}: " + "the harbour crane moved containers all night. " * 60)
    turn = engine.chat("What happened at the harbour crane?", budget_tokens=60_000)
    limit = engine.config.max_text_bytes
    assert len(turn.reply.encode("utf-8")) > limit  # the offline reply quotes every recalled line
    stored = [m for m in engine.store.messages() if m.role == "assistant"]
    assert len(stored) == 1 and stored[0].text.endswith("[clipped]")
    assert len(stored[0].text.encode("utf-8")) <= limit
    assert turn.reply.startswith(stored[0].text[: -len(" [clipped]")])
