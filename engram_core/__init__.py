"""Engram: a memory engine for AI agents that forgets on purpose.

    from engram_core import open_engine

    with open_engine("memories.sqlite") as engine:
        engine.observe("I live in Lisbon.")
        result = engine.recall("where do I live?", budget_tokens=300)
        print(result.render())
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from typing import TYPE_CHECKING

from engram_core.core.config import EngineConfig
from engram_core.core.errors import EngramError, NotFoundError, ProviderError, StoreError, ValidationError
from engram_core.core.model import (
    Belief, Event, EventKind, Memory, MemoryKind, MemoryStatus, RecallItem, RecallResult, ScoreBreakdown,
    WriteResult,
)
from engram_core.core.ports import LLM, Clock, Embedder, TokenCounter

if TYPE_CHECKING:
    from engram_core.usecases.engine import ChatTurn, Engine
    from engram_core.providers import Providers
    from engram_core.providers.settings import ProviderSettings

__all__ = [
    "Belief", "ChatTurn", "Clock", "Embedder", "Engine", "EngineConfig", "EngramError", "Event", "EventKind",
    "LLM", "Memory", "MemoryKind", "MemoryStatus", "NotFoundError", "ProviderError", "RecallItem",
    "RecallResult", "ScoreBreakdown", "StoreError", "TokenCounter", "ValidationError", "WriteResult",
    "default_embedder", "open_engine",
]

__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    """The engine (and its SQLite adapter) loads on first use, so pure modules stay I/O-free."""
    if name in ("Engine", "ChatTurn"):
        from engram_core.usecases import engine

        return getattr(engine, name)
    raise AttributeError(f"module 'engram_core' has no attribute {name!r}")


def default_embedder(name: str = "minilm") -> Embedder:
    """``minilm`` (local all-MiniLM-L6-v2, the default) or ``hashing`` (fast, for tests)."""
    from engram_core.providers import local_embedder

    return local_embedder(name)


def open_engine(path: str | Path | None = None, *, embedder: Embedder | str | None = None, llm: LLM | None = None,
                tokens: TokenCounter | None = None, clock: Clock | None = None,
                config: EngineConfig | None = None, new_id: Callable[[str], str] | None = None,
                settings: ProviderSettings | None = None, providers: Providers | None = None) -> Engine:
    """Open (or create) a store; ``":memory:"`` for a throw-away one.

    With a Qwen Cloud key in ``settings`` (or, when none are given, in the environment), whatever
    is not passed in uses Qwen: the cheap model for bookkeeping, the strong one for replies,
    text-embedding-v4 for vectors. Without one, the embedded offline default. ``embedder`` may
    name one: ``minilm``, ``hashing`` or ``qwen``. ``providers``: ports an entry point built
    already (``ProviderRoot.providers()``); then ``embedder``, ``llm`` and ``settings`` are not
    read. This is the library's composition root for a Python caller, and the one place below
    the entry points that reads the environment: only when given neither ``settings`` nor
    ``providers`` (every entry point of the package passes ``providers``).
    """
    from engram_core.adapters.clock import SystemClock
    from engram_core.adapters.sqlite_store import SqliteStore
    from engram_core.adapters.tokens import default_token_counter
    from engram_core.usecases.engine import Engine, default_store_path
    from engram_core.providers import build_providers
    from engram_core.providers.settings import load_settings
    from engram_core.usecases.runtime import random_id

    if providers is None:
        providers = build_providers(settings if settings is not None else load_settings(), embedder=embedder, llm=llm)
    store = SqliteStore(path if path is not None else default_store_path())
    return Engine(
        store,
        embedder=providers.embedder,
        llm=providers.llm,
        tokens=tokens or default_token_counter(),
        clock=clock or SystemClock(),
        config=config,
        new_id=new_id or random_id,
        usage=providers.usage,
    )
