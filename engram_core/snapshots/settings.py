"""Snapshot storage settings: read once from the environment into validated objects (``engram_core.settings``).

Credentials are ``SecretStr``: masked in repr, str and JSON, so they cannot
reach a log line or an error message by way of these objects.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Literal
from urllib.parse import urlsplit

from pydantic import AliasChoices, Field, SecretStr, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from engram_core.core.errors import ConfigurationError
from engram_core.core.errors import ValidationError as EngramValidationError

if TYPE_CHECKING:
    from engram_core.snapshots.disk import DiskBudget

_BUCKET = re.compile(r"^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$")
# A regional OSS endpoint names its region: oss-cn-hangzhou.aliyuncs.com, oss-ap-southeast-1-internal.aliyuncs.com.
_REGIONAL_ENDPOINT = re.compile(r"(?:^|\.)oss-(?!accelerate)([a-z]+-[a-z0-9-]+?)(?:-internal)?\.aliyuncs\.com$")
# Function Compute hands the function role's STS credentials to HTTP handlers in these headers.
FC_CREDENTIAL_HEADERS = {
    "access_key_id": "x-fc-access-key-id",
    "access_key_secret": "x-fc-access-key-secret",
    "security_token": "x-fc-security-token",
}


def _aliases(*names: str) -> AliasChoices:
    return AliasChoices(*names, *(n.lower() for n in names))


class OssSettings(BaseSettings):
    """Object store connection. Environment names are listed in docs/deploy.md."""

    model_config = SettingsConfigDict(frozen=True, extra="ignore", populate_by_name=True)

    endpoint: str | None = Field(None, validation_alias=_aliases("ENGRAM_OSS_ENDPOINT", "OSS_ENDPOINT"))
    access_key_id: SecretStr | None = Field(None, validation_alias=_aliases(
        "ENGRAM_OSS_ACCESS_KEY_ID", "ALIBABA_CLOUD_ACCESS_KEY_ID", "OSS_ACCESS_KEY_ID"))
    access_key_secret: SecretStr | None = Field(None, validation_alias=_aliases(
        "ENGRAM_OSS_ACCESS_KEY_SECRET", "ALIBABA_CLOUD_ACCESS_KEY_SECRET", "OSS_ACCESS_KEY_SECRET"))
    security_token: SecretStr | None = Field(None, validation_alias=_aliases(
        "ENGRAM_OSS_SECURITY_TOKEN", "ALIBABA_CLOUD_SECURITY_TOKEN", "OSS_SESSION_TOKEN"))
    dialect: Literal["oss", "s3"] = Field("oss", validation_alias=_aliases("ENGRAM_OSS_DIALECT"))
    region: str | None = Field(None, pattern=r"^[a-z]+-[a-z0-9-]+$", validation_alias=_aliases("ENGRAM_OSS_REGION"),
                               description="Region of the bucket, for OSS signature V4 (default: from the endpoint).")
    connect_timeout: float = Field(10.0, gt=0, validation_alias=_aliases("ENGRAM_OSS_CONNECT_TIMEOUT"))

    def with_fc_credentials(self, headers: Mapping[str, str]) -> OssSettings:
        """The same settings with the STS credentials a Function Compute request carries."""
        lowered = {k.lower(): v for k, v in headers.items()}
        found = {field: SecretStr(lowered[h]) for field, h in FC_CREDENTIAL_HEADERS.items() if lowered.get(h)}
        return self.model_copy(update=found) if found else self

    def require_endpoint(self) -> str:
        if not self.endpoint:
            raise ConfigurationError("set ENGRAM_OSS_ENDPOINT (e.g. https://oss-cn-hangzhou.aliyuncs.com)",
                                     field="ENGRAM_OSS_ENDPOINT")
        return self.endpoint

    def signing_region(self) -> str:
        """The region every request is signed for (signature V4; OSS refuses V1 for new buckets)."""
        region = self.region or region_of_endpoint(self.endpoint or "")
        if region is None:
            raise ConfigurationError(
                "OSS requests are signed with signature V4, which needs the bucket's region: set ENGRAM_OSS_REGION "
                "(e.g. cn-hangzhou) or use a regional endpoint such as https://oss-cn-hangzhou-internal.aliyuncs.com",
                field="ENGRAM_OSS_REGION")
        return region

    def require_keys(self) -> tuple[str, str]:
        if self.access_key_id is None or self.access_key_secret is None:
            raise ConfigurationError(
                "no object store credentials: set ENGRAM_OSS_ACCESS_KEY_ID and ENGRAM_OSS_ACCESS_KEY_SECRET "
                "(or ALIBABA_CLOUD_ACCESS_KEY_ID/_SECRET, as Function Compute does)", field="ENGRAM_OSS_ACCESS_KEY_ID")
        return self.access_key_id.get_secret_value(), self.access_key_secret.get_secret_value()


class SnapshotSettings(BaseSettings):
    """Retention, warm cache and commit retries; environment names are ``ENGRAM_SNAPSHOT_`` + field."""

    model_config = SettingsConfigDict(env_prefix="ENGRAM_SNAPSHOT_", frozen=True, extra="ignore",
                                      populate_by_name=True)

    keep: int = Field(5, ge=1, description="Newest generations garbage collection always keeps.")
    grace_seconds: float = Field(3600.0, ge=0, description="Younger generations are kept too; make it "
                                 "longer than the longest function timeout.")
    cache_dir: Path | None = Field(None, description="Warm cache directory (default: a per-user cache dir).")
    cache_mb: int = Field(512, ge=1, description="Warm cache size bound, in MiB (default: 512, or 30% of the "
                                                 "disk less a reserve when ENGRAM_DISK_MB is set).")
    disk_mb: int | None = Field(None, ge=64, validation_alias=_aliases("ENGRAM_DISK_MB"),
                                description="Disk the instance may write (FC's diskSize); bounds cache and replicas.")
    max_attempts: int = Field(8, ge=1, le=1000, description="Commit attempts before a busy error.")
    compression_level: int = Field(1, ge=1, le=19, description="zstd level of generation payloads.")
    delta_chain: int = Field(32, ge=0, le=1000, description="Delta generations after a full snapshot before "
                             "a commit writes a full one again (0: every commit writes the whole database).")
    delta_share: float = Field(0.5, ge=0, description="A chain's deltas may add up to this share of its full "
                               "snapshot's bytes; past it the commit writes a full one.")


def budget_of(settings: SnapshotSettings) -> DiskBudget:
    """The cache and replica bounds: an explicit ENGRAM_SNAPSHOT_CACHE_MB, else a share of the disk."""
    from engram_core.snapshots.disk import disk_budget

    explicit = settings.cache_mb if "cache_mb" in settings.model_fields_set else None
    return disk_budget(settings.disk_mb, explicit)


def _load(model: type[BaseSettings], prefix: str, overrides: dict[str, object]) -> BaseSettings:
    try:
        return model(**overrides)
    except ValidationError as exc:
        first = exc.errors()[0]
        name = str(first["loc"][0]) if first["loc"] else "settings"
        variable = name.upper() if name.isupper() or name.upper().startswith("ENGRAM_") else prefix + name.upper()
        raise ConfigurationError(f"{variable}: {first['msg']}", field=variable) from exc


def region_of_endpoint(endpoint: str) -> str | None:
    """``https://oss-cn-hangzhou-internal.aliyuncs.com`` -> ``cn-hangzhou``; None for any other host."""
    host = urlsplit(endpoint if "://" in endpoint else f"//{endpoint}").hostname or ""
    found = _REGIONAL_ENDPOINT.search(host)
    return found.group(1) if found else None


def load_oss_settings(**overrides: object) -> OssSettings:
    return _load(OssSettings, "ENGRAM_OSS_", overrides)  # type: ignore[return-value]


def load_snapshot_settings(**overrides: object) -> SnapshotSettings:
    return _load(SnapshotSettings, "ENGRAM_SNAPSHOT_", overrides)  # type: ignore[return-value]


def parse_oss_url(url: str) -> tuple[str, str]:
    """``oss://bucket/prefix`` -> (bucket, prefix without surrounding slashes)."""
    if not url.startswith("oss://"):
        raise EngramValidationError(f"not an oss:// location: {url!r}", field="store")
    bucket, _, prefix = url[len("oss://"):].partition("/")
    if not _BUCKET.match(bucket):
        raise EngramValidationError(f"invalid bucket name {bucket!r} in {url!r}", field="store")
    prefix = prefix.strip("/")
    if any(part in ("", ".", "..") for part in prefix.split("/")) and prefix:
        raise EngramValidationError(f"invalid prefix in {url!r}", field="store")
    return bucket, prefix
