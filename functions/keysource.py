"""The key ring, kept fresh: the keys file and the admin key file are re-read when they may have changed.

A new tenant's key works, and a revoked key stops working, on every warm
instance within ``ENGRAM_KEYS_RELOAD_SECONDS`` (30 s) of the upload. The check
runs on a request thread, at most once per interval and by one thread at a
time (the others keep using the ring they have). A file that cannot be read or
parsed on a reload leaves the last good ring in place, with a warning; at
start-up it is an error, as before.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from engram_core.tenants.credentials import KeyRing, StoredKey, parse_admin_keys, parse_key_entries
from engram_core.core.errors import ConfigurationError, EngramError
from functions.settings import ServiceSettings

log = logging.getLogger("engram.keys")


@dataclass(frozen=True)
class _Texts:
    keys_file: str | None
    admin_file: str | None


class KeySource:
    """Answers like a KeyRing (``tenant_for``, ``is_admin``, ...) from the newest good copy of its files."""

    def __init__(self, settings: ServiceSettings, static_keys: list[StoredKey],
                 read: Callable[[str], str], clock: Callable[[], float] = time.monotonic) -> None:
        """``read``: a location's text (``read_key_file`` on the settings read at start-up, in the service)."""
        if settings.admin_key is not None and settings.admin_key_file:
            raise ConfigurationError("set ENGRAM_ADMIN_KEY or ENGRAM_ADMIN_KEY_FILE, not both", field="admin_key_file")
        self._settings, self._static, self._read, self._clock = settings, static_keys, read, clock
        self._lock = threading.Lock()
        self._texts = self._read_texts()
        self._ring = self._build(self._texts)  # errors here stop the start-up
        self._checked = clock()

    def _read_texts(self) -> _Texts:
        keys_file, admin_file = self._settings.api_keys_file, self._settings.admin_key_file
        return _Texts(self._read(keys_file) if keys_file else None, self._read(admin_file) if admin_file else None)

    def _build(self, texts: _Texts) -> KeyRing:
        keys = list(self._static)
        if texts.keys_file is not None:
            keys += parse_key_entries(texts.keys_file, "ENGRAM_API_KEYS_FILE")
        if texts.admin_file is not None:
            admin, older = parse_admin_keys(texts.admin_file, "ENGRAM_ADMIN_KEY_FILE")
            return KeyRing(keys, admin, older)
        admin_key = self._settings.admin_key
        return KeyRing(keys, admin_key.get_secret_value() if admin_key else None)

    @property
    def ring(self) -> KeyRing:
        """The current ring, re-read first when the interval has passed."""
        if self._clock() - self._checked >= self._settings.keys_reload_seconds and self._lock.acquire(blocking=False):
            try:
                self._checked = self._clock()  # set first: a failing store is not asked again at once
                self._reload()
            finally:
                self._lock.release()
        return self._ring

    def _reload(self) -> None:
        try:
            texts = self._read_texts()
            if texts == self._texts:
                return
            ring = self._build(texts)
        except EngramError as exc:
            log.warning("keys not reloaded, the previous ones stay in use: %s", exc.message)
            return
        self._ring, self._texts = ring, texts
        log.info("keys reloaded: %d API keys, %d admin keys", len(ring), len(ring.verifying_keys))

    # -- the KeyRing interface -------------------------------------------------------------
    def tenant_for(self, presented: str | None) -> str | None:
        return self.ring.tenant_for(presented)

    def is_admin(self, presented: str | None) -> bool:
        return self.ring.is_admin(presented)

    @property
    def has_admin(self) -> bool:
        return self.ring.has_admin

    @property
    def signing_key(self) -> str | None:
        return self.ring.signing_key

    @property
    def verifying_keys(self) -> tuple[str, ...]:
        return self.ring.verifying_keys

    def __len__(self) -> int:
        return len(self.ring)
