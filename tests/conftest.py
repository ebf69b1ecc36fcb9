from __future__ import annotations

import os
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from fakes import ScriptedLLM, counter_ids  # noqa: E402

from engram_core.adapters.clock import FixedClock  # noqa: E402
from engram_core.adapters.sqlite_store import SqliteStore  # noqa: E402
from engram_core.core.config import EngineConfig  # noqa: E402
from engram_core.usecases.engine import Engine  # noqa: E402

START = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)


@pytest.fixture(autouse=True, scope="session")
def _no_cloud_keys() -> None:
    """A developer's own Qwen Cloud key must never turn a test (or its subprocesses) into a network call."""
    for name in ("QWEN_CLOUD_API_KEY", "DASHSCOPE_API_KEY", "ENGRAM_PROVIDER", "ENGRAM_LLM_BASE_URL"):
        os.environ.pop(name, None)


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(START)


def make_engine(clock: FixedClock, llm=None, path: str = ":memory:", config: EngineConfig | None = None,  # noqa: ANN001
                embedder=None, new_id=None) -> Engine:  # noqa: ANN001
    from engram_core.adapters.hashing import HashingEmbedder
    from engram_core.adapters.offline.llm import OfflineLLM
    from engram_core.adapters.tokens import ConservativeTokenCounter

    return Engine(SqliteStore(path), embedder=embedder or HashingEmbedder(), llm=llm or OfflineLLM(),
                  tokens=ConservativeTokenCounter(), clock=clock, config=config, new_id=new_id or counter_ids())


@pytest.fixture
def engine(clock: FixedClock) -> Engine:
    eng = make_engine(clock)
    yield eng
    eng.close()


@pytest.fixture
def scripted() -> ScriptedLLM:
    return ScriptedLLM()
