"""The text-embedding-v4 adapter over real HTTP: batching, dimensions, checks, and never mixing embedders."""

from __future__ import annotations

import numpy as np
import pytest
from openai_server import OpenAIServer, Reply
from qwen_support import cli_env, engram, settings_for

from engram_core import open_engine
from engram_core.core.errors import ConfigurationError, EmbeddingMismatchError, ProviderError
from engram_core.core.model import CallPurpose, EventKind
from engram_core.core.ports import Embedder
from engram_core.providers import build_providers


@pytest.fixture
def server() -> OpenAIServer:
    with OpenAIServer() as running:
        yield running


def test_batches_respect_the_provider_limit_and_keep_order(server: OpenAIServer) -> None:
    p = build_providers(settings_for(server.url))
    texts = [f"memory number {i}" for i in range(23)]
    vectors = p.embedder.embed(texts)
    sizes = [len(r.body["input"]) for r in server.embedding_requests()]
    assert sizes == [10, 10, 3]
    assert [t for r in server.embedding_requests() for t in r.body["input"]] == texts
    assert vectors.shape == (23, 512) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    again = p.embedder.embed([texts[17]])
    assert np.allclose(again[0], vectors[17], atol=1e-6)
    calls = p.usage.drain_usage()
    assert [c.purpose for c in calls] == [CallPurpose.EMBED] * 4 and all(c.model == "text-embedding-v4" for c in calls)
    assert sum(c.prompt_tokens for c in calls) == 3 * 23 + 3


def test_a_batch_size_over_the_provider_limit_is_refused_up_front() -> None:
    with pytest.raises(ConfigurationError, match="ENGRAM_EMBED_BATCH_SIZE"):
        settings_for("http://127.0.0.1:9/v1", embed_batch_size=25)


def test_the_server_really_enforces_the_limit(server: OpenAIServer) -> None:
    """The check above matters: a larger batch is a 400 from the provider, not retried."""
    server.embed_batch_limit = 5
    p = build_providers(settings_for(server.url, embed_batch_size=10))
    with pytest.raises(ProviderError, match="HTTP 400.*batch size"):
        p.embedder.embed([f"t{i}" for i in range(8)])
    assert len(server.embedding_requests()) == 1


@pytest.mark.parametrize("dim", [256, 512, 1024])
def test_configured_dimension_is_requested_and_checked(server: OpenAIServer, dim: int) -> None:
    p = build_providers(settings_for(server.url, embed_dim=dim))
    assert p.embedder.dim == dim and p.embedder.embed(["hello"]).shape == (1, dim)
    assert server.embedding_requests()[0].body["dimensions"] == dim


def test_unsupported_dimension_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="ENGRAM_EMBED_DIM: .*512"):
        settings_for("http://127.0.0.1:9/v1", embed_dim=300)


def test_vectors_of_the_wrong_dimension_are_refused(server: OpenAIServer) -> None:
    p = build_providers(settings_for(server.url, embed_dim=256))
    server.script_embeddings(Reply(vectors=[[0.1] * 1024]))
    with pytest.raises(ProviderError, match="dimension 1024, expected 256"):
        p.embedder.embed(["hello"])


def test_missing_or_zero_vectors_are_refused(server: OpenAIServer) -> None:
    p = build_providers(settings_for(server.url, embed_dim=64))
    server.script_embeddings(Reply(vectors=[[0.5] * 64]), Reply(vectors=[[0.0] * 64, [1.0] * 64]))
    with pytest.raises(ProviderError, match="1 vectors for 2 texts"):
        p.embedder.embed(["a", "b"])
    with pytest.raises(ProviderError, match="zero or non-finite"):
        p.embedder.embed(["a", "b"])


def test_embedding_errors_are_retried(server: OpenAIServer) -> None:
    p = build_providers(settings_for(server.url))
    server.script_embeddings(Reply(status=503), Reply(status=429))
    assert p.embedder.embed(["hello"]).shape == (1, 512)
    assert len(server.embedding_requests()) == 3 and p.usage.drain_usage()[0].attempts == 3


def test_every_vector_carries_model_id_and_dimension(server: OpenAIServer, tmp_path) -> None:
    with open_engine(tmp_path / "s.sqlite", settings=settings_for(server.url, embed_dim=256)) as engine:
        engine.remember("The user prefers aisle seats.", kind="preference", importance=0.8)
        engine.observe("I live in Porto.")
        memories = engine.memories()
        assert memories and all((m.embedding.model_id, m.embedding.dim) == ("text-embedding-v4", 256)
                                for m in memories)
        assert engine.stats()["embedder"] == "text-embedding-v4:256"
        assert isinstance(engine._rt.embedder, Embedder)


def test_changing_dimension_refuses_recall_until_reembedded(server: OpenAIServer, tmp_path) -> None:
    path = tmp_path / "s.sqlite"
    with open_engine(path, settings=settings_for(server.url, embed_dim=512)) as engine:
        engine.remember("The user is allergic to shellfish.", importance=0.95)
        engine.remember("The user lives in Porto.", importance=0.8)
    with open_engine(path, settings=settings_for(server.url, embed_dim=256)) as engine:
        with pytest.raises(EmbeddingMismatchError, match="text-embedding-v4:512.*text-embedding-v4:256"):
            engine.recall("allergies?")
        stored = len(engine.memories())
        seen: list[int] = []
        report = engine.reembed(seen.append)
        assert (report.memories, report.previous, report.current) == (stored, "text-embedding-v4:512",
                                                                     "text-embedding-v4:256")
        assert stored >= 2 and sum(seen) == stored
        assert all(m.embedding.dim == 256 for m in engine.memories())
        assert "shellfish" in engine.recall("allergies?", 300).render()
        assert [e.detail_dict()["embedder"] for e in engine.events() if e.kind is EventKind.REEMBEDDED] == [
            "text-embedding-v4:256"]


def test_a_failed_reembed_changes_nothing(server: OpenAIServer, tmp_path) -> None:
    path = tmp_path / "s.sqlite"
    with open_engine(path, settings=settings_for(server.url, embed_dim=512)) as engine:
        for i in range(3):
            engine.remember(f"Fact number {i} about the user.", importance=0.8)
    with open_engine(path, settings=settings_for(server.url, embed_dim=256, llm_max_retries=0)) as engine:
        before = [(m.id, m.embedding.dim) for m in engine.memories()]
        server.script_embeddings(Reply(status=500))
        with pytest.raises(ProviderError):
            engine.reembed()
        assert [(m.id, m.embedding.dim) for m in engine.memories()] == before
        with pytest.raises(EmbeddingMismatchError):
            engine.recall("fact")


def test_reembed_command_moves_a_local_store_to_qwen(server: OpenAIServer, tmp_path) -> None:
    store = tmp_path / "cli.sqlite"
    local = {**cli_env(server.url, store), "ENGRAM_EMBEDDER": "hashing", "ENGRAM_PROVIDER": "offline"}
    assert engram(local, "remember", "The user lives in Porto.", "--importance", "0.8").returncode == 0
    qwen = cli_env(server.url, store)
    refused = engram(qwen, "recall", "where do I live?")
    assert refused.returncode == 2 and "engram reembed" in refused.stderr and "Traceback" not in refused.stderr
    moved = engram(qwen, "reembed")
    assert moved.returncode == 0, moved.stderr
    assert "hashing-256:256 -> text-embedding-v4:512" in moved.stdout
    recalled = engram(qwen, "recall", "where do I live?", "--json")
    assert recalled.returncode == 0 and "Porto" in recalled.stdout
    assert "nothing to do" in engram(qwen, "reembed").stdout
