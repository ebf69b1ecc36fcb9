"""Engram's settings: every variable the library reads, read from the environment once into one object.

An entry point (a CLI command, the HTTP service, the MCP server, a benchmark) calls ``load_settings()``
once, at its start, and passes the parts down: ``providers`` to ``provider_root``, ``snapshots`` and
``oss`` to the snapshot layer and the tenant stores. Below the entry points nothing reads the environment
(``tests/test_settings_once.py`` scans the source for it). The variables and their defaults are in
docs/deploy.md; a bad value is a ``ConfigurationError`` that names its variable.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from engram_core.providers.settings import ProviderSettings, key_variable
from engram_core.providers.settings import load_settings as load_provider_settings
from engram_core.snapshots.settings import OssSettings, SnapshotSettings, load_oss_settings, load_snapshot_settings

__all__ = ["OssSettings", "ProviderSettings", "Settings", "SnapshotSettings", "load_settings"]


class Settings(BaseModel):
    """The model providers, snapshot storage and object store settings of one process, validated."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    providers: ProviderSettings
    snapshots: SnapshotSettings
    oss: OssSettings
    key_variable: str | None = None  # which variable held the Qwen Cloud key (``engram doctor`` says so)


def load_settings() -> Settings:
    """Read the environment (once): every part is validated now, so a bad value fails at start-up."""
    return Settings(providers=load_provider_settings(), snapshots=load_snapshot_settings(), oss=load_oss_settings(),
                    key_variable=key_variable())
