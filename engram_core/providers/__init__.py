"""Model providers: Qwen Cloud when a key is configured, the offline embedded default otherwise."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from engram_core.core.errors import ConfigurationError, ValidationError
from engram_core.core.ports import LLM, Embedder
from engram_core.providers.settings import KEY_VARIABLES, ProviderSettings
from engram_core.providers.usage import UsageMeter

if TYPE_CHECKING:  # the openai client loads only when Qwen is actually used
    import openai

    from engram_core.providers.transport import Transport

__all__ = ["ProviderRoot", "Providers", "ProviderSettings", "build_providers", "provider_root"]

LOCAL_EMBEDDERS = ("minilm", "hashing")
QWEN_EMBEDDER = "qwen"


@dataclass(frozen=True)
class Providers:
    """The ports an engine gets, the meter their calls go to, and why each was chosen."""

    llm: LLM
    embedder: Embedder
    usage: UsageMeter | None
    llm_reason: str
    embedder_reason: str


def _offline_reason(settings: ProviderSettings) -> str:
    if settings.provider == "offline":
        return "ENGRAM_PROVIDER=offline"
    return f"no Qwen Cloud key ({' or '.join(KEY_VARIABLES)}) is set"


def _check_mode(settings: ProviderSettings, embedder: Embedder | str | None) -> None:
    wants_qwen = settings.provider == "qwen" or embedder == QWEN_EMBEDDER
    if wants_qwen and settings.api_key is None:
        raise ConfigurationError(f"Qwen Cloud needs an API key: set {' or '.join(KEY_VARIABLES)}", field="api_key")
    if embedder == QWEN_EMBEDDER and settings.provider == "offline":
        raise ConfigurationError("the qwen embedder cannot run with ENGRAM_PROVIDER=offline", field="embedder")


def _pick_llm(settings: ProviderSettings, llm: LLM | None, transport: Transport | None) -> tuple[LLM, str]:
    if llm is not None:
        return llm, "passed in by the caller"
    if transport is not None and settings.qwen_active:
        from engram_core.providers.qwen import QwenLLM

        return QwenLLM(settings, transport), "Qwen Cloud key is set"
    from engram_core.adapters.offline.llm import OfflineLLM

    return OfflineLLM(), _offline_reason(settings)


def local_embedder(name: str = "minilm") -> Embedder:
    """``minilm`` (local all-MiniLM-L6-v2, the default) or ``hashing`` (fast, for tests)."""
    if name == "minilm":
        from engram_core.adapters.minilm import MiniLMEmbedder

        return MiniLMEmbedder()
    if name == "hashing":
        from engram_core.adapters.hashing import HashingEmbedder

        return HashingEmbedder()
    raise ValidationError(f"unknown embedder {name!r}; use minilm or hashing", field="embedder")


def _pick_embedder(settings: ProviderSettings, embedder: Embedder | str | None,
                   transport: Transport | None) -> tuple[Embedder, str]:
    if embedder is not None and not isinstance(embedder, str):
        return embedder, "passed in by the caller"
    if embedder in LOCAL_EMBEDDERS:
        return local_embedder(embedder), f"chosen by name ({embedder})"
    if embedder not in (None, QWEN_EMBEDDER):
        choices = ", ".join((*LOCAL_EMBEDDERS, QWEN_EMBEDDER))
        raise ConfigurationError(f"unknown embedder {embedder!r}; use one of: {choices}", field="embedder")
    if transport is not None and (embedder == QWEN_EMBEDDER or settings.qwen_active):
        from engram_core.providers.qwen_embed import QwenEmbedder

        why = "chosen by name (qwen)" if embedder == QWEN_EMBEDDER else "Qwen Cloud key is set"
        return QwenEmbedder(settings, transport), why
    return local_embedder("minilm"), _offline_reason(settings) + ": local MiniLM"


def _needs_qwen(settings: ProviderSettings, embedder: Embedder | str | None, llm: LLM | None) -> bool:
    return settings.qwen_active and (llm is None or embedder in (None, QWEN_EMBEDDER))


def build_providers(settings: ProviderSettings, *, embedder: Embedder | str | None = None,
                    llm: LLM | None = None, client: openai.OpenAI | None = None) -> Providers:
    """Qwen for whatever the caller did not pass in, when the settings hold a key (and not ENGRAM_PROVIDER=offline).

    ``client``: an OpenAI client to share (see ``ProviderRoot``); without one, a new one is made.
    """
    _check_mode(settings, embedder)
    meter = UsageMeter(settings.prices) if _needs_qwen(settings, embedder, llm) else None
    transport = None
    if meter is not None:
        from engram_core.providers.transport import Transport

        transport = Transport(settings, meter, client)
    chosen_llm, llm_reason = _pick_llm(settings, llm, transport)
    chosen_embedder, embedder_reason = _pick_embedder(settings, embedder, transport)
    return Providers(chosen_llm, chosen_embedder, meter, llm_reason, embedder_reason)


@dataclass(frozen=True)
class ProviderRoot:
    """What an entry point builds once: the provider settings it read, the caller's choices, and one
    OpenAI client that every engine it opens shares. Each engine still gets its own usage meter, so one
    tenant's model calls are never stored in another's usage log."""

    settings: ProviderSettings
    embedder: Embedder | str | None = None
    llm: LLM | None = None
    client: openai.OpenAI | None = None

    def providers(self) -> Providers:
        """The ports for one engine: the shared client behind a fresh meter."""
        return build_providers(self.settings, embedder=self.embedder, llm=self.llm, client=self.client)

    @property
    def hosted_embedder(self) -> bool:
        """Would every text these engines embed call a hosted model (Qwen Cloud's)?"""
        return self.embedder == QWEN_EMBEDDER or (self.embedder is None and self.settings.qwen_active)


def provider_root(settings: ProviderSettings, *, embedder: Embedder | str | None = None,
                  llm: LLM | None = None) -> ProviderRoot:
    """The providers of an entry point, from the settings it read: checked now (a bad choice fails at start-up,
    not per tenant), with the one OpenAI client every engine shares."""
    _check_mode(settings, embedder)
    client = None
    if _needs_qwen(settings, embedder, llm):
        from engram_core.providers.transport import make_client

        client = make_client(settings)
    return ProviderRoot(settings, embedder, llm, client)
