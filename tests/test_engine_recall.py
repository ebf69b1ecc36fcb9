"""Recall: budget, breakdown, veto, reinforcement, decay, as-of."""

from __future__ import annotations

import itertools
import math
from datetime import timedelta

import pytest

from engram_core.adapters.tokens import ConservativeTokenCounter
from engram_core.core.config import EngineConfig
from engram_core.core.model import MemoryStatus

from conftest import make_engine
from fakes import ScriptedLLM, assessment, fact

pytestmark = pytest.mark.both_stores  # the use cases here need no SQL

TEXTS = [
    "I went sailing around the bay with my brother on Saturday",
    "My favourite pastry shop sells the best custard tarts",
    "The quarterly report for the marine survey is due on Friday",
    "We adopted a grey cat called Nimbus last spring",
    "I started learning the cello two months ago",
    "The ferry to the island leaves at seven every morning",
]


def filled(clock, config: EngineConfig | None = None):
    engine = make_engine(clock, ScriptedLLM(assess=lambda t: assessment(0.6)), config=config)
    for text in TEXTS:
        engine.observe(text)
    return engine


def test_recall_stays_under_budget_with_a_breakdown(clock) -> None:
    engine = filled(clock)
    for budget in (1, 20, 40, 80, 1000):
        result = engine.recall("sailing trip with my brother", budget, reinforce=False)
        assert result.tokens_used <= budget
        assert ConservativeTokenCounter().count(result.render()) <= max(budget, 0) or not result.items
    result = engine.recall("sailing trip with my brother", 1000, reinforce=False)
    top = result.items[0]
    assert "sailing" in top.text
    assert top.score.similarity > 0 and top.score.lexical == 1.0 and top.score.retention == 1.0
    assert top.source_message_ids and top.tokens > 0
    assert result.render().startswith("<memories") and top.text in result.render()


def test_only_packed_memories_are_reinforced(clock) -> None:
    engine = filled(clock)
    before = {m.id: m.stability_hours for m in engine.memories()}
    clock.advance(timedelta(hours=24))
    result = engine.recall("cello lessons", 70)
    packed = {i.memory_id for i in result.items}
    matched = {i.memory_id for i in result.items if i.score.similarity >= EngineConfig().reinforce_similarity}
    assert matched and len(packed) < len(before)
    for m in engine.memories():
        if m.id in matched:
            s = before[m.id]
            assert m.stability_hours == pytest.approx(s + (0.6 * s + 12) * (1 - math.exp(-24 / s)))
            assert m.access_count == 1 and m.last_accessed_at == clock.now()
        else:
            assert m.stability_hours == before[m.id] and m.access_count == 0
    assert {e.memory_id for e in result.events} == packed


def faded_store(clock):
    allergy = fact("user", "allergy", "shellfish", "The user is allergic to shellfish.", critical=True,
                   importance=0.95, cardinality="many")
    llm = ScriptedLLM(assess={"I'm allergic to shellfish": assessment(0.95, allergy),
                              "I had a sandwich with pickled herring at the harbour": assessment(0.4)})
    engine = make_engine(clock, llm)
    engine.observe("I'm allergic to shellfish")
    engine.observe("I had a sandwich with pickled herring at the harbour")
    clock.advance(timedelta(days=400))
    return engine


def test_faded_memories_leave_ordinary_recall_and_critical_ones_stay(clock) -> None:
    engine = faded_store(clock)
    texts = [i.text for i in engine.recall("which dishes are dangerous for me", 500, reinforce=False).items]
    assert "The user is allergic to shellfish." in texts
    assert not any("sandwich" in t for t in texts)
    decayed = engine.sweep()
    decayed_texts = {engine.get_memory(e.memory_id).text for e in decayed}
    assert decayed_texts >= {"I had a sandwich with pickled herring at the harbour"}
    critical = [m for m in engine.memories() if m.critical]
    assert critical and all(m.status is MemoryStatus.ACTIVE for m in critical)


def test_a_strong_cue_wakes_a_decayed_memory_and_packing_revives_it(clock) -> None:
    engine = faded_store(clock)
    engine.sweep()
    sandwich = next(m for m in engine.memories() if "sandwich" in m.text)
    assert sandwich.status is MemoryStatus.DECAYED
    result = engine.recall("the sandwich with pickled herring at the harbour", 500)
    woken = next(i for i in result.items if i.memory_id == sandwich.id)
    assert woken.score.retention < EngineConfig().decay_floor
    revived = engine.get_memory(sandwich.id)
    assert revived.status is MemoryStatus.ACTIVE and revived.last_accessed_at == clock.now()
    assert revived.stability_hours > sandwich.stability_hours  # relearning: it was almost forgotten
    assert not engine.sweep()


