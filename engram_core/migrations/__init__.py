"""The store's numbered schema migrations (``NNN_name.sql``), applied in order; the newest number is the schema."""

from __future__ import annotations

import re
from importlib import resources

_MIGRATION_NAME = re.compile(r"^(\d{3})_[a-z0-9_]+\.sql$")


def numbered() -> list[tuple[int, str]]:
    """(number, SQL script) of every migration, oldest first."""
    found = []
    for entry in resources.files(__name__).iterdir():
        match = _MIGRATION_NAME.match(entry.name)
        if match:
            found.append((int(match.group(1)), entry.read_text(encoding="utf-8")))
    return sorted(found)


LATEST_SCHEMA = max(number for number, _ in numbered())
