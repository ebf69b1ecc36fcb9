"""Reading the API keys file: a local path, or an object in OSS (``oss://bucket/key``)."""

from __future__ import annotations

from pathlib import Path

from engram_core.core.errors import ConfigurationError

MAX_KEY_FILE_BYTES = 1024 * 1024


def read_key_file(location: str) -> str:
    if location.startswith("oss://"):
        return _read_oss_object(location)
    path = Path(location)
    try:
        if path.stat().st_size > MAX_KEY_FILE_BYTES:
            raise ConfigurationError(f"keys file {location} is larger than 1 MiB", field="api_keys_file")
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigurationError(f"cannot read keys file {location}: {exc.strerror}", field="api_keys_file") from exc


def _read_oss_object(url: str) -> str:
    from engram_core.snapshots.oss import read_small_object  # the OSS client and its credentials live there

    return read_small_object(url, MAX_KEY_FILE_BYTES).decode("utf-8")