def test_the_cold_tier_is_bounded(clock) -> None:
    config = EngineConfig(wake_pool=2)
    engine = filled(clock, config)
    clock.advance(timedelta(days=400))
    engine.sweep()
    result = engine.recall(" ".join(TEXTS), 1000, reinforce=False)
    assert 0 < len(result.items) <= 2


def test_no_cold_tier_means_faded_memories_stay_out(clock) -> None:
    engine = filled(clock, EngineConfig(wake_pool=0))
    clock.advance(timedelta(days=400))
    assert engine.recall(TEXTS[3], 1000, reinforce=False).items == ()
    engine.sweep()
    assert engine.recall(TEXTS[3], 1000, reinforce=False).items == ()


def test_forgetting_off_keeps_everything_recallable(clock) -> None:
    engine = filled(clock, EngineConfig(forgetting=False))
    clock.advance(timedelta(days=3650))
    assert engine.sweep() == ()
    assert engine.recall("cat called Nimbus", 200, reinforce=False).items


def other_ids(prefix: str, numbers=itertools.count(1)) -> str:  # noqa: B008 - one shared counter
    return f"{prefix}_other{next(numbers)}"


@pytest.mark.sql  # two current values can only arrive by import
def test_retrieval_veto_keeps_newest_single_value(clock) -> None:
    """Two current values can only arrive by import; recall still shows one."""
    engine = make_engine(clock, ScriptedLLM(assess={"I live in Lisbon": assessment(
        0.8, fact("user", "lives_in", "Lisbon", "The user lives in Lisbon."))}))
    engine.observe("I live in Lisbon")
    lines = list(engine.export_lines())
    other = make_engine(clock, ScriptedLLM(assess={"I live in Porto": assessment(
        0.8, fact("user", "lives_in", "Porto", "The user lives in Porto."))}), new_id=other_ids)
    clock.advance(timedelta(days=2))
    other.observe("I live in Porto")
    other.import_lines(lines)
    assert len(other.beliefs()) == 2
    texts = [i.text for i in other.recall("where does the user live", 500, reinforce=False).items]
    assert "The user lives in Porto." in texts and "The user lives in Lisbon." not in texts


def test_as_of_recall_sees_the_past_without_writing(clock) -> None:
    llm = ScriptedLLM(assess={
        "I live in Lisbon.": assessment(0.8, fact("user", "lives_in", "Lisbon", "The user lives in Lisbon.")),
        "I moved to Ponta Delgada.": assessment(0.8, fact("user", "lives_in", "Ponta Delgada",
                                                         "The user lives in Ponta Delgada.")),
    })
    engine = make_engine(clock, llm)
    engine.observe("I live in Lisbon.")
    before_move = clock.now() + timedelta(days=1)
    clock.advance(timedelta(days=21))
    engine.observe("I moved to Ponta Delgada.")
    events_before = len(engine.events())
    past = engine.recall("where do I live", 300, as_of=before_move)
    now = engine.recall("where do I live", 300, reinforce=False)
    assert "Lisbon" in past.render() and "Ponta Delgada" not in past.render()
    assert "Ponta Delgada" in now.render() and "Lisbon" not in now.render()
    assert len(engine.events()) == events_before


def test_recall_on_an_empty_store(clock) -> None:
    engine = make_engine(clock, ScriptedLLM())
    result = engine.recall("anything", 100)
    assert result.items == () and result.tokens_used == 0 and result.render() == ""


def test_filler_packed_without_a_match_is_not_reinforced(clock) -> None:
    engine = filled(clock)
    clock.advance(timedelta(hours=24))
    result = engine.recall("cello lessons", 1000)
    filler = {i.memory_id for i in result.items if i.score.similarity < EngineConfig().reinforce_similarity}
    assert filler and len(filler) < len(result.items)
    for m in engine.memories():
        if m.id in filler:
            assert m.access_count == 0 and m.last_accessed_at < clock.now()


def test_a_superseded_memory_never_wakes_even_when_it_had_decayed(clock) -> None:
    lisbon = fact("user", "lives_in", "Lisbon", "The user lives in Lisbon.")
    azores = fact("user", "lives_in", "Ponta Delgada", "The user lives in Ponta Delgada.", revision=True)
    engine = make_engine(clock, ScriptedLLM(assess={"I live in Lisbon.": assessment(0.6, lisbon),
                                                    "I moved to Ponta Delgada.": assessment(0.6, azores)}))
    engine.observe("I live in Lisbon.")
    clock.advance(timedelta(days=400))
    assert len(engine.sweep()) == 2
    engine.observe("I moved to Ponta Delgada.")
    assert {m.status for m in engine.memories() if "Lisbon" in m.text} == {MemoryStatus.SUPERSEDED}
    texts = [i.text for i in engine.recall("I live in Lisbon. The user lives in Lisbon.", 500, reinforce=False).items]
    assert texts and not any("Lisbon" in t for t in texts)


