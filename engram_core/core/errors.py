"""One error tree for the whole engine. Adapters translate foreign errors into it."""

from __future__ import annotations


class EngramError(Exception):
    """Base of every error Engram raises on purpose."""

    code = "engram_error"

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class ValidationError(EngramError):
    """Caller input is unusable; nothing was written."""

    code = "invalid_input"


class NotFoundError(EngramError):
    """An id the caller named does not exist (in this tenant)."""

    code = "not_found"


class StoreError(EngramError):
    """The store could not be opened, read or written."""

    code = "store_error"


class SchemaTooNewError(StoreError):
    """The store was written by a newer Engram; it is never downgraded."""

    code = "schema_too_new"


class UnreadableRecordError(StoreError):
    """A stored row cannot be read back (a damaged or foreign value). Reads skip it; forget and purge remove it."""

    code = "unreadable_record"

    def __init__(self, table: str, row_id: str, reason: str) -> None:
        super().__init__(f"{table} row {row_id!r} cannot be read ({reason}); forget or purge it "
                         "(`engram doctor` lists every such row)", field="id")
        self.table, self.row_id, self.reason = table, row_id, reason


class CorruptSnapshotError(StoreError):
    """A snapshot generation failed its checksum or integrity check; it is never served."""

    code = "corrupt_snapshot"


class GenerationExistsError(StoreError):
    """A create-only write found the snapshot generation already taken by another writer."""

    code = "generation_exists"


class BusyError(EngramError):
    """Concurrent writers kept winning the race for this tenant; nothing was written, retry later."""

    code = "busy"


class ProviderError(EngramError):
    """A model provider (LLM or embedder) failed or cannot be reached."""

    code = "provider_unavailable"


class ConfigurationError(EngramError):
    """Settings are missing or inconsistent."""

    code = "configuration_error"


class EmbeddingMismatchError(EngramError):
    """Stored vectors come from another embedder or dimension than the active one."""

    code = "embedding_mismatch"


class ImportFormatError(ValidationError):
    """An import file is malformed; nothing was imported."""

    code = "invalid_import"
