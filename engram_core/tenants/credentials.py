"""Credentials: API keys map to tenants; a separate admin key opens the timer path.

Keys are stored only as salted SHA-256 hashes. API keys are 256-bit random
tokens, so a fast hash cannot be brute-forced; a slow KDF would only tax every
request. A tenant comes from the key alone, never from the request body.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter
from pydantic import ValidationError as PydanticError

from engram_core.core.errors import ConfigurationError
from engram_core.tenants.tenancy import check_tenant_id

KEY_PREFIX = "egk_"
HASH_SCHEME = "sha256"


def _digest(salt: bytes, key: str) -> bytes:
    return hashlib.sha256(salt + key.encode("utf-8")).digest()


def hash_key(key: str, salt: bytes | None = None) -> str:
    """``sha256:<salt hex>:<digest hex>`` for a key; a fresh salt unless one is given."""
    salt = salt if salt is not None else secrets.token_bytes(16)
    return f"{HASH_SCHEME}:{salt.hex()}:{_digest(salt, key).hex()}"


def new_key() -> str:
    return KEY_PREFIX + secrets.token_urlsafe(32)


@dataclass(frozen=True)
class StoredKey:
    tenant: str
    salt: bytes
    digest: bytes

    def matches(self, presented: str) -> bool:
        return hmac.compare_digest(_digest(self.salt, presented), self.digest)


class KeyEntry(BaseModel):
    """One configured API key, as it appears in ENGRAM_API_KEYS or the keys file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tenant: str = Field(min_length=1, max_length=64)
    hash: str = Field(pattern=r"^sha256:[0-9a-f]{16,128}:[0-9a-f]{64}$")

    def stored(self) -> StoredKey:
        _, salt, digest = self.hash.split(":")
        return StoredKey(check_tenant_id(self.tenant), bytes.fromhex(salt), bytes.fromhex(digest))


_ENTRIES = TypeAdapter(list[KeyEntry])


def parse_key_entries(text: str, source: str) -> list[StoredKey]:
    try:
        entries = _ENTRIES.validate_python(json.loads(text))
    except (json.JSONDecodeError, PydanticError) as exc:
        raise ConfigurationError(f"{source} is not a JSON list of {{tenant, hash}} entries", field=source) from exc
    return [entry.stored() for entry in entries]


class KeyRing:
    """Resolves a presented key to its tenant; every entry is checked, so timing says nothing.

    The admin keys: the first signs sleep jobs; every one of them (older ones stay during a rotation)
    is accepted as the admin credential and for a job's signature.
    """

    def __init__(self, keys: list[StoredKey], admin_key: str | None = None, older_admin_keys: tuple[str, ...] = ()
                 ) -> None:
        self._keys = tuple(keys)
        self._admin_keys = tuple(k for k in (admin_key, *older_admin_keys) if k)
        self._admin = [hash_key(k) for k in self._admin_keys]

    def __len__(self) -> int:
        return len(self._keys)

    def tenant_for(self, presented: str | None) -> str | None:
        if not presented:
            return None
        found = None
        for key in self._keys:
            if key.matches(presented) and found is None:
                found = key.tenant
        return found

    def is_admin(self, presented: str | None) -> bool:
        if not presented:
            return False
        found = False
        for stored in self._admin:
            _, salt, digest = stored.split(":")
            found |= hmac.compare_digest(_digest(bytes.fromhex(salt), presented), bytes.fromhex(digest))
        return found

    @property
    def has_admin(self) -> bool:
        return bool(self._admin)

    @property
    def signing_key(self) -> str | None:
        """The admin key new sleep jobs are signed with."""
        return self._admin_keys[0] if self._admin_keys else None

    @property
    def verifying_keys(self) -> tuple[str, ...]:
        return self._admin_keys


def parse_admin_keys(text: str, source: str) -> tuple[str, tuple[str, ...]]:
    """An admin key file: the current key on the first line, older keys still accepted below it."""
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("#")]
    if not lines or any(len(line) < 16 or " " in line for line in lines):
        raise ConfigurationError(f"{source} must hold the admin key (16+ characters, no spaces) on its first line, "
                                 "older keys on the lines below", field=source)
    return lines[0], tuple(lines[1:])


def bearer_token(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header, or None."""
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()
