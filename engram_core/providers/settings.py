"""Provider settings: one validated object, read once from the environment by an entry point.

The API key is a ``SecretStr``: its repr, str and JSON dump are masked, so it cannot
slip into logs, errors, events or exports by way of this object.
"""

from __future__ import annotations

import os
import re
from typing import Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict, SettingsError

from engram_core.core.errors import ConfigurationError

DEFAULT_BASE_URL = "https://dashscope-intl.aliyuncs.com/compatible-mode/v1"
KEY_VARIABLES = ("QWEN_CLOUD_API_KEY", "DASHSCOPE_API_KEY")
ENV_PREFIX = "ENGRAM_"
# Output sizes text-embedding-v4 accepts for ``dimensions``.
EMBED_DIMS = (64, 128, 256, 512, 768, 1024, 1536, 2048)
# DashScope's compatible-mode embeddings take at most 10 texts per request.
EMBED_BATCH_LIMIT = 10


class ModelPrice(BaseModel):
    """USD per million tokens; reasoning tokens bill as output (``thinking_output`` when set)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    input: float = Field(ge=0)
    output: float = Field(0.0, ge=0)
    thinking_output: float | None = Field(None, ge=0)


# International list prices (first context tier) when these defaults were set; override with ENGRAM_PRICES.
DEFAULT_PRICES: dict[str, ModelPrice] = {
    "qwen-flash": ModelPrice(input=0.05, output=0.40),
    "qwen-turbo": ModelPrice(input=0.05, output=0.20, thinking_output=0.50),
    "qwen-plus": ModelPrice(input=0.40, output=1.20, thinking_output=4.00),
    "qwen-max": ModelPrice(input=1.60, output=6.40),
    "text-embedding-v4": ModelPrice(input=0.07),
    "text-embedding-v3": ModelPrice(input=0.07),
}


class ProviderSettings(BaseSettings):
    """Every provider setting; environment names are ``ENGRAM_`` + the field name in capitals."""

    # The key is read from its two documented variables only (never ENGRAM_API_KEY or a stray API_KEY).
    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, frozen=True, extra="ignore")

    provider: Literal["auto", "offline", "qwen"] = "auto"
    api_key: SecretStr | None = Field(None, validation_alias=AliasChoices(*KEY_VARIABLES))
    llm_base_url: str = DEFAULT_BASE_URL
    llm_cheap_model: str = Field("qwen-flash", min_length=1)
    llm_strong_model: str = Field("qwen-plus", min_length=1)
    llm_json_mode: bool = True
    llm_reply_thinking: bool = False
    llm_reply_stream: bool = False
    llm_reply_max_tokens: int | None = Field(None, ge=1)
    llm_timeout_seconds: float = Field(60.0, gt=0, le=3600)
    llm_reply_timeout_seconds: float = Field(180.0, gt=0, le=3600)
    llm_max_retries: int = Field(3, ge=0, le=10)
    llm_backoff_seconds: float = Field(0.5, ge=0, le=60)
    llm_backoff_max_seconds: float = Field(8.0, ge=0, le=600)
    embed_model: str = Field("text-embedding-v4", min_length=1)
    embed_dim: int = 512
    embed_batch_size: int = Field(EMBED_BATCH_LIMIT, ge=1, le=EMBED_BATCH_LIMIT)
    prices: dict[str, ModelPrice] = Field(default_factory=lambda: dict(DEFAULT_PRICES))

    @field_validator("api_key", mode="before")
    @classmethod
    def _blank_is_unset(cls, value: object) -> object:
        if isinstance(value, str) and not value.strip():
            return None
        return value.strip() if isinstance(value, str) else value

    @field_validator("llm_base_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError("must be an http:// or https:// URL")
        return value.rstrip("/")

    @field_validator("embed_dim")
    @classmethod
    def _known_dim(cls, value: int) -> int:
        if value not in EMBED_DIMS:
            raise ValueError(f"must be one of {', '.join(map(str, EMBED_DIMS))}")
        return value

    @field_validator("prices", mode="before")
    @classmethod
    def _merge_prices(cls, value: object) -> object:
        """Given prices extend and override the defaults rather than replace the whole table."""
        return {**DEFAULT_PRICES, **value} if isinstance(value, dict) else value

    @property
    def qwen_active(self) -> bool:
        return self.provider != "offline" and self.api_key is not None

    def secret(self) -> str:
        if self.api_key is None:
            raise ConfigurationError(f"no API key: set {' or '.join(KEY_VARIABLES)}", field="api_key")
        return self.api_key.get_secret_value()

    def price(self, model: str) -> ModelPrice | None:
        return self.prices.get(model)


def key_variable() -> str | None:
    """Which of the key's two variables is set (the first that is), for ``engram doctor`` to name."""
    return next((name for name in KEY_VARIABLES if os.environ.get(name, "").strip()), None)


def _variable(loc: tuple) -> str:
    name = str(loc[0]) if loc else "settings"
    return name if name in KEY_VARIABLES else ENV_PREFIX + name.upper()


def load_settings(**overrides: object) -> ProviderSettings:
    """Read the environment once (``overrides`` win, ``api_key`` among them); bad values name their variable."""
    if "api_key" in overrides:
        overrides[KEY_VARIABLES[0]] = overrides.pop("api_key")
    try:
        return ProviderSettings(**overrides)
    except ValidationError as exc:
        first = exc.errors()[0]
        variable = _variable(first["loc"])
        raise ConfigurationError(f"{variable}: {first['msg']}", field=variable) from exc
    except SettingsError as exc:
        named = re.search(r'field "(\w+)"', str(exc))
        variable = _variable((named.group(1),)) if named else "settings"
        raise ConfigurationError(f"{variable}: not valid JSON", field=variable) from exc
