"""A deterministic bag-of-features embedder for tests and quick local runs.

Tests need vectors that are instant, identical in every process and on every
machine, and still rank "the dog barked" nearer "a dog barking" than "tax
forms". Hashed word and trigram features do that; blake2b (not ``hash()``,
which is salted per process) keeps buckets stable.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from engram_core.core.errors import ConfigurationError

_WORD = re.compile(r"\w+")
_WORD_WEIGHT = 1.0
_TRIGRAM_WEIGHT = 0.35  # trigrams link "barked" and "barking" without outvoting whole words
_EMPTY_FEATURE = "\x00empty"  # texts without words still need a unit vector


def _bucket(feature: str, dim: int) -> tuple[int, float]:
    """Feature -> (index, sign); the sign keeps collisions from only adding up."""
    digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
    value = int.from_bytes(digest, "little")
    return value % dim, 1.0 if (value >> 63) & 1 else -1.0


def _trigrams(word: str) -> list[str]:
    padded = f"<{word}>"
    return [padded[i : i + 3] for i in range(len(padded) - 2)]


@lru_cache(maxsize=1 << 15)
def _word_features(word: str, dim: int) -> tuple[tuple[int, float], ...]:
    """Cached: hashing dominates the cost and words repeat."""
    index, sign = _bucket("w:" + word, dim)
    features = [(index, sign * _WORD_WEIGHT)]
    trigrams = _trigrams(word)
    weight = _TRIGRAM_WEIGHT / len(trigrams) ** 0.5
    for gram in trigrams:
        index, sign = _bucket("t:" + gram, dim)
        features.append((index, sign * weight))
    return tuple(features)


def _embed_one(text: str, dim: int) -> np.ndarray:
    vector = np.zeros(dim, dtype=np.float64)
    words = _WORD.findall(text.lower()) or [_EMPTY_FEATURE]
    for word in words:
        for index, value in _word_features(word, dim):
            vector[index] += value
    norm = np.linalg.norm(vector)
    if norm == 0.0:  # every feature cancelled out: fall back to the empty marker
        index, sign = _bucket("w:" + _EMPTY_FEATURE, dim)
        vector[index] = sign
        norm = 1.0
    return vector / norm


class HashingEmbedder:
    """The Embedder port without a model: fast, deterministic, roughly lexical."""

    def __init__(self, dim: int = 256) -> None:
        if dim < 8:
            raise ConfigurationError("hashing embedder needs dim >= 8", field="dim")
        self.dim = dim
        self.model_id = f"hashing-{dim}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return an (n, dim) float32 matrix of L2-normalised rows."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            out[row] = _embed_one(text, self.dim)
        return out
