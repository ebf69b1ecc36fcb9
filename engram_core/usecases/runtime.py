"""The engine's wiring: ports, store, config and the recall index, shared by the use cases."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import numpy as np

from engram_core.core.config import EngineConfig
from engram_core.core.errors import EmbeddingMismatchError, ProviderError
from engram_core.core.index import ActiveIndex
from engram_core.core.index_columns import room_for
from engram_core.core.model import Belief, Event, EventKind, Memory, ModelCall, Scalar
from engram_core.core.ports import LLM, Clock, Embedder, TenantStore, TokenCounter, UsageSource
from engram_core.core.timeutil import stored_offset

CLOCK_OFFSET_KEY = "clock_offset_seconds"
EMBEDDER_KEY = "embedder"


def random_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:20]}"


_LABEL_VECTORS: dict[tuple[str, str], np.ndarray] = {}  # shared by every engine (and thread) of the process
_LABEL_LOCK = threading.Lock()
_MAX_LABEL_VECTORS = 4096
_RECENT_TEXTS = 16  # a chat turn embeds its message as recall's query and again as the stored episode


@dataclass
class Runtime:
    store: TenantStore
    embedder: Embedder
    llm: LLM
    tokens: TokenCounter
    clock: Clock
    config: EngineConfig
    new_id: Callable[[str], str] = random_id
    usage: UsageSource | None = None
    turn_id: str | None = None  # set for the length of a chat turn, so its calls can be costed together
    _index: ActiveIndex | None = field(default=None, repr=False)
    _index_version: int | None = field(default=None, repr=False)
    _recent: dict[tuple[str, str], np.ndarray] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if self.usage is not None:
            self.store.add_commit_hook(self.persist_usage)

    # -- usage ----------------------------------------------------------------
    def _drain(self) -> list[ModelCall]:
        return self.usage.drain_usage() if self.usage is not None else []

    def _insert_calls(self, calls: list[ModelCall]) -> None:
        if calls:
            self.store.insert_usage([(self.new_id("use"), c) for c in calls], self.now(), self.turn_id)

    def persist_usage(self) -> None:
        """Inside the committing transaction: metered calls are stored with the use case that made them."""
        self._insert_calls(self._drain())

    def flush_usage(self) -> None:
        """Store calls made outside any write (a read-only recall, a failed reply)."""
        self.record_calls(self._drain())

    def record_calls(self, calls: Sequence[ModelCall]) -> None:
        """Store calls metered elsewhere (a forwarded conversation) in this store's usage log."""
        if calls:
            with self.store.transaction():
                self._insert_calls(list(calls))

    # -- time ---------------------------------------------------------------
    def clock_offset(self) -> timedelta:
        return stored_offset(self.store.get_meta(CLOCK_OFFSET_KEY))  # a damaged value never stops the tenant

    def now(self) -> datetime:
        return self.clock.now() + self.clock_offset()

    # -- events ---------------------------------------------------------------
    def event(self, kind: EventKind, *, memory_id: str | None = None, belief_id: str | None = None,
              message_id: str | None = None, at: datetime | None = None, **detail: Scalar) -> Event:
        return self.event_of(kind, detail, memory_id=memory_id, belief_id=belief_id, message_id=message_id, at=at)

    def event_of(self, kind: EventKind, detail: Mapping[str, Scalar], *, memory_id: str | None = None,
                 belief_id: str | None = None, message_id: str | None = None, at: datetime | None = None) -> Event:
        """The event with its detail as a mapping: a caller's forwarded ``**detail`` never lands in a field."""
        return Event(
            id=self.new_id("evt"), at=at or self.now(), kind=kind, memory_id=memory_id,
            belief_id=belief_id, message_id=message_id, detail=tuple(sorted(detail.items())),
        )

    # -- embeddings -------------------------------------------------------------
    def embedder_signature(self) -> str:
        return f"{self.embedder.model_id}:{self.embedder.dim}"

    def check_embedder(self) -> None:
        """Vectors of two embedders never mix: refuse until the store is re-embedded."""
        stored = self.store.get_meta(EMBEDDER_KEY)
        if stored is not None and stored != self.embedder_signature():
            raise EmbeddingMismatchError(
                f"this store's vectors come from {stored}, the active embedder is "
                f"{self.embedder_signature()}; run `engram reembed` or switch the embedder back"
            )

    def claim_embedder(self) -> None:
        if self.store.get_meta(EMBEDDER_KEY) is None:
            self.store.set_meta(EMBEDDER_KEY, self.embedder_signature())

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """The texts' vectors; a text this engine embedded moments ago is not embedded (or paid for) again."""
        self.check_embedder()
        signature = self.embedder_signature()
        found = {text: v for text in texts if (v := self._recent.get((signature, text))) is not None}
        missing = [text for text in dict.fromkeys(texts) if text not in found]
        if missing:
            fresh = self._embed_now(missing)
            found.update(zip(missing, fresh, strict=True))
            if len(missing) <= _RECENT_TEXTS:  # a bulk import is not kept
                self._remember_vectors(signature, missing, fresh)
        if not texts:
            return np.zeros((0, self.embedder.dim), dtype=np.float32)
        return np.stack([found[text] for text in texts])

    def _embed_now(self, texts: list[str]) -> np.ndarray:
        vectors = np.asarray(self.embedder.embed(texts), dtype=np.float32)
        if vectors.shape != (len(texts), self.embedder.dim):
            raise ProviderError(
                f"embedder {self.embedder.model_id} returned shape {vectors.shape}, "
                f"expected ({len(texts)}, {self.embedder.dim})"
            )
        return vectors

    def _remember_vectors(self, signature: str, texts: list[str], vectors: np.ndarray) -> None:
        for text, vector in zip(texts, vectors, strict=True):
            self._recent.pop((signature, text), None)
            self._recent[(signature, text)] = vector.copy()
        while len(self._recent) > _RECENT_TEXTS:
            del self._recent[next(iter(self._recent))]

    def label_vectors(self, labels: Sequence[str]) -> np.ndarray:
        """Vectors of belief labels ("works at"), embedded once per process and embedder: the
        labels are few and recur, and an engine is opened afresh for every request in a function."""
        signature = self.embedder_signature()
        with _LABEL_LOCK:
            known = {label: v for label in labels if (v := _LABEL_VECTORS.get((signature, label))) is not None}
        missing = [label for label in dict.fromkeys(labels) if label not in known]
        if missing:  # embedded outside the lock: a hosted embedder is a network call
            known.update(zip(missing, self.embed(missing), strict=True))
            with _LABEL_LOCK:
                if len(_LABEL_VECTORS) + len(missing) > _MAX_LABEL_VECTORS:
                    _LABEL_VECTORS.clear()
                _LABEL_VECTORS.update(((signature, label), known[label]) for label in missing)
        return np.stack([known[label] for label in labels])

    # -- recall index -------------------------------------------------------------
    def index(self) -> ActiveIndex:
        """The active-memory index, rebuilt only when another connection changed the store."""
        version = self.store.data_version()
        if self._index is None or version != self._index_version:
            columns = self.store.recall_columns(self.embedder.dim, room_for)
            self._index = ActiveIndex.load(self.embedder.dim, self.config, columns, self.store.recallable_entries)
            self._index_version = version
        return self._index

    def memories_now(self, ids: Sequence[str]) -> list[Memory]:
        """Inside a write transaction: the index's copies while no other connection has committed
        since it was loaded (the engine keeps them in step with its own writes), else the rows.
        Parsing eight rows back from SQLite was a tenth of a 10,000-memory recall."""
        index = self._index
        if index is None or self.store.data_version() != self._index_version:
            return self.store.memories_by_ids(ids)
        positions = [pos for i in ids if (pos := index.position.get(i)) is not None]
        index.entries.prefetch(positions)
        found = [index.entries[pos].memory for pos in positions]
        return found if len(found) == len(ids) else self.store.memories_by_ids(ids)

    def drop_index(self) -> None:
        """After a failed use case the cached index may hold rolled-back rows."""
        self._index = None

    def index_if_loaded(self) -> ActiveIndex | None:
        return self._index

    def index_add(self, memory: Memory, belief: Belief | None = None) -> None:
        if self._index is not None:
            self._index.add(memory, belief)

    def index_remove(self, memory_id: str) -> None:
        if self._index is not None:
            self._index.remove(memory_id)

    def index_update(self, memory: Memory) -> None:
        if self._index is not None:
            self._index.update(memory)
