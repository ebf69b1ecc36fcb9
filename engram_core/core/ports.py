"""Ports: the only ways the engine touches the world.

Adapters live in ``engram_core.adapters``; tests pass fakes that satisfy these
protocols (a fixed clock, a scripted LLM, a hashing embedder).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol, runtime_checkable

import numpy as np

from engram_core.core.model import Belief, FactDraft, ModelCall


@runtime_checkable
class Clock(Protocol):
    def now(self) -> datetime:
        """Current time, timezone-aware UTC (before any stored offset)."""
        ...


@runtime_checkable
class Embedder(Protocol):
    model_id: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return an (n, dim) float32 matrix of L2-normalised rows."""
        ...


@runtime_checkable
class TokenCounter(Protocol):
    name: str

    def count(self, text: str) -> int:
        """Tokens this text costs a model; may over-count, never under-count."""
        ...


@runtime_checkable
class LLM(Protocol):
    """Bookkeeping and reply model.

    Bookkeeping methods return the model's raw text; the pure core parses it
    defensively (``engram_core.core.verdicts``), so an adapter never decides what a
    malformed answer means.
    """

    model_id: str

    def assess(self, text: str, speaker: str, occurred_at: datetime) -> str:
        """JSON: {"importance": 0..1, "facts": [{subject, predicate, object,
        statement, kind, importance, cardinality, negated, critical}]}."""
        ...

    def adjudicate(self, new_fact: FactDraft, candidates: Sequence[Belief]) -> str:
        """JSON: {"verdicts": [{"id": candidate belief id, "verdict":
        "supersede" | "coexist" | "discard"}]}: what the new fact does to each
        current belief (supersede: the new fact replaces it; coexist: both
        hold; discard: the new fact adds nothing and is dropped)."""
        ...

    def summarise(self, texts: Sequence[str]) -> str:
        """JSON: {"gist": "one short summary"}."""
        ...

    def propose_dream(self, memories: Sequence[tuple[str, str, float]]) -> str:
        """JSON: {"actions": [{"action": "merge" | "forget" | "reimportance",
        "ids": [...], "importance"?: float, "text"?: str, "reason"?: str}]}.
        Memories are (id, text, importance)."""
        ...

    def reply(self, message: str, memory_block: str) -> str:
        """The assistant's answer for a chat turn."""
        ...


@runtime_checkable
class UsageSource(Protocol):
    """Metered provider calls waiting to be stored with the use case that caused them."""

    def drain_usage(self) -> list[ModelCall]:
        """Every call recorded since the last drain, oldest first; the source forgets them."""
        ...
