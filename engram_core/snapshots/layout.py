"""Where a tenant's objects live: one prefix per tenant, numbered immutable generations.

    {tenant}/snap/000000000042.sqlite.zst    generation 42 (create-only, never rewritten)
    {tenant}/latest                          advisory hint: the newest generation someone saw
    {tenant}/quarantine/000000000042.json    why generation 42 is never served
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engram_core.core.errors import ValidationError

_TENANT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
_GENERATION = re.compile(r"/snap/(\d{12})\.sqlite\.zst$")
_QUARANTINE = re.compile(r"/quarantine/(\d{12})\.json$")
MAX_GENERATION = 10**12 - 1


def check_tenant(tenant: str) -> str:
    if not isinstance(tenant, str) or not _TENANT.match(tenant) or ".." in tenant:
        raise ValidationError(
            "tenant must be 1-128 letters, digits, '.', '_' or '-', starting with a letter or digit",
            field="tenant",
        )
    return tenant


@dataclass(frozen=True)
class TenantKeys:
    tenant: str

    def __post_init__(self) -> None:
        check_tenant(self.tenant)

    @property
    def root(self) -> str:
        return f"{self.tenant}/"

    @property
    def snap_prefix(self) -> str:
        return f"{self.tenant}/snap/"

    @property
    def quarantine_prefix(self) -> str:
        return f"{self.tenant}/quarantine/"

    @property
    def hint(self) -> str:
        return f"{self.tenant}/latest"

    def generation(self, number: int) -> str:
        if not 1 <= number <= MAX_GENERATION:
            raise ValidationError(f"generation must be between 1 and {MAX_GENERATION}", field="generation")
        return f"{self.snap_prefix}{number:012d}.sqlite.zst"

    def quarantine(self, number: int) -> str:
        return f"{self.quarantine_prefix}{number:012d}.json"


def generation_of(key: str) -> int | None:
    match = _GENERATION.search(key)
    return int(match.group(1)) if match else None


def quarantined_generation_of(key: str) -> int | None:
    match = _QUARANTINE.search(key)
    return int(match.group(1)) if match else None


def tenant_of(key: str) -> str | None:
    head, sep, _ = key.partition("/")
    return head if sep and _TENANT.match(head) else None


def parse_hint(data: bytes) -> int | None:
    """The hint is advisory: anything unreadable is simply no hint."""
    text = data.decode("ascii", errors="replace").strip()
    return int(text) if text.isdigit() and 0 < int(text) <= MAX_GENERATION else None
