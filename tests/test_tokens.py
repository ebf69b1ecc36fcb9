"""ConservativeTokenCounter: basics and the algebra the budget packer leans on.

The full comparison with Qwen's real tokenizer is tests/test_token_counter_vs_qwen.py;
the table below pins a few real counts so this file checks "never under" offline too.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engram_core.adapters.tokens import ConservativeTokenCounter, estimate_qwen_tokens
from engram_core.core.ports import TokenCounter

# Real Qwen2.5 token counts (qwen.tiktoken via tiktoken), measured once.
REAL_QWEN_COUNTS = [
    ("Hello, world!", 4),
    ("I adopted a rescue dog named Biscuit last spring.", 12),
    ("我明天要去杭州参加一个关于人工智能的会议。", 11),
    ("Ttyl! Woohoo!!!", 8),
    ("reccomendations", 5),
    ("2024-03-15 10:30", 16),
    ("https://example.com/a?b=1", 9),
    ("   indented", 3),
    ("café naïve", 4),
    ("🎉🐶", 2),
    ("龘𠮷", 3),
    ("x² + y² = r²", 8),
    ("def f(x):\n    return x * 2\n", 11),
    ("NASA and the FBI", 4),
    ("e3b0c44298fc1c149afbf4c8996fb924", 28),
    ("你好，世界！Hello World", 6),
    ("ok", 1),
    (" ", 1),
    ("\n\n\n", 1),
    ("...", 1),
    ("I'm sure you'll love it", 7),
    ("硷矽", 4),
    ("Ｈｅｌｌｏ", 5),
    ("ありがとう", 1),
    ("Спасибо", 4),
]

counter = ConservativeTokenCounter()

texts = st.text(min_size=1, max_size=80)
# Characters where the counter's rules meet: case changes, digits, spaces,
# punctuation, rare and common hanzi, combining marks, emoji, CR/LF.
tricky_chars = st.sampled_from(
    list("aAbZzqxQ  \n\r\t.,!?'\"()-_#@:/0123456789")
    + ["的", "龘", "𠮷", "é", "e\u0301", "\u0301", "😀", "\u200d", "，", "ᄀ", "ᅡ"]
)
tricky = st.lists(tricky_chars, min_size=1, max_size=40).map("".join)


def test_port_and_name() -> None:
    assert isinstance(counter, TokenCounter)
    assert counter.name == "conservative-qwen-v1"


def test_empty_string_costs_nothing() -> None:
    assert counter.count("") == 0


@pytest.mark.parametrize(("text", "real"), REAL_QWEN_COUNTS)
def test_never_below_known_real_counts(text: str, real: int) -> None:
    assert counter.count(text) >= real


def test_english_prose_is_not_wildly_pessimistic() -> None:
    text = "I adopted a rescue dog named Biscuit last spring."
    assert counter.count(text) <= 1.5 * 12


def test_common_chinese_costs_at_most_about_one_per_character() -> None:
    text = "我明天要去杭州参加一个关于人工智能的会议。"
    assert 11 <= counter.count(text) <= len(text) + 3


def test_rare_hanzi_cost_more_than_common_ones() -> None:
    assert counter.count("龘靐齉爩") > counter.count("我们你好")


def test_gibberish_costs_more_than_words_of_the_same_length() -> None:
    assert counter.count("xq zk vbw jfp") > counter.count("the cat sat on")


def test_nfc_and_nfd_spellings_count_alike() -> None:
    assert counter.count("caf\u00e9") == counter.count("cafe\u0301")


@given(texts)
def test_non_empty_text_costs_at_least_one(text: str) -> None:
    assert counter.count(text) >= 1


@given(texts)
def test_every_ascii_digit_is_a_token(text: str) -> None:
    """Qwen splits digits one by one, so this is a true lower bound."""
    assert counter.count(text) >= sum(ch in "0123456789" for ch in text)


@given(st.one_of(texts, tricky), st.one_of(texts, tricky))
def test_joining_never_costs_more_than_the_parts(a: str, b: str) -> None:
    """Counting rendered blocks as a whole never exceeds the per-item sum.

    Holds because every text carries a 2.5-token allowance, more than any
    junction can add (a merged word, a rare letter pair, a split space).
    """
    assert counter.count(a + b) <= counter.count(a) + counter.count(b)
    assert counter.count(a + "\n" + b) <= counter.count(a) + counter.count(b)


words = st.one_of(texts, tricky).map(str.strip).filter(bool)


@given(words, words)
def test_adding_a_separate_word_never_lowers_the_count(a: str, b: str) -> None:
    """Only for parts without edge whitespace: "\r " + " \r" folds two
    whitespace pieces into one cheaper piece."""
    joined = counter.count(a + " " + b)
    assert joined >= counter.count(a)
    assert joined >= counter.count(b)


@given(texts)
def test_deterministic(text: str) -> None:
    assert estimate_qwen_tokens(text) == estimate_qwen_tokens(text)
