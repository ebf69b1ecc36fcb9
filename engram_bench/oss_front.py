"""A loopback front for moto that checks request signatures the way OSS does, then forwards.

OSS refuses signature V1 (``Authorization: OSS <id>:<signature>``) for new
accounts and new buckets, and moto accepts any signature but cannot parse an
OSS V4 credential scope (it answers 500). The front answers a V1 or unsigned
request with 403, as OSS does, and forwards a V4 request
(``OSS4-HMAC-SHA256 Credential=<id>/<date>/<region>/oss/aliyun_v4_request``)
with its signature swapped for an AWS-shaped one that moto can route (moto
checks no signature; without any, it refuses conditional writes). It counts requests by method and keeps the credential
scopes it saw, so tests can assert what was signed and benchmarks can report
request counts.
"""

from __future__ import annotations

import http.client
import re
import threading
import uuid
from collections import Counter
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from engram_core.snapshots.settings import OssSettings

V4_SCOPE = re.compile(r"^OSS4-HMAC-SHA256 Credential=(\S+)/(\d{8})/([a-z0-9-]+)/oss/aliyun_v4_request,"
                      r"\s*(?:AdditionalHeaders=[^,]*,\s*)?Signature=[0-9a-f]{64}")
# Headers that belong to one hop, or to the signature moto cannot read.
_DROP = {"connection", "keep-alive", "transfer-encoding", "proxy-connection", "te", "upgrade", "authorization"}


@dataclass(frozen=True)
class Scope:
    """What a V4 signature was made with."""

    key_id: str
    region: str
    date: str = ""


def _denied(message: str) -> bytes:
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>{message}'
            f"</Message><RequestId>{uuid.uuid4().hex}</RequestId></Error>").encode()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as oss2's session expects
    disable_nagle_algorithm = True  # headers and body go out in two writes: without this, delayed ACKs add ~40 ms

    def log_message(self, *args: object) -> None:
        pass

    @property
    def front(self) -> OssFront:
        return self.server.front  # type: ignore[attr-defined]

    def _body(self) -> bytes:
        """The request body, sent with a length or chunked (oss2 streams an empty upload chunked)."""
        if "chunked" not in (self.headers.get("Transfer-Encoding") or "").lower():
            return self.rfile.read(int(self.headers.get("Content-Length") or 0))
        chunks = []
        while size := int(self.rfile.readline().split(b";")[0].strip() or b"0", 16):
            chunks.append(self.rfile.read(size))
            self.rfile.readline()
        while self.rfile.readline() not in (b"\r\n", b"\n", b""):  # trailers
            pass
        return b"".join(chunks)

    def _handle(self) -> None:
        body = self._body()
        scope = self.front.check(_kind(self.command, self.path), self.headers.get("Authorization") or "")
        if scope is None:
            return self._send(403, _denied("OSS accepts only V4 signatures (OSS4-HMAC-SHA256) here"),
                              [("Content-Type", "application/xml")])
        status, data, headers = self.front.forward(self.command, self.path, body, self.headers, scope)
        self._send(status, data, headers)

    def _send(self, status: int, body: bytes, headers: list[tuple[str, str]]) -> None:
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        if not any(name.lower() == "content-length" for name, _ in headers):
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    do_GET = do_PUT = do_HEAD = do_DELETE = do_POST = _handle


def _create_only(headers: dict[str, str]) -> bool:
    names = {k.lower(): v for k, v in headers.items()}
    return names.get("if-none-match") == "*" or names.get("x-oss-forbid-overwrite", "").lower() == "true"


def _kind(method: str, path: str) -> str:
    """GET on a bucket with no key is a listing (path-style: /bucket?... or /bucket/?...)."""
    key = urlsplit(path).path.lstrip("/").partition("/")[2]
    return "LIST" if method == "GET" and not key else method


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128


