"""``engram mcp`` settings: read once from options and the environment into one validated object.

The command's options (and their environment variables) make the ``McpSettings``; ``engram`` holds the
library's settings the command read once (``engram_core.settings``), passed down from there."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic import ValidationError as PydanticValidationError

from engram_core.core.errors import ValidationError
from engram_core.settings import OssSettings, Settings
from engram_core.tenants.ids import check_tenant_id
from engram_core.tenants.credentials import KeyRing, parse_key_entries
from engram_core.tenants.keyfile import read_key_file


class HttpAddress(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    host: str = Field(min_length=1)
    port: int = Field(ge=1, le=65535)

    @property
    def base_url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"


class McpSettings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    store: str = Field(min_length=1, description="a directory (one SQLite per tenant) or oss://bucket/prefix")
    tenant: str = "default"
    embedder: Literal["minilm", "hashing", "qwen"] | None = None  # None: qwen with a Qwen Cloud key, else minilm
    http: HttpAddress | None = None
    engram: Settings


def parse_http_address(text: str) -> HttpAddress:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6)."""
    host, sep, port = text.rpartition(":")
    try:
        if not sep or not port.isdigit():
            raise ValueError(text)
        return HttpAddress(host=host.strip("[]"), port=int(port))
    except (ValueError, PydanticValidationError) as exc:
        raise ValidationError(f"--http expects HOST:PORT with a port from 1 to 65535, got {text!r}",
                              field="http") from exc


def check_store_location(location: str) -> str:
    if location.startswith("oss://"):
        return location
    if Path(location).is_file():
        raise ValidationError(f"{location} is a file; --store takes a directory (one SQLite file per tenant "
                              "under it) or oss://bucket/prefix", field="store")
    return location


def make_settings(store: str, tenant: str, embedder: str | None, http: str | None,
                  engram: Settings) -> McpSettings:
    return McpSettings(store=check_store_location(store), tenant=check_tenant_id(tenant), embedder=embedder,
                       http=parse_http_address(http) if http else None, engram=engram)


def default_store_dir() -> Path:
    from platformdirs import user_data_path  # imported lazily: only the default needs it

    return user_data_path("engram") / "tenants"


def load_keys(env_text: str | None, keys_file: str | None, oss: OssSettings) -> KeyRing:
    """API keys as the HTTP API reads them: a JSON list of {tenant, hash} from the environment and/or a
    keys file (a local path, or oss://bucket/key read with ``oss``)."""
    keys = parse_key_entries(env_text, "ENGRAM_API_KEYS") if env_text else []
    if keys_file:
        keys += parse_key_entries(read_key_file(keys_file, oss), "ENGRAM_API_KEYS_FILE")
    return KeyRing(keys)
