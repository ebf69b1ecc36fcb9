"""What FC's initializer loads, so that a cold instance's first request pays only for its own tenant.

On a cold instance the first /recall otherwise also paid for the local embedder's weights, the Qwen
token vocabulary (about 150,000 BPE ranks, a second or more on a busy CPU) and the first import of the
engine's read path. None of it depends on a tenant, and nothing here touches the network: the read path
is exercised on a throw-away in-memory store with the offline parts.
"""

from __future__ import annotations

from engram_core.core.ports import Embedder


def warm_up(embedder: Embedder) -> str:
    """Load the tenant-independent parts of a request; returns the model id of the tenant embedder."""
    from engram_core.adapters.minilm import MiniLMEmbedder

    if isinstance(embedder, MiniLMEmbedder):
        embedder.embed(["warm up"])
    _warm_read_path()
    return embedder.model_id


def _warm_read_path() -> None:
    """Token counter and the modules a recall imports, on an empty store (hashing embedder, offline LLM)."""
    from engram_core import open_engine
    from engram_core.adapters.hashing import HashingEmbedder
    from engram_core.adapters.offline.llm import OfflineLLM
    from engram_core.adapters.tokens import default_token_counter
    from engram_core.providers import Providers

    default_token_counter().count("warm up")
    offline = Providers(OfflineLLM(), HashingEmbedder(), None, "warm-up", "warm-up")
    engine = open_engine(":memory:", providers=offline)
    try:
        engine.recall("warm up", 64)
    finally:
        engine.close()
