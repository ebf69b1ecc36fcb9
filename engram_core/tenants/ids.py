"""Tenant ids (pure): they become path segments and object-key prefixes, so they stay boring."""

from __future__ import annotations

import re

from engram_core.core.errors import ValidationError

_TENANT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def check_tenant_id(tenant: str) -> str:
    """Tenant ids become path segments and object-key prefixes: keep them boring."""
    if not isinstance(tenant, str) or not _TENANT_ID.match(tenant) or ".." in tenant:
        raise ValidationError("tenant id must be 1-64 letters, digits, '_', '-' or '.'", field="tenant")
    return tenant
