"""A request's query is embedded while its tenant's store is made current, not after.

A recall (and a chat turn, which recalls with the user's message) has two slow parts that do not depend
on each other: the query's forward pass through the local embedder (CPU) and bringing the tenant's copy up
to the newest generation (a listing, perhaps deltas: waiting on the object store). ``embedding_ahead``
starts the forward pass on a worker thread for the length of one request; ``AheadEmbedder``, the embedder
the service's engines get, hands that vector back when the engine asks for exactly that text alone, and
embeds anything else itself. It is the same call on the same text, so the vector is the one the engine
would have computed.

The pending vector lives in a context variable: it belongs to the one request that started it, never to
another request or another tenant. Only for a local embedder: a hosted embedder's calls are metered per
tenant engine and rate limited, so the service does not start them ahead (``Service.ahead_embedder``).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

import numpy as np

from engram_core.core.ports import Embedder


@dataclass
class _Ahead:
    text: str
    model_id: str
    done: threading.Event = field(default_factory=threading.Event)
    vectors: np.ndarray | None = None


_AHEAD: ContextVar[_Ahead | None] = ContextVar("engram_query_ahead", default=None)


def _embed(embedder: Embedder, ahead: _Ahead) -> None:
    try:
        ahead.vectors = embedder.embed([ahead.text])
    except Exception:  # the engine embeds the text itself and meets the error there
        ahead.vectors = None
    finally:
        ahead.done.set()


@contextmanager
def embedding_ahead(embedder: Embedder | None, text: str) -> Iterator[None]:
    """For the block's length (one request), ``text`` is being embedded by ``embedder`` on a worker thread."""
    if embedder is None or not text:
        yield
        return
    ahead = _Ahead(text, embedder.model_id)
    threading.Thread(target=_embed, args=(embedder, ahead), name="engram-query-ahead", daemon=True).start()
    token = _AHEAD.set(ahead)
    try:
        yield
    finally:
        _AHEAD.reset(token)


class AheadEmbedder:
    """An embedder that takes the request's vector computed ahead, when it is for exactly these texts."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.model_id, self.dim = inner.model_id, inner.dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        ahead = _AHEAD.get()
        if ahead is not None and ahead.model_id == self.model_id and len(texts) == 1 and texts[0] == ahead.text:
            ahead.done.wait()
            if ahead.vectors is not None:
                return ahead.vectors.copy()
        return self.inner.embed(texts)
