"""Reading the API keys file: a local path, or an object in OSS (``oss://bucket/key``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from engram_core.core.errors import ConfigurationError

if TYPE_CHECKING:
    from engram_core.snapshots.settings import OssSettings

MAX_KEY_FILE_BYTES = 1024 * 1024


def read_key_file(location: str, oss: OssSettings) -> str:
    """The file's text; ``oss`` signs the request when the location is ``oss://bucket/key``."""
    if location.startswith("oss://"):
        return _read_oss_object(location, oss)
    path = Path(location)
    try:
        if path.stat().st_size > MAX_KEY_FILE_BYTES:
            raise ConfigurationError(f"keys file {location} is larger than 1 MiB", field="api_keys_file")
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigurationError(f"cannot read keys file {location}: {exc.strerror}", field="api_keys_file") from exc


def _read_oss_object(url: str, oss: OssSettings) -> str:
    from engram_core.snapshots.oss import read_small_object  # the OSS client lives there

    return read_small_object(url, MAX_KEY_FILE_BYTES, oss).decode("utf-8")