@pytest.mark.parametrize("budget", [60, 400])  # the compact block and the full one
def test_the_belief_a_question_names_leads_the_block(clock, budget: int) -> None:
    engine = make_engine(clock)
    engine.observe("I work as a teacher.")
    clock.advance(timedelta(days=12))
    for relative, trade in itertools.product(("neighbour", "cousin", "friend"), ("librarian", "nurse", "architect")):
        engine.observe(f"My {relative}'s partner is a {trade}.")
    result = engine.recall("What is my job?", budget, reinforce=False)
    assert "teacher" in result.items[0].line
    assert result.tokens_used <= budget


def test_a_stop_word_alone_earns_no_lexical_credit(clock) -> None:
    """"Book a team dinner" shares only "a" with the small talk: that is no lexical match at all."""
    engine = make_engine(clock, ScriptedLLM(assess=lambda t: assessment(0.6)))
    engine.observe("What a lovely day, haha.")
    engine.observe("I'm allergic to shellfish, so no prawns for me.")
    result = engine.recall("Book a team dinner for Friday", 1000, reinforce=False)
    lexical = {item.text: item.score.lexical for item in result.items}
    assert lexical["What a lovely day, haha."] == 0.0


def test_content_words_still_match_lexically(clock) -> None:
    engine = make_engine(clock, ScriptedLLM(assess=lambda t: assessment(0.6)))
    engine.observe("What a lovely day, haha.")
    engine.observe("I'm allergic to shellfish, so no prawns for me.")
    result = engine.recall("Is there any shellfish in the dinner?", 1000, reinforce=False)
    lexical = {item.text: item.score.lexical for item in result.items}
    assert lexical["I'm allergic to shellfish, so no prawns for me."] == 1.0
    assert lexical["What a lovely day, haha."] == 0.0


def test_faded_memories_that_match_fill_room_left_unused(clock) -> None:
    """The answer faded and matches too weakly to wake: it still fills room the block would leave empty,
    after everything else, and filling is not using (it is not reinforced: it stays decayed)."""
    config = EngineConfig(wake_similarity=0.99)  # nothing in this store is a strong enough cue to wake
    engine = make_engine(clock, ScriptedLLM(assess=lambda t: assessment(0.3)), config=config)
    engine.observe("My locker code at the gym is 4512")
    clock.advance(timedelta(days=90))
    engine.sweep()
    engine.observe("The ferry to the island leaves at seven every morning")
    result = engine.recall("What is the code of my gym locker?", 120)
    texts = [item.text for item in result.items]
    assert "My locker code at the gym is 4512" in texts
    assert texts[-1] == "My locker code at the gym is 4512"  # the filler comes after every ordinary match
    assert result.tokens_used <= 120
    faded = [m for m in engine.memories(status=["decayed"]) if "locker" in m.text]
    assert faded, "a filler is not reinforced back into ordinary recall"


def test_a_filler_never_takes_room_from_an_ordinary_match(clock) -> None:
    config = EngineConfig(wake_similarity=0.99)
    engine = make_engine(clock, ScriptedLLM(assess=lambda t: assessment(0.3)), config=config)
    engine.observe("My locker code at the gym is 4512, written on the card in my wallet")
    clock.advance(timedelta(days=90))
    engine.sweep()
    engine.observe("The gym locker room reopens on Monday")
    fresh_only = engine.recall("What is the code of my gym locker?", 25, reinforce=False)  # room for one
    assert [item.text for item in fresh_only.items] == ["The gym locker room reopens on Monday"]


def test_a_fact_stands_in_for_its_sentence_only_when_it_says_all_of_it(clock) -> None:
    """The name fact leaves the job out, so the sentence it came from stays in recall."""
    sentence = "My name is Dana Whitfield and I work night shifts as a nurse at St Mary's hospital."
    name = fact("user", "name", "Dana Whitfield", "The user's name is Dana Whitfield.")
    engine = make_engine(clock, ScriptedLLM(assess={sentence: assessment(0.7, name)}))
    engine.observe(sentence)
    texts = [item.text for item in engine.recall("What do I do for work?", 300, reinforce=False).items]
    assert sentence in texts
    assert "nurse" in engine.recall("What do I do for work?", 300, reinforce=False).render()


def test_a_fact_that_says_it_all_still_stands_in(clock) -> None:
    sentence = "I live in Lisbon."
    home = fact("user", "lives_in", "Lisbon", "The user lives in Lisbon.")
    engine = make_engine(clock, ScriptedLLM(assess={sentence: assessment(0.7, home)}))
    engine.observe(sentence)
    texts = [item.text for item in engine.recall("Where do I live?", 300, reinforce=False).items]
    assert texts == ["The user lives in Lisbon."]
