"""Re-embed every stored memory with the active embedder, so a store never mixes two embedders.

All vectors are computed first, then written in one transaction together with the
store's new embedder signature: a provider failure halfway leaves the old vectors
and the old signature untouched.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from engram_core.core.errors import ProviderError
from engram_core.core.model import Embedding, EventKind, Memory
from engram_core.usecases.runtime import EMBEDDER_KEY, Runtime

BATCH = 64


@dataclass(frozen=True)
class ReembedReport:
    memories: int
    previous: str | None
    current: str
    skipped: bool = False


def _embed_batch(rt: Runtime, texts: list[str]) -> np.ndarray:
    vectors = np.asarray(rt.embedder.embed(texts), dtype=np.float32)
    if vectors.shape != (len(texts), rt.embedder.dim):
        raise ProviderError(f"embedder {rt.embedder.model_id} returned shape {vectors.shape}, "
                            f"expected ({len(texts)}, {rt.embedder.dim})")
    return vectors


def _embed_all(rt: Runtime, memories: list[Memory], progress: Callable[[int], None]) -> np.ndarray:
    out = np.zeros((len(memories), rt.embedder.dim), dtype=np.float32)
    for start in range(0, len(memories), BATCH):
        chunk = memories[start:start + BATCH]
        out[start:start + len(chunk)] = _embed_batch(rt, [m.text for m in chunk])
        progress(len(chunk))
    return out


def reembed(rt: Runtime, progress: Callable[[int], None] | None = None, force: bool = False) -> ReembedReport:
    """``progress`` is told how many memories each finished batch covered."""
    previous, current = rt.store.get_meta(EMBEDDER_KEY), rt.embedder_signature()
    memories = [m for m in rt.store.memories() if m.embedding is not None]
    if previous == current and not force:
        return ReembedReport(0, previous, current, skipped=True)
    vectors = _embed_all(rt, memories, progress or (lambda done: None))
    with rt.store.transaction():
        for memory, vector in zip(memories, vectors):
            rt.store.update_memory(replace(memory, embedding=Embedding(vector, rt.embedder.model_id)))
        rt.store.set_meta(EMBEDDER_KEY, current)
        rt.store.insert_events([rt.event(EventKind.REEMBEDDED, memories=len(memories), previous=previous,
                                         embedder=current)])
    rt.drop_index()
    return ReembedReport(len(memories), previous, current)
