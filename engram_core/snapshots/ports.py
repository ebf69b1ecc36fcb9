"""The SnapshotStore port: a flat key space of immutable objects with create-only writes.

Keys are ``/``-separated and relative to the store's root (a directory, or a
bucket prefix). Adapters: ``LocalDirStore`` (a directory) and ``OssStore``
(Alibaba Cloud OSS, or an S3-compatible server, through ``oss2``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol, runtime_checkable


@dataclass(frozen=True)
class ObjectInfo:
    key: str
    size: int
    modified: datetime
    metadata: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class StoredObject:
    key: str
    data: bytes
    metadata: Mapping[str, str]


@runtime_checkable
class SnapshotStore(Protocol):
    location: str
    """Where the objects live, for messages (never holds a credential)."""

    def get(self, key: str) -> StoredObject | None:
        """The object, or None when there is none. A damaged envelope raises CorruptSnapshotError."""
        ...

    def head(self, key: str) -> ObjectInfo | None:
        """Size, time and metadata without the body, or None."""
        ...

    def put_new(self, key: str, data: bytes, metadata: Mapping[str, str]) -> None:
        """Create-only write; raises GenerationExistsError when the key is taken."""
        ...

    def put(self, key: str, data: bytes, metadata: Mapping[str, str]) -> None:
        """Write or replace (only for small advisory objects such as the latest-generation hint)."""
        ...

    def list(self, prefix: str, start_after: str = "", limit: int | None = None) -> list[ObjectInfo]:
        """Every object whose key starts with ``prefix`` (and sorts after ``start_after``), in key
        order; metadata is left empty. With ``limit``, only the first ones (one request per 1,000)."""
        ...

    def delete(self, keys: Sequence[str]) -> None:
        """Remove these objects; keys that are already gone are fine."""
        ...
