"""Provider settings from the environment, and which providers an engine gets from them."""

from __future__ import annotations

import pytest

from engram_core.adapters.hashing import HashingEmbedder
from engram_core.adapters.minilm import MiniLMEmbedder
from engram_core.adapters.offline.llm import OfflineLLM
from engram_core.core.errors import ConfigurationError
from engram_core.providers import build_providers
from engram_core.providers.qwen import QwenLLM
from engram_core.providers.qwen_embed import QwenEmbedder
from engram_core.providers.settings import DEFAULT_BASE_URL, load_settings
from engram_core.providers.usage import estimate_cost

SECRET = "sk-settings-0d9e8f7a6b5c"


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in ("QWEN_CLOUD_API_KEY", "DASHSCOPE_API_KEY", "ENGRAM_PROVIDER", "ENGRAM_LLM_BASE_URL",
                 "ENGRAM_EMBED_DIM", "ENGRAM_PRICES", "ENGRAM_LLM_STRONG_MODEL"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_defaults_are_offline_with_the_documented_models(env: pytest.MonkeyPatch) -> None:
    s = load_settings()
    assert (s.api_key, s.qwen_active, s.llm_base_url) == (None, False, DEFAULT_BASE_URL)
    assert (s.llm_cheap_model, s.llm_strong_model, s.embed_model, s.embed_dim) == (
        "qwen-flash", "qwen-plus", "text-embedding-v4", 512)
    assert s.llm_max_retries >= 1 and s.llm_timeout_seconds > 0 and s.embed_batch_size == 10


@pytest.mark.parametrize("variable", ["QWEN_CLOUD_API_KEY", "DASHSCOPE_API_KEY"])
def test_either_key_variable_turns_qwen_on(env: pytest.MonkeyPatch, variable: str) -> None:
    env.setenv(variable, SECRET)
    s = load_settings()
    assert s.qwen_active and s.secret() == SECRET


def test_qwen_cloud_key_wins_over_dashscope_key(env: pytest.MonkeyPatch) -> None:
    env.setenv("DASHSCOPE_API_KEY", "sk-other")
    env.setenv("QWEN_CLOUD_API_KEY", SECRET)
    assert load_settings().secret() == SECRET


def test_only_the_two_documented_variables_carry_a_key(env: pytest.MonkeyPatch) -> None:
    for name in ("API_KEY", "ENGRAM_API_KEY", "OPENAI_API_KEY"):
        env.setenv(name, SECRET)
    assert load_settings().api_key is None and not load_settings().qwen_active


def test_a_blank_key_counts_as_unset(env: pytest.MonkeyPatch) -> None:
    env.setenv("QWEN_CLOUD_API_KEY", "   ")
    assert load_settings().api_key is None


def test_environment_overrides_are_read(env: pytest.MonkeyPatch) -> None:
    env.setenv("ENGRAM_LLM_BASE_URL", "http://127.0.0.1:8000/v1/")
    env.setenv("ENGRAM_EMBED_DIM", "256")
    env.setenv("ENGRAM_LLM_STRONG_MODEL", "qwq-plus")
    env.setenv("ENGRAM_PRICES", '{"qwq-plus": {"input": 0.8, "output": 2.4}}')
    s = load_settings()
    assert (s.llm_base_url, s.embed_dim, s.llm_strong_model) == ("http://127.0.0.1:8000/v1", 256, "qwq-plus")
    assert s.price("qwq-plus").output == 2.4 and s.price("qwen-flash") is not None  # merged, not replaced


@pytest.mark.parametrize(("variable", "value", "needle"), [
    ("ENGRAM_EMBED_DIM", "300", "ENGRAM_EMBED_DIM"),
    ("ENGRAM_LLM_BASE_URL", "dashscope.example", "ENGRAM_LLM_BASE_URL"),
    ("ENGRAM_PROVIDER", "openai", "ENGRAM_PROVIDER"),
    ("ENGRAM_PRICES", "{not json", "ENGRAM_PRICES"),
    ("ENGRAM_LLM_MAX_RETRIES", "-1", "ENGRAM_LLM_MAX_RETRIES"),
])
def test_bad_values_name_their_variable(env: pytest.MonkeyPatch, variable: str, value: str, needle: str) -> None:
    env.setenv(variable, value)
    with pytest.raises(ConfigurationError) as caught:
        load_settings()
    assert needle in caught.value.message and caught.value.field == needle


def test_the_key_is_masked_everywhere_the_settings_object_prints(env: pytest.MonkeyPatch) -> None:
    env.setenv("QWEN_CLOUD_API_KEY", SECRET)
    s = load_settings()
    shown = [repr(s), str(s), s.model_dump_json(), str(s.model_dump())]
    assert all(SECRET not in text for text in shown)


def test_a_bad_setting_next_to_a_key_does_not_echo_the_key(env: pytest.MonkeyPatch) -> None:
    env.setenv("QWEN_CLOUD_API_KEY", SECRET)
    env.setenv("ENGRAM_EMBED_DIM", "7")
    with pytest.raises(ConfigurationError) as caught:
        load_settings()
    assert SECRET not in str(caught.value)


def test_without_a_key_providers_are_the_offline_default(env: pytest.MonkeyPatch) -> None:
    p = build_providers(load_settings())
    assert isinstance(p.llm, OfflineLLM) and isinstance(p.embedder, MiniLMEmbedder) and p.usage is None
    assert "no Qwen Cloud key" in p.llm_reason


def test_with_a_key_every_port_not_passed_in_uses_qwen(env: pytest.MonkeyPatch) -> None:
    env.setenv("QWEN_CLOUD_API_KEY", SECRET)
    p = build_providers(load_settings())
    assert isinstance(p.llm, QwenLLM) and isinstance(p.embedder, QwenEmbedder) and p.usage is not None
    assert p.llm_reason == p.embedder_reason == "Qwen Cloud key is set"
    local = build_providers(load_settings(), embedder="hashing")
    assert isinstance(local.llm, QwenLLM) and isinstance(local.embedder, HashingEmbedder)


def test_provider_offline_wins_over_a_key(env: pytest.MonkeyPatch) -> None:
    env.setenv("QWEN_CLOUD_API_KEY", SECRET)
    env.setenv("ENGRAM_PROVIDER", "offline")
    p = build_providers(load_settings())
    assert isinstance(p.llm, OfflineLLM) and p.usage is None and p.llm_reason == "ENGRAM_PROVIDER=offline"


@pytest.mark.parametrize(("provider", "embedder"), [("qwen", None), ("auto", "qwen")])
def test_asking_for_qwen_without_a_key_is_a_clear_error(env: pytest.MonkeyPatch, provider: str,
                                                        embedder: str | None) -> None:
    env.setenv("ENGRAM_PROVIDER", provider)
    with pytest.raises(ConfigurationError, match="QWEN_CLOUD_API_KEY or DASHSCOPE_API_KEY"):
        build_providers(load_settings(), embedder=embedder)


def test_unknown_embedder_name_is_refused(env: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigurationError, match="unknown embedder"):
        build_providers(load_settings(), embedder="word2vec")


def test_cost_estimate_uses_per_million_prices(env: pytest.MonkeyPatch) -> None:
    price = load_settings().price("qwen-plus")
    assert estimate_cost(price, 1_000_000, 0) == pytest.approx(0.40)
    assert estimate_cost(price, 0, 1_000_000) == pytest.approx(1.20)
    assert estimate_cost(price, 0, 1_000_000, thinking=True) == pytest.approx(4.00)
    assert estimate_cost(None, 10**6, 10**6) == 0.0
