"""LocalDirStore: the SnapshotStore port over a directory (the embedded default).

Each object is one file: a small envelope (magic, metadata as JSON, body
length) followed by the body. Writes go to a temp file in the same directory,
are fsynced, and then appear atomically: ``os.link`` for create-only (it
fails when the name is taken, so two writers can never both win),
``os.replace`` for overwrites; the directory is fsynced after.
"""

from __future__ import annotations

import json
import os
import re
import uuid
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path

from engram_core.core.errors import CorruptSnapshotError, GenerationExistsError, StoreError, ValidationError
from engram_core.adapters.private_files import PRIVATE_FILE, private_dir
from engram_core.snapshots.ports import ObjectInfo, StoredObject

_MAGIC = b"ENGRAM-OBJ1\n"
_HEAD = len(_MAGIC) + 8  # magic, then metadata length and body length as two big-endian u32
_KEY = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9._-]*(/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$")


def _envelope(data: bytes, metadata: Mapping[str, str]) -> bytes:
    meta = json.dumps(dict(metadata), sort_keys=True).encode("utf-8")
    return _MAGIC + len(meta).to_bytes(4, "big") + len(data).to_bytes(4, "big") + meta + data


def _open_envelope(blob: bytes, key: str) -> tuple[dict[str, str], bytes]:
    if len(blob) < _HEAD or not blob.startswith(_MAGIC):
        raise CorruptSnapshotError(f"{key}: not a stored object (damaged or truncated)")
    meta_len = int.from_bytes(blob[len(_MAGIC):len(_MAGIC) + 4], "big")
    body_len = int.from_bytes(blob[len(_MAGIC) + 4:_HEAD], "big")
    if len(blob) != _HEAD + meta_len + body_len:
        raise CorruptSnapshotError(f"{key}: stored object is {len(blob)} bytes, expected {_HEAD + meta_len + body_len}")
    try:
        metadata = json.loads(blob[_HEAD:_HEAD + meta_len])
    except ValueError as exc:
        raise CorruptSnapshotError(f"{key}: unreadable object metadata") from exc
    return {str(k): str(v) for k, v in metadata.items()}, blob[_HEAD + meta_len:]


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class LocalDirStore:
    def __init__(self, root: str | Path) -> None:
        self.root = Path(root).expanduser().resolve()
        self.location = str(self.root)

    def _path(self, key: str) -> Path:
        if not _KEY.match(key):
            raise ValidationError(f"invalid object key {key!r}", field="key")
        return self.root / key

    def _write_temp(self, final: Path, blob: bytes) -> Path:
        private_dir(final.parent)
        temp = final.parent / f".{final.name}.{uuid.uuid4().hex}.tmp"
        with os.fdopen(os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE), "wb") as handle:
            handle.write(blob)
            handle.flush()
            os.fsync(handle.fileno())
        return temp

    def put_new(self, key: str, data: bytes, metadata: Mapping[str, str]) -> None:
        final = self._path(key)
        try:
            temp = self._write_temp(final, _envelope(data, metadata))
            try:
                os.link(temp, final)
            finally:
                temp.unlink()
            _fsync_dir(final.parent)
        except FileExistsError as exc:
            raise GenerationExistsError(f"{key} already exists in {self.location}") from exc
        except OSError as exc:
            raise StoreError(f"cannot write {key} in {self.location}: {exc.strerror or exc}") from exc

    def put(self, key: str, data: bytes, metadata: Mapping[str, str]) -> None:
        final = self._path(key)
        try:
            os.replace(self._write_temp(final, _envelope(data, metadata)), final)
            _fsync_dir(final.parent)
        except OSError as exc:
            raise StoreError(f"cannot write {key} in {self.location}: {exc.strerror or exc}") from exc

    def get(self, key: str) -> StoredObject | None:
        try:
            blob = self._path(key).read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise StoreError(f"cannot read {key} in {self.location}: {exc.strerror or exc}") from exc
        metadata, data = _open_envelope(blob, key)
        return StoredObject(key, data, metadata)

    def head(self, key: str) -> ObjectInfo | None:
        path = self._path(key)
        try:
            with open(path, "rb") as handle:
                head = handle.read(_HEAD)
                meta_len = int.from_bytes(head[len(_MAGIC):len(_MAGIC) + 4], "big") if len(head) == _HEAD else 0
                blob = head + handle.read(meta_len)
                stat = os.fstat(handle.fileno())
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise StoreError(f"cannot read {key} in {self.location}: {exc.strerror or exc}") from exc
        metadata = self._head_metadata(blob, key)
        return ObjectInfo(key, stat.st_size, datetime.fromtimestamp(stat.st_mtime, timezone.utc), metadata)

    @staticmethod
    def _head_metadata(blob: bytes, key: str) -> dict[str, str]:
        try:
            return json.loads(blob[_HEAD:]) if blob.startswith(_MAGIC) else {}
        except ValueError:
            return {}

    def list(self, prefix: str, start_after: str = "", limit: int | None = None) -> list[ObjectInfo]:
        base = self.root / prefix.rpartition("/")[0] if "/" in prefix else self.root
        found = []
        for dirpath, _dirs, files in os.walk(base):
            for name in files:
                key = (Path(dirpath) / name).relative_to(self.root).as_posix()
                if key.startswith(prefix) and key > start_after and (info := self._info(key)) is not None:
                    found.append(info)
        return sorted(found, key=lambda i: i.key)[:limit]

    def _info(self, key: str) -> ObjectInfo | None:
        if not _KEY.match(key):  # temp files start with a dot
            return None
        path = self.root / key
        try:
            stat = path.stat()
        except FileNotFoundError:
            return None
        return ObjectInfo(key, stat.st_size, datetime.fromtimestamp(stat.st_mtime, timezone.utc))

    def delete(self, keys: Sequence[str]) -> None:
        for key in keys:
            try:
                self._path(key).unlink(missing_ok=True)
            except OSError as exc:
                raise StoreError(f"cannot delete {key} in {self.location}: {exc.strerror or exc}") from exc

    def sweep_temp_files(self, older_than: datetime) -> int:
        """Temp files left by a writer that died mid-write; returns how many were removed."""
        removed = 0
        for temp in self.root.rglob(".*.tmp"):
            try:
                if datetime.fromtimestamp(temp.stat().st_mtime, timezone.utc) < older_than:
                    temp.unlink()
                    removed += 1
            except FileNotFoundError:
                continue
        return removed
