"""Recall's caches return exactly what the plain computation returns, on real SQLite stores."""

from __future__ import annotations

import random
import re
from dataclasses import replace
from datetime import timedelta

import numpy as np
import pytest

from engram_core.adapters.clock import FixedClock
from engram_core.adapters.hashing import HashingEmbedder
from engram_core.adapters.sqlite_store import SqliteStore
from engram_core.adapters.tokens import ConservativeTokenCounter
from engram_bench.scale import synthetic_sentence
from engram_core.core.config import EngineConfig
from engram_core.core.errors import StoreError
from engram_core.core.index import epoch_hours
from engram_core.core import restatements
from engram_core.core.model import Belief, Cardinality, Embedding, Memory, MemoryKind, MemoryStatus
from engram_core.core.restatements import states_a_change
from engram_core.core.render import BlockForm, block_form, line_cost, render_line
from engram_core.core.retention import hours_between, reinforced_stability, retention
from engram_core.core.words import content_words as query_words

from conftest import START, make_engine

# The query FTS5 answers directly: what the cached search must reproduce, row for row and bit for bit.
PLAIN_FTS = (
    "SELECT m.id AS id, -bm25(memories_fts) AS score FROM memories_fts "
    "JOIN memories m ON m.rowid = memories_fts.rowid "
    "WHERE memories_fts MATCH ? AND (m.status IN ('active', 'decayed', 'archived') OR ?) "
    "ORDER BY bm25(memories_fts) LIMIT ?"
)
ODD_TEXTS = [
    "I booked the books for the book club", "I booked the books for the book club",  # exact duplicates tie
    "snake_case words and foo_bar tokens", "Café crème in São Paulo", "the the the the", "A",
    "Quote \" marks and 'apostrophes' here", "numbers 42 and 7 and 42 again",
]
ODD_QUERIES = ["the", "I the my", "booked booking books", "zzz nothing", "foo_bar", "café são", '"quoted"',
               "42", "A a", "the book club the", "snake_case", "Ok ok OK the"]


def plain_search(store: SqliteStore, query: str, limit: int, active_only: bool) -> list[tuple[str, float]]:
    words = query_words(re.findall(r"\w+", query))  # the query's meaningful words, as recall asks
    if not words:
        return []
    match = " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
    found = store.conn.execute(PLAIN_FTS, (match, int(not active_only), limit))
    return [(r["id"], max(0.0, float(r["score"]))) for r in found]


def memory(number: int, text: str, status: MemoryStatus = MemoryStatus.ACTIVE) -> Memory:
    vector = HashingEmbedder(64).embed([text])[0]
    return Memory(id=f"mem_{number:05d}", kind=MemoryKind.EPISODE, text=text, importance=0.5, stability_hours=100.0,
                  created_at=START, last_accessed_at=START, status=status, embedding=Embedding(vector, "hash"))


def filled_store(path: str, count: int, seed: int) -> SqliteStore:
    rng, store = random.Random(seed), SqliteStore(path)
    texts = [synthetic_sentence(rng) for _ in range(count)] + ODD_TEXTS
    with store.transaction():
        for number, text in enumerate(texts):
            draw = rng.random() if number < count else 1.0  # recallable: active, decayed or archived
            status = (MemoryStatus.DECAYED if draw < 0.2 else MemoryStatus.ARCHIVED if draw < 0.3
                      else MemoryStatus.SUPERSEDED if draw < 0.4 else MemoryStatus.ACTIVE)
            store.insert_memory(memory(number, text, status))
    return store


