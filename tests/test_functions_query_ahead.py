"""A request's query embedded ahead (functions/query_ahead.py): the engine gets exactly the vector its own
call would give, computed once; any other text, or a call outside the request, is embedded as before; a
failed ahead call leaves the engine to embed (and fail) itself; one request's vector is never another's."""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Sequence

import numpy as np
import pytest

from engram_core.adapters.hashing import HashingEmbedder
from engram_core.core.errors import ProviderError
from functions.query_ahead import AheadEmbedder, embedding_ahead


class CountingEmbedder:
    """A fake of the Embedder port: the hashing embedder, counting the texts it is asked for."""

    def __init__(self, fail_first: bool = False) -> None:
        self.inner = HashingEmbedder()
        self.model_id, self.dim = self.inner.model_id, self.inner.dim
        self.calls: list[list[str]] = []
        self.lock = threading.Lock()
        self.fail_first = fail_first

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        with self.lock:
            self.calls.append(list(texts))
            failing, self.fail_first = self.fail_first, False
        if failing:
            raise ProviderError("the embedder is down")
        return self.inner.embed(texts)


def test_the_engine_gets_the_vector_computed_ahead_once() -> None:
    counting = CountingEmbedder()
    engine_side = AheadEmbedder(counting)
    with embedding_ahead(counting, "where does Maria live?"):
        got = engine_side.embed(["where does Maria live?"])
        again = engine_side.embed(["where does Maria live?"])
    assert counting.calls == [["where does Maria live?"]]  # one forward pass for both
    expected = HashingEmbedder().embed(["where does Maria live?"])
    assert np.array_equal(got, expected) and np.array_equal(again, expected)
    got[0, 0] += 1.0  # each caller has its own copy
    assert np.array_equal(engine_side.embed(["where does Maria live?"]), expected)


def test_other_texts_and_calls_outside_the_request_are_embedded_as_before() -> None:
    counting = CountingEmbedder()
    engine_side = AheadEmbedder(counting)
    with embedding_ahead(counting, "where does Maria live?"):
        engine_side.embed(["a different question"])
        engine_side.embed(["where does Maria live?", "and a second text"])
    engine_side.embed(["where does Maria live?"])
    assert sorted(map(tuple, counting.calls)) == sorted([
        ("where does Maria live?",), ("a different question",), ("where does Maria live?", "and a second text"),
        ("where does Maria live?",)])
    with embedding_ahead(None, "hosted: nothing starts ahead"):
        engine_side.embed(["hosted: nothing starts ahead"])
    assert counting.calls[-1] == ["hosted: nothing starts ahead"] and len(counting.calls) == 5


def test_a_failed_ahead_call_leaves_the_engine_to_embed_itself() -> None:
    counting = CountingEmbedder(fail_first=True)
    engine_side = AheadEmbedder(counting)
    with embedding_ahead(counting, "where does Maria live?"):
        got = engine_side.embed(["where does Maria live?"])
    assert len(counting.calls) == 2 and np.array_equal(got, HashingEmbedder().embed(["where does Maria live?"]))
    failing = AheadEmbedder(CountingEmbedder(fail_first=True))
    with pytest.raises(ProviderError):
        failing.embed(["no request, the engine's own call fails"])


def test_one_requests_vector_is_never_anothers() -> None:
    counting = CountingEmbedder()
    engine_side = AheadEmbedder(counting)
    seen: list[np.ndarray] = []
    with embedding_ahead(counting, "tenant a's secret question"):
        engine_side.embed(["tenant a's secret question"])  # this request's own call: the one made ahead
        other = threading.Thread(target=contextvars.Context().run,
                                 args=(lambda: seen.append(engine_side.embed(["tenant a's secret question"])),))
        other.start()
        other.join()
    assert len(counting.calls) == 2  # the other context embedded for itself: it never saw this request's
    assert np.array_equal(seen[0], HashingEmbedder().embed(["tenant a's secret question"]))
