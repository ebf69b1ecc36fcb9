"""Service settings: read once from the environment into one validated object.

``AppSettings`` is everything the HTTP service reads: its own ``ServiceSettings`` and the library's
``Settings`` (providers, snapshot storage, the object store), read together once when the service starts
(``load_app_settings``) and passed down from there. Every service variable is listed by ``env_table()``;
docs/deploy.md's table is checked against it by a test, so the documentation cannot drift from the code.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, SecretStr, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from engram_core.core.errors import ConfigurationError
from engram_core.settings import Settings
from engram_core.settings import load_settings as load_engram_settings

PREFIX = "ENGRAM_"
SYNC_BODY_LIMIT = 32 * 1024 * 1024  # FC's limit for a synchronous request body


class FunctionRole(str, Enum):
    """Which routes one process serves: a deployed function serves its own, ``engram serve`` all."""

    ALL = "all"
    CHAT = "chat"
    MEMORIES = "memories"
    CONSOLIDATE = "consolidate"
    JOBS = "jobs"  # POST /invoke only: timer events and sleep jobs (on FC: a function with no HTTP trigger)


class Platform(str, Enum):
    """Where the service runs: what the platform vouches for in a request depends on it (clients cannot
    send x-fc-* headers through FC's HTTP triggers or custom domains)."""

    LOCAL = "local"  # nothing in a request comes from a platform: every x-fc-* header is the client's
    FC = "fc"  # Function Compute: x-fc-* headers come from the platform, which also calls the lifecycle hooks


class FanoutMode(str, Enum):
    LOCAL = "local"  # the timer's per-tenant jobs go to this server's own /invoke
    FC = "fc"  # through Function Compute's InvokeFunction API, asynchronously


class ServiceSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix=PREFIX, extra="ignore", frozen=True)

    tenant_store: str | None = Field(
        None, description="Tenant stores: a directory, or oss://bucket/prefix (default: a per-user data dir).")
    embedder: str | None = Field(
        None, description="minilm, hashing or qwen (default: qwen with a Qwen Cloud key, else minilm).")
    function: FunctionRole = Field(
        FunctionRole.ALL, description="Routes to serve: all, chat, memories, consolidate or jobs (POST /invoke).")
    platform: Platform = Field(
        Platform.LOCAL, description="local, or fc on Function Compute: only then are x-fc-* request headers "
                                    "(STS credentials) used, the lifecycle hooks open without the admin key, "
                                    "and events on the jobs function trusted as the platform's.")
    api_keys: SecretStr | None = Field(
        None, description='API keys as salted hashes: JSON list of {"tenant", "hash"} (see `engram serve --new-key`).')
    api_keys_file: str | None = Field(None, description="A file (path or oss://bucket/key) with the same JSON list.")
    admin_key: SecretStr | None = Field(
        None, description="Admin key: /invoke's credential off FC, and the key sleep jobs are signed with (secret).")
    admin_key_file: str | None = Field(
        None, description="A file (path or oss://bucket/key) holding the admin key; further lines: older keys "
                          "still accepted (rotation).")
    keys_reload_seconds: float = Field(
        30.0, ge=0, description="The keys file and admin key file are re-read at most this often (0: every request).")

    rate_per_minute: float = Field(
        60.0, gt=0, description="Model-calling requests per tenant per minute, per instance.")
    rate_burst: int = Field(20, ge=1, description="Burst size of the per-tenant rate limit.")
    max_body_bytes: int = Field(SYNC_BODY_LIMIT, ge=1024, le=SYNC_BODY_LIMIT, description="Largest request body.")
    sleep_period_hours: float = Field(24.0, gt=0, description="A tenant is due for a sleep cycle after this long.")
    fanout_max_per_run: int = Field(100, ge=1, le=10_000, description="Most tenants one timer event dispatches.")
    fanout_mode: FanoutMode = Field(FanoutMode.LOCAL, description="local (this server) or fc (InvokeFunction, async).")
    local_url: str | None = Field(None, description="Base URL of the server that runs local jobs (default: this one).")
    fc_endpoint: str | None = Field(
        None, description="FC API endpoint (default: <FC_ACCOUNT_ID>.<FC_REGION>-internal.fc.aliyuncs.com).")
    fc_protocol: str = Field("https", pattern="^https?$", description="Protocol of the FC API endpoint.")
    fc_sleep_function: str | None = Field(
        None, description="Function that runs per-tenant sleep jobs (default: FC_FUNCTION_NAME, this function).")
    fc_account_id: str | None = Field(None, validation_alias=AliasChoices("FC_ACCOUNT_ID"),
                                      description="Set by Function Compute.")
    fc_region: str | None = Field(None, validation_alias=AliasChoices("FC_REGION"),
                                  description="Set by Function Compute.")
    fc_function_name: str | None = Field(None, validation_alias=AliasChoices("FC_FUNCTION_NAME"),
                                         description="Set by Function Compute.")
    access_key_id: SecretStr | None = Field(
        None, validation_alias=AliasChoices("ALIBABA_CLOUD_ACCESS_KEY_ID"),
        description="Set by Function Compute from the function's role (STS).")
    access_key_secret: SecretStr | None = Field(
        None, validation_alias=AliasChoices("ALIBABA_CLOUD_ACCESS_KEY_SECRET"),
        description="Set by Function Compute from the function's role (STS).")
    security_token: SecretStr | None = Field(
        None, validation_alias=AliasChoices("ALIBABA_CLOUD_SECURITY_TOKEN"),
        description="Set by Function Compute from the function's role (STS).")
    log_level: str = Field("INFO", pattern="^(DEBUG|INFO|WARNING|ERROR)$", description="Log level.")

    def tenant_root(self) -> str:
        if self.tenant_store:
            return self.tenant_store
        from platformdirs import user_data_path  # only the local default needs it

        return str(Path(user_data_path("engram")) / "tenants")

    def fc_api_endpoint(self) -> str:
        if self.fc_endpoint:
            return self.fc_endpoint
        if not (self.fc_account_id and self.fc_region):
            raise ConfigurationError("set ENGRAM_FC_ENDPOINT (or run on Function Compute)", field="fc_endpoint")
        # Inside FC, the region's internal per-account endpoint: no Internet traffic for the fan-out.
        return f"{self.fc_account_id}.{self.fc_region}-internal.fc.aliyuncs.com"

    def sleep_function(self) -> str:
        name = self.fc_sleep_function or self.fc_function_name
        if not name:
            raise ConfigurationError("set ENGRAM_FC_SLEEP_FUNCTION", field="fc_sleep_function")
        return name