def queries(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    return [synthetic_sentence(rng).rstrip(".") + "?" for _ in range(count)] + ODD_QUERIES


def assert_same_as_plain(store: SqliteStore, asked: list[str], limits: tuple[int, ...] = (400, 25, 1, -1)) -> None:
    for query in asked:
        for limit in limits:
            for active_only in (True, False):
                expected = plain_search(store, query, limit, active_only)
                assert store.lexical_search(query, limit, active_only) == expected, (query, limit, active_only)


def test_cached_lexical_search_matches_fts5_row_for_row(tmp_path) -> None:
    store = filled_store(str(tmp_path / "t.sqlite"), 3000, seed=3)
    asked = queries(4, 150)
    assert_same_as_plain(store, asked)  # the first search of a state asks FTS5; later ones use the cache
    assert_same_as_plain(store, asked)
    ties = plain_search(store, "booked the books", 400, True)
    assert ties[0][1] == ties[1][1]  # the duplicated text ties, and the order of a tie is pinned too
    store.close()


def test_cached_lexical_search_follows_every_write(tmp_path) -> None:
    path = str(tmp_path / "t.sqlite")
    store, asked = filled_store(path, 400, seed=5), queries(6, 20)
    assert_same_as_plain(store, asked, (400, 5))
    with store.transaction():
        store.insert_memory(memory(90_001, "the booked violin lesson on Monday"))
    assert_same_as_plain(store, asked, (400, 5))
    first = store.get_memory("mem_00000")
    with store.transaction():
        store.update_memory(replace(first, text="a totally new text about the violin", status=MemoryStatus.ACTIVE))
        store.update_memory(replace(store.get_memory("mem_00001"), status=MemoryStatus.SUPERSEDED))
        store.delete_memory("mem_00002")
    assert_same_as_plain(store, asked, (400, 5))
    with pytest.raises(StoreError), store.transaction():
        store.insert_memory(memory(90_002, "the rolled back violin"))
        assert store.lexical_search("rolled back violin", 5)[0][0] == "mem_90002"
        store.insert_memory(memory(90_002, "a duplicate id fails"))
    assert_same_as_plain(store, asked + ["rolled back violin"], (400, 5))
    other = SqliteStore(path)
    with other.transaction():
        other.insert_memory(memory(90_003, "the violin bought by another connection"))
    other.close()
    assert_same_as_plain(store, asked + ["violin another connection"], (400, 5))
    store.close()


def fresh_engine(path: str, clock: FixedClock):
    return make_engine(clock, path=path)


def test_warm_recall_returns_what_a_cold_engine_returns(tmp_path) -> None:
    """Cached lines, token counts, lexical terms and the index against a fresh open of the same file."""
    path, clock, rng = str(tmp_path / "t.sqlite"), FixedClock(START), random.Random(9)
    warm = fresh_engine(path, clock)
    for number in range(120):
        warm.observe(synthetic_sentence(rng), message_id=f"m{number}")
        clock.advance(timedelta(minutes=30))
    warm.observe("My name is Ana and I live in Lisbon.")
    warm.observe("I moved to Porto, I live in Porto now.")
    counter = ConservativeTokenCounter()
    for round_number in range(30):
        query = synthetic_sentence(rng).rstrip(".") + "?" if round_number % 5 else "where do I live?"
        budget = (1024, 200, 60)[round_number % 3]
        cold = fresh_engine(path, clock)
        expected = cold.recall(query, budget, reinforce=False)
        cold.close()
        got = warm.recall(query, budget, reinforce=round_number % 2 == 0)
        assert replace(got, events=()) == expected
        form = block_form(budget, EngineConfig().full_block_from_tokens)
        for item in got.items:
            if form is BlockForm.FULL:  # compact lines of beliefs read "label: value"
                assert item.line == render_line(item.kind, item.text, item.created_at)
            assert item.tokens == line_cost(counter, form, item.line)
        assert got.tokens_used == (counter.count(got.block) if got.items else 0) <= budget
        clock.advance(timedelta(hours=5))
    warm.close()


def test_reinforcement_writes_only_the_access_state(tmp_path) -> None:
    path, clock = str(tmp_path / "t.sqlite"), FixedClock(START)
    engine = fresh_engine(path, clock)
    for text in ("I sail on Saturdays", "I play the cello", "The ferry leaves at seven"):
        engine.observe(text)
    blobs = dict(engine.store.conn.execute("SELECT id, embedding FROM memories").fetchall())
    before = {m.id: m for m in engine.memories()}
    clock.advance(timedelta(hours=3))
    result = engine.recall("cello", 1000)
    config = EngineConfig()
    matched = [i for i in result.items if i.score.similarity >= config.reinforce_similarity]
    packed = {i.memory_id for i in sorted(matched, key=lambda i: -i.score.score)[:config.reinforce_top]}
    assert packed
    for after in engine.memories():
        old = before[after.id]
        if after.id in packed:
            held = retention(hours_between(old.last_accessed_at, clock.now()), old.stability_hours)
            expected = reinforced_stability(old.stability_hours, held, config)
            assert after == replace(old, stability_hours=expected, last_accessed_at=clock.now(),
                                    access_count=old.access_count + 1)
        else:
            assert after == old
    assert dict(engine.store.conn.execute("SELECT id, embedding FROM memories").fetchall()) == blobs
    assert [(e.memory_id, dict(e.detail)["tokens"]) for e in result.events] == [(i.memory_id, i.tokens)
                                                                                  for i in result.items]
    engine.close()
    reopened = fresh_engine(path, clock)
    index = reopened._rt.index()
    pos = index.position[next(iter(packed))]
    assert index.columns["accessed_h"][pos] == epoch_hours(clock.now())
    reopened.close()


# The restatement veto as first written: every candidate's people worked out, every pair tried in order.
def plain_restated(memories: list, vectors: np.ndarray, least_similarity: float) -> set[str]:
    newer = [i for i, (m, _) in enumerate(memories) if states_a_change(m)]
    if not newer:
        return set()
    similarity = vectors @ vectors[newer].T
    keys = [(restatements._speaker(m), restatements.people_of(m.text)) for m, _ in memories]
    drop = set()
    for i, (old, belief) in enumerate(memories):
        if not restatements._retirable(old, belief):
            continue
        for column, j in enumerate(newer):
            new = memories[j][0]
            if j != i and new.created_at > old.created_at and keys[i][0] == keys[j][0] \
                    and restatements.same_people(keys[i][1], keys[j][1]) and similarity[i, column] >= least_similarity:
                drop.add(old.id)
                break
    return drop


_SPEAKERS = ("", "Ana: ", "Ben: ", "user: ")
_CHANGED = ("I work at Globex now.", "My sister moved to Porto.", "She quit the band, no longer plays.",
            "I also started yoga.", "Is it new?", "my husbnd left his job")
_PLAIN = ("I work at Initech.", "My sister lives in Lisbon.", "She plays in a band.", "I like yoga.",
          "my husband works at the bank", "The weather is fine.")


def restatement_pool(rng: random.Random, count: int) -> tuple[list, np.ndarray]:
    rows = []
    for number in range(count):
        text = rng.choice(_SPEAKERS) + rng.choice(_CHANGED + _PLAIN)
        kind = rng.choice((MemoryKind.EPISODE,) * 4 + (MemoryKind.FACT,))
        at = START + timedelta(hours=rng.randrange(48))  # equal times too: only a newer memory restates
        belief = None
        if kind is MemoryKind.FACT and rng.random() < 0.7:
            cardinality = Cardinality.ONE if rng.random() < 0.7 else Cardinality.MANY
            belief = Belief(f"b{number}", "user", "works_at", "x", text, at, at, cardinality=cardinality)
        rows.append((Memory(id=f"m{number}", kind=kind, text=text, importance=0.5, stability_hours=100.0,
                            created_at=at, last_accessed_at=at, critical=rng.random() < 0.1,
                            subject=rng.choice((None, "user", "Ana"))), belief))
    vectors = HashingEmbedder(16).embed([m.text for m, _ in rows])  # few dims: many close pairs
    return rows, np.asarray(vectors, dtype=np.float32)


@pytest.mark.parametrize("seed", range(6))
def test_restatement_veto_drops_what_the_plain_pairwise_veto_drops(seed: int) -> None:
    rng = random.Random(seed)
    rows, vectors = restatement_pool(rng, 120)
    for least in (0.0, 0.3, 0.6, 0.9, 1.0, 1.01):
        expected = plain_restated(rows, vectors, least)
        assert restatements.restated(rows, vectors, least) == expected, least
        changes = [states_a_change(m) for m, _ in rows]
        assert restatements.restated(rows, vectors, least, changes) == expected, least
    assert plain_restated(rows, vectors, 0.3)  # the pools do exercise the veto


def test_warm_recall_with_the_restatement_veto_on_returns_what_a_cold_engine_returns(tmp_path) -> None:
    """The change cues kept in the index follow edited texts: a warm engine against a fresh open."""
    path, clock, rng = str(tmp_path / "t.sqlite"), FixedClock(START), random.Random(11)
    config = EngineConfig(restatement_similarity=0.2)
    warm = make_engine(clock, path=path, config=config)
    for number in range(60):
        text = rng.choice(_SPEAKERS) + rng.choice(_CHANGED + _PLAIN)
        warm.observe(text if number % 3 else synthetic_sentence(rng), message_id=f"m{number}")
        clock.advance(timedelta(minutes=30))
    warm.observe("Ana: Our weekly team sync happens on Mondays.", message_id="old")  # no value the ledger reads
    clock.advance(timedelta(hours=1))
    newer = [m.id for m in warm.observe("Ana: Our weekly team sync happens on Thursdays.", message_id="new").memories]
    asked = ["when is the weekly team sync?", "what about the band?", "the team sync on Thursdays", "yoga"]
    vetoed = []
    for round_number in range(12):
        query = asked[round_number % len(asked)]
        if round_number % 4 == 3:  # the newer text gains or loses its change cue in place
            edited = warm.store.get_memory(newer[0])
            text = edited.text.replace(" now.", ".") if edited.text.endswith(" now.") else edited.text[:-1] + " now."
            with warm.store.transaction():
                warm.store.update_memory(replace(edited, text=text))
            warm._rt.index_update(warm.store.get_memory(edited.id))
        cold = make_engine(clock, path=path, config=config)
        expected = cold.recall(query, 1024, reinforce=False)
        cold.close()
        assert replace(warm.recall(query, 1024, reinforce=round_number % 2 == 0), events=()) == expected
        vetoed.append(not any("Mondays" in item.text for item in expected.items))
        clock.advance(timedelta(hours=2))
    assert True in vetoed and False in vetoed  # the edits do switch the veto on and off
    warm.close()
