"""The Embedder port over Qwen Cloud's text-embedding models (OpenAI-compatible ``/embeddings``).

Texts go in batches no larger than the provider accepts; every answer is checked
(one vector per text, in order, of the configured dimension, finite, non-zero)
before it is normalised and handed to the engine.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engram_core.core.errors import ProviderError
from engram_core.core.model import CallOutcome, CallPurpose
from engram_core.providers.settings import ProviderSettings
from engram_core.providers.transport import Sent, Transport


def vectors_from_response(response: object, count: int, dim: int) -> np.ndarray:
    """The response's vectors in input order, or a ProviderError naming what is wrong."""
    rows = sorted(response.data, key=lambda item: item.index)
    if [r.index for r in rows] != list(range(count)):
        raise ProviderError(f"embedding response has {len(rows)} vectors for {count} texts")
    matrix = np.asarray([r.embedding for r in rows], dtype=np.float32)
    if matrix.ndim != 2 or matrix.shape[1] != dim:
        raise ProviderError(f"embedding response has dimension {matrix.shape[-1]}, expected {dim}")
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    if not np.all(np.isfinite(matrix)) or np.any(norms == 0):
        raise ProviderError("embedding response has zero or non-finite vectors")
    return matrix / norms


class QwenEmbedder:
    """text-embedding-v4 (by default) at the configured dimension; metered per batch."""

    def __init__(self, settings: ProviderSettings, transport: Transport) -> None:
        self.model_id = settings.embed_model
        self.dim = settings.embed_dim
        self.batch_size = settings.embed_batch_size
        self.transport = transport

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return an (n, dim) float32 matrix of L2-normalised rows."""
        texts = list(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(texts), self.batch_size):
            chunk = texts[start:start + self.batch_size]
            out[start:start + len(chunk)] = self._embed_batch(chunk)
        return out

    def _embed_batch(self, chunk: list[str]) -> np.ndarray:
        create = self.transport.client.embeddings.create

        def request() -> object:
            return create(model=self.model_id, input=chunk, dimensions=self.dim, encoding_format="float")

        sent = self.transport.send(CallPurpose.EMBED, self.model_id, request)
        try:
            vectors = vectors_from_response(sent.value, len(chunk), self.dim)
        except ProviderError:
            self._meter(sent, CallOutcome.INVALID)
            raise
        self._meter(sent, CallOutcome.OK)
        return vectors

    def _meter(self, sent: Sent, outcome: CallOutcome) -> None:
        usage = sent.value.usage
        tokens = (getattr(usage, "prompt_tokens", None) or getattr(usage, "total_tokens", None) or 0) if usage else 0
        self.transport.meter.record(CallPurpose.EMBED, self.model_id, latency_ms=sent.latency_ms,
                                    attempts=sent.attempts, outcome=outcome, prompt_tokens=int(tokens))
