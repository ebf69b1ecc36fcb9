"""OssStore: the SnapshotStore port over Alibaba Cloud OSS (or an S3-compatible server) with oss2.

Everything oss2 or the HTTP stack raises is translated into the EngramError
tree here; the dialect (OSS or S3) decides the create-only header, the
conflict answer, the metadata headers and the listing format.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime, timezone
from itertools import islice

import oss2
import requests
import urllib3

from engram_core.core.errors import CorruptSnapshotError, GenerationExistsError, StoreError, ValidationError
from engram_core.snapshots.dialect import Dialect, dialect_named
from engram_core.snapshots.ports import ObjectInfo, StoredObject
from engram_core.snapshots.settings import OssSettings, parse_oss_url

_ERRNO = re.compile(r"\[Errno -?\d+\] ([^'\")]+)")


def _quiet_sdk_debug_log() -> None:
    """oss2's DEBUG records print request headers, STS token included: never let them through."""
    sdk = logging.getLogger("oss2")
    if sdk.getEffectiveLevel() < logging.INFO:
        sdk.setLevel(logging.INFO)


def make_auth(settings: OssSettings) -> oss2.StsAuth | oss2.AuthV4:
    """Always signature V4: OSS refuses V1 for new accounts (since 2025-03) and new buckets (since 2025-09)."""
    key_id, secret = settings.require_keys()
    if settings.security_token is not None:
        return oss2.StsAuth(key_id, secret, settings.security_token.get_secret_value(),
                            auth_version=oss2.AUTH_VERSION_4)
    return oss2.AuthV4(key_id, secret)


def open_bucket(settings: OssSettings, bucket: str) -> oss2.Bucket:
    _quiet_sdk_debug_log()
    region = settings.signing_region()
    try:
        return oss2.Bucket(make_auth(settings), settings.require_endpoint(), bucket, region=region,
                           connect_timeout=settings.connect_timeout)
    except oss2.exceptions.ClientError as exc:
        raise ValidationError(f"invalid object store endpoint or bucket: {exc.body}",
                              field="ENGRAM_OSS_ENDPOINT") from exc


def _reason(exc: BaseException) -> str:
    found = _ERRNO.search(str(exc))
    return found.group(1).strip().lower() if found else type(exc).__name__


class OssStore:
    def __init__(self, bucket: oss2.Bucket, dialect: Dialect, prefix: str = "") -> None:
        self._bucket = bucket
        self._dialect = dialect
        self._prefix = f"{prefix.strip('/')}/" if prefix.strip("/") else ""
        self.endpoint = bucket.endpoint
        self.location = f"oss://{bucket.bucket_name}/{self._prefix} at {bucket.endpoint} ({dialect.name})"

    @classmethod
    def from_settings(cls, settings: OssSettings, bucket: str, prefix: str = "") -> OssStore:
        return cls(open_bucket(settings, bucket), dialect_named(settings.dialect), prefix)

    def _full(self, key: str) -> str:
        return self._prefix + key

    @contextmanager
    def _translated(self, action: str, key: str) -> Iterator[None]:
        try:
            yield
        except oss2.exceptions.RequestError as exc:
            raise StoreError(f"cannot reach the object store at {self.endpoint} ({action} {key}): "
                             f"{_reason(exc)}") from exc
        except oss2.exceptions.InconsistentError as exc:
            raise CorruptSnapshotError(f"{key}: the object store's CRC does not match the data") from exc
        except oss2.exceptions.OssError as exc:
            code = f" {exc.code}" if exc.code else ""
            raise StoreError(f"object store refused to {action} {key}: HTTP {exc.status}{code}") from exc
        except (requests.RequestException, urllib3.exceptions.HTTPError) as exc:
            raise StoreError(f"object store connection failed during {action} {key}: {_reason(exc)}") from exc

    def get(self, key: str) -> StoredObject | None:
        with self._translated("read", key):
            try:
                result = self._bucket.get_object(self._full(key))
            except oss2.exceptions.NotFound:
                return None
            data = result.read()
        return StoredObject(key, data, self._dialect.metadata_from(result.headers))

    def head(self, key: str) -> ObjectInfo | None:
        with self._translated("inspect", key):
            try:
                result = self._bucket.head_object(self._full(key))
            except oss2.exceptions.NotFound:
                return None
        modified = datetime.fromtimestamp(result.last_modified or 0, timezone.utc)
        return ObjectInfo(key, int(result.content_length or 0), modified, self._dialect.metadata_from(result.headers))

    def put_new(self, key: str, data: bytes, metadata: Mapping[str, str]) -> None:
        headers = {**self._dialect.create_only_headers(), **self._dialect.metadata_headers(metadata)}
        with self._translated("write", key):
            try:
                self._bucket.put_object(self._full(key), data, headers=headers)
            except oss2.exceptions.ServerError as exc:
                if self._dialect.is_conflict(exc.status, exc.code):
                    raise GenerationExistsError(f"{key} already exists in {self.location}") from exc
                raise

    def put(self, key: str, data: bytes, metadata: Mapping[str, str]) -> None:
        with self._translated("write", key):
            self._bucket.put_object(self._full(key), data, headers=self._dialect.metadata_headers(metadata))

    def list(self, prefix: str, start_after: str = "", limit: int | None = None) -> list[ObjectInfo]:
        start, after = len(self._prefix), self._full(start_after) if start_after else ""
        with self._translated("list", prefix or "/"):
            page = min(limit, 1000) if limit else 1000
            listed = islice(self._dialect.listing(self._bucket, self._full(prefix), after, page), limit)
            found = [ObjectInfo(key[start:], size, modified) for key, size, modified in listed]
        return sorted(found, key=lambda info: info.key)

    def delete(self, keys: Sequence[str]) -> None:
        for key in keys:
            with self._translated("delete", key):
                self._bucket.delete_object(self._full(key))


def read_small_object(url: str, max_bytes: int, settings: OssSettings) -> bytes:
    """One small object named ``oss://bucket/key`` (a keys file, say), at most ``max_bytes`` long."""
    bucket, key = parse_oss_url(url)
    if not key:
        raise ValidationError(f"{url!r} names no object", field="store")
    store = OssStore.from_settings(settings, bucket)
    info = store.head(key)
    if info is not None and info.size > max_bytes:
        raise ValidationError(f"{url} is larger than {max_bytes} bytes", field="store")
    found = store.get(key) if info is not None else None
    if found is None:
        raise StoreError(f"no object {url}")
    return found.data
