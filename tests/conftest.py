from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from fakes import ScriptedLLM, counter_ids
from memory_store import MemoryStore

from engram_core.adapters.clock import FixedClock
from engram_core.adapters.sqlite_store import SqliteStore
from engram_core.core.config import EngineConfig
from engram_core.usecases.engine import Engine
from engram_core.core.ports import TenantStore

START = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)
_STORE_KIND = ["sqlite"]  # what make_engine opens for ":memory:"; set per test by the store_kind fixture


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Engine tests (they take ``clock``) in a ``both_stores`` module run twice: on SQLite and on the
    in-memory fake of the store port, unless marked ``sql``."""
    marked = metafunc.definition.get_closest_marker("both_stores")
    if marked and "clock" in metafunc.fixturenames and not metafunc.definition.get_closest_marker("sql"):
        metafunc.parametrize("store_kind", ["sqlite", "memory"], indirect=True)


@pytest.fixture(autouse=True)
def store_kind(request: pytest.FixtureRequest) -> Iterator[str]:
    kind = getattr(request, "param", "sqlite")
    _STORE_KIND[0] = kind
    yield kind
    _STORE_KIND[0] = "sqlite"


@pytest.fixture(autouse=True, scope="session")
def _no_cloud_keys() -> None:
    """A developer's own Qwen Cloud key must never turn a test (or its subprocesses) into a network call."""
    for name in ("QWEN_CLOUD_API_KEY", "DASHSCOPE_API_KEY", "ENGRAM_PROVIDER", "ENGRAM_LLM_BASE_URL"):
        os.environ.pop(name, None)


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(START)


def make_engine(clock: FixedClock, llm=None, path: str = ":memory:", config: EngineConfig | None = None,
                embedder=None, new_id=None, store: TenantStore | None = None) -> Engine:
    from engram_core.adapters.hashing import HashingEmbedder
    from engram_core.adapters.offline.llm import OfflineLLM
    from engram_core.adapters.tokens import ConservativeTokenCounter

    if store is None:
        store = MemoryStore() if _STORE_KIND[0] == "memory" and path == ":memory:" else SqliteStore(path)
    return Engine(store, embedder=embedder or HashingEmbedder(), llm=llm or OfflineLLM(),
                  tokens=ConservativeTokenCounter(), clock=clock, config=config, new_id=new_id or counter_ids())



def say(engine: Engine, clock: FixedClock, *messages: str, gap: timedelta = timedelta(days=3)) -> None:
    """Each message observed ``gap`` after the last (three days: a change told in a later session)."""
    for text in messages:
        clock.advance(gap)
        engine.observe(text)


def held_beliefs(engine: Engine) -> dict[str, bool]:
    """Every belief as "subject predicate: object", with whether it is current."""
    return {f"{b.subject} {b.predicate}: {b.object}": b.is_current() for b in engine.store.all_beliefs()}


@contextmanager
def told(clock: FixedClock, embedder, *messages: str) -> Iterator[tuple[Engine, dict[str, bool]]]:
    """An engine told ``messages`` three days apart, with its beliefs (current or not) after them."""
    engine = make_engine(clock, embedder=embedder)
    say(engine, clock, *messages)
    try:
        yield engine, held_beliefs(engine)
    finally:
        engine.close()


def recalled(clock: FixedClock, embedder, query: str, *messages: str, budget: int = 256) -> str:
    """The block a question gets from an engine told ``messages`` three days apart (no reinforcement)."""
    with told(clock, embedder, *messages) as (engine, _):
        return engine.recall(query, budget, reinforce=False).block


@pytest.fixture(scope="session")
def minilm():
    """The real MiniLM embedder, loaded once: what the write path's closeness rules were tuned with."""
    from engram_core.adapters.minilm import MiniLMEmbedder

    return MiniLMEmbedder()


def beliefs_after(engine: Engine, clock: FixedClock, *messages: str) -> dict[tuple[str, str], list[tuple[str, bool]]]:
    """Each message observed two hours after the last; then every (subject, predicate) and its values in
    the order stored, each with whether it is current."""
    for text in messages:
        clock.advance(timedelta(hours=2))
        engine.observe(text)
    held: dict[tuple[str, str], list[tuple[str, bool]]] = {}
    for belief in engine.store.all_beliefs():
        held.setdefault((belief.subject, belief.predicate), []).append((belief.object, belief.is_current()))
    return held

@pytest.fixture
def engine(clock: FixedClock) -> Engine:
    eng = make_engine(clock)
    yield eng
    eng.close()


@pytest.fixture
def scripted() -> ScriptedLLM:
    return ScriptedLLM()
