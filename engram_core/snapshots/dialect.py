"""Where Alibaba Cloud OSS and S3-compatible servers differ, in one place.

- create-only write: OSS takes ``x-oss-forbid-overwrite: true`` and answers
  409 ``FileAlreadyExists``; S3 takes ``If-None-Match: *`` and answers 412
  ``PreconditionFailed``;
- user metadata headers: ``x-oss-meta-*`` against ``x-amz-meta-*``;
- listing XML: oss2 parses OSS's un-namespaced ``ListBucketResult``; S3's
  lives in the ``http://s3.amazonaws.com/doc/2006-03-01/`` namespace, which
  oss2's parser does not read, so S3 listings are parsed here.
"""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone

import oss2

from engram_core.core.errors import ConfigurationError

Listed = tuple[str, int, datetime]


@dataclass(frozen=True)
class Dialect:
    name: str
    create_only: tuple[str, str]
    conflict_status: int
    conflict_code: str
    meta_prefix: str

    def create_only_headers(self) -> dict[str, str]:
        return {self.create_only[0]: self.create_only[1]}

    def metadata_headers(self, metadata: Mapping[str, str]) -> dict[str, str]:
        return {self.meta_prefix + key: value for key, value in metadata.items()}

    def metadata_from(self, headers: Mapping[str, str]) -> dict[str, str]:
        size = len(self.meta_prefix)
        return {k[size:].lower(): v for k, v in headers.items() if k.lower().startswith(self.meta_prefix)}

    def is_conflict(self, status: int, code: str) -> bool:
        return status == self.conflict_status and code == self.conflict_code

    def listing(self, bucket: oss2.Bucket, prefix: str, start_after: str = "", page: int = 1000) -> Iterator[Listed]:
        """Lazily, ``page`` keys per request (1,000 at most, as both services allow)."""
        if self.name == "oss":
            return _oss_listing(bucket, prefix, start_after, page)
        return _s3_listing(bucket, prefix, start_after, page)


OSS = Dialect("oss", ("x-oss-forbid-overwrite", "true"), 409, "FileAlreadyExists", "x-oss-meta-")
S3 = Dialect("s3", ("If-None-Match", "*"), 412, "PreconditionFailed", "x-amz-meta-")
DIALECTS = {d.name: d for d in (OSS, S3)}


def dialect_named(name: str) -> Dialect:
    try:
        return DIALECTS[name]
    except KeyError as exc:
        raise ConfigurationError(f"unknown object store dialect {name!r}; use oss or s3", field="dialect") from exc


def _oss_listing(bucket: oss2.Bucket, prefix: str, start_after: str, page: int) -> Iterator[Listed]:
    for info in oss2.ObjectIterator(bucket, prefix=prefix, marker=start_after, max_keys=page):
        yield info.key, int(info.size), datetime.fromtimestamp(info.last_modified, timezone.utc)


def _s3_listing(bucket: oss2.Bucket, prefix: str, start_after: str, page: int) -> Iterator[Listed]:
    token = ""
    while True:
        params = {"list-type": "2", "prefix": prefix, "max-keys": str(page)}
        if token:
            params["continuation-token"] = token
        elif start_after:
            params["start-after"] = start_after
        # oss2 has no public call that returns a listing's raw XML; _do is the request
        # primitive every public call goes through (signing and error mapping included).
        body = bucket._do("GET", bucket.bucket_name, "", params=params).read()
        entries, token = parse_s3_listing(body)
        yield from entries
        if not token:
            return


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def parse_s3_listing(body: bytes) -> tuple[list[Listed], str]:
    """(key, size, modified) entries and the continuation token ('' on the last page)."""
    root = ElementTree.fromstring(body)
    entries, token, truncated = [], "", False
    for child in root:
        name = _local(child.tag)
        if name == "Contents":
            fields = {_local(c.tag): (c.text or "") for c in child}
            modified = datetime.fromisoformat(fields["LastModified"].replace("Z", "+00:00"))
            entries.append((fields["Key"], int(fields.get("Size") or 0), modified))
        elif name == "IsTruncated":
            truncated = (child.text or "").strip().lower() == "true"
        elif name == "NextContinuationToken":
            token = child.text or ""
    return entries, token if truncated else ""
