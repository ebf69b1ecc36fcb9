"""The dev API key of ``engram serve``, kept between starts so an open board tab stays signed in.

It lives beside the tenant stores, readable by its owner only (0600); ``--new-dev-key``
replaces it. Only a local directory keeps one: cloud storage never has a dev key.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

DEV_KEY_FILE = "dev-api-key"
_KEY = re.compile(r"^egk_[A-Za-z0-9_-]{20,200}$")


def dev_key_path(tenant_root: str) -> Path:
    return Path(tenant_root) / DEV_KEY_FILE


def read_dev_key(path: Path) -> str | None:
    """The kept key, or None when there is none (or it is not a key); a looser file mode is tightened."""
    try:
        mode = path.stat().st_mode
        text = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None
    if stat.S_IMODE(mode) & 0o077:
        os.chmod(path, 0o600)
    return text if _KEY.match(text) else None


def write_dev_key(path: Path, key: str) -> None:
    """Written whole or not at all: a temporary file created 0600, then renamed over the old one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(key + "\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.chmod(temporary, 0o600)  # the umask cannot have widened it, but an existing .tmp file might be wider
    os.replace(temporary, path)


def kept_dev_key(tenant_root: str, new_key: str, renew: bool) -> tuple[str, bool]:
    """(the key, whether it was made now): the kept one unless ``renew`` or there is none."""
    path = dev_key_path(tenant_root)
    existing = None if renew else read_dev_key(path)
    if existing is not None:
        return existing, False
    write_dev_key(path, new_key)
    return new_key, True