def load_settings(**overrides: object) -> ServiceSettings:
    """Environment first, then explicit overrides (command-line options); invalid values are one clear error."""
    try:
        return ServiceSettings(**{k: v for k, v in overrides.items() if v is not None})
    except ValidationError as exc:
        first = exc.errors()[0]
        name = env_name(str(first["loc"][0])) if first["loc"] else "settings"
        raise ConfigurationError(f"{name}: {first['msg']}", field=name) from exc


class AppSettings(BaseModel):
    """The HTTP service's one settings object: the service's own, and the library's."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    service: ServiceSettings
    engram: Settings


def load_app_settings(**overrides: object) -> AppSettings:
    """The environment, read once, at start-up: the service's settings (``overrides``, the command-line
    options, win) and the library's. A bad value in either is one clear error."""
    return AppSettings(service=load_settings(**overrides), engram=load_engram_settings())


def env_name(field_name: str) -> str:
    field = ServiceSettings.model_fields[field_name]
    if field.validation_alias is not None:
        return str(field.validation_alias.choices[0])
    return PREFIX + field_name.upper()


def _default_text(field_name: str) -> str:
    default = ServiceSettings.model_fields[field_name].default
    if default is None:
        return ""
    return f"`{default.value if isinstance(default, Enum) else default}`"


def env_table() -> str:
    """The Markdown table of every environment variable the service reads."""
    lines = ["| variable | default | meaning |", "| --- | --- | --- |"]
    for name, field in ServiceSettings.model_fields.items():
        lines.append(f"| `{env_name(name)}` | {_default_text(name)} | {field.description} |")
    return "\n".join(lines)