class OssFront:
    """``OssFront(upstream).start()``; ``endpoint`` is where clients connect; ``stop()`` when done."""

    def __init__(self, upstream: str) -> None:
        parts = urlsplit(upstream)
        self._host, self._port = parts.hostname, parts.port
        self._lock = threading.Lock()
        self._local = threading.local()
        self._create_locks: dict[str, threading.Lock] = {}
        self.requests: Counter[str] = Counter()
        self.refused = 0
        self.scopes: set[Scope] = set()

    def start(self) -> OssFront:
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.front = self  # type: ignore[attr-defined]
        self.endpoint = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def check(self, kind: str, authorization: str) -> Scope | None:
        """The V4 scope of a request, or None (refused) for V1, unsigned or malformed ones; ``kind`` is its
        method, or LIST for a listing, as counted in ``requests``."""
        found = V4_SCOPE.match(authorization)
        with self._lock:
            if found is None:
                self.refused += 1
                return None
            scope = Scope(found.group(1), found.group(3), found.group(2))
            self.requests[kind] += 1
            self.scopes.add(Scope(scope.key_id, scope.region))
        return scope

    def total(self) -> int:
        with self._lock:
            return sum(self.requests.values())

    def reset_counts(self) -> None:
        with self._lock:
            self.requests.clear()
            self.refused = 0

    def forward(self, method: str, path: str, body: bytes, headers,  # noqa: ANN001 - http.server's headers
                scope: Scope | None = None) -> tuple[int, bytes, list]:
        kept = {k: v for k, v in headers.items() if k.lower() not in _DROP}
        if scope is not None:
            kept["Authorization"] = (f"AWS4-HMAC-SHA256 Credential=moto/{scope.date}/us-east-1/s3/aws4_request, "
                                     f"SignedHeaders=host, Signature={'0' * 64}")
        if method == "PUT" and _create_only(kept):
            with self._create_lock(urlsplit(path).path):
                return self._send_upstream(method, path, body, kept)
        return self._send_upstream(method, path, body, kept)

    def _create_lock(self, key: str) -> threading.Lock:
        """moto checks If-None-Match and then writes, unlocked, on a threaded server: two create-only PUTs of
        one key can both succeed under load, the second overwriting the first. OSS and S3 decide atomically,
        so the front makes the check and the write one step per key."""
        with self._lock:
            return self._create_locks.setdefault(key, threading.Lock())

    def _send_upstream(self, method: str, path: str, body: bytes, kept: dict[str, str]) -> tuple[int, bytes, list]:
        for attempt in range(2):  # a kept-alive upstream connection may have been closed meanwhile
            conn = self._connection()
            try:
                conn.request(method, path, body=body if body or method == "PUT" else None, headers=kept)
                response = conn.getresponse()
                data = response.read()
            except (http.client.HTTPException, OSError):
                self._local.conn = None
                conn.close()
                if attempt:
                    raise
                continue
            dropped = _DROP | {"date", "server"} | (set() if method == "HEAD" else {"content-length"})  # HEAD: the size
            out = [(k, v) for k, v in response.getheaders() if k.lower() not in dropped]
            return response.status, data, out
        raise AssertionError("unreachable")

    def _connection(self) -> http.client.HTTPConnection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = http.client.HTTPConnection(self._host, self._port, timeout=60)
        return conn


LOOPBACK_REGION = "cn-hangzhou"  # what clients of the front sign for (moto itself ignores regions)


def loopback_oss(base: OssSettings, endpoint: str, key_id: str, secret: str) -> OssSettings:
    """The object store settings the command read, pointed at a loopback moto server (S3 dialect)."""
    from pydantic import SecretStr

    return base.model_copy(update={"endpoint": endpoint, "access_key_id": SecretStr(key_id),
                                   "access_key_secret": SecretStr(secret), "dialect": "s3",
                                   "region": LOOPBACK_REGION})


def create_bucket(endpoint: str, name: str, key_id: str, secret: str) -> None:
    """A bucket behind the front, created with a V4-signed request like every other."""
    import oss2

    oss2.Bucket(oss2.AuthV4(key_id, secret), endpoint, name, region=LOOPBACK_REGION).create_bucket()
