"""Object-store servers for the snapshot tests, all on 127.0.0.1 and started by the tests themselves.

- ``moto_server()``: moto's S3 server in its own process (the real thing the OSS adapter talks to);
- ``OssLikeServer``: a small in-process server that answers like Alibaba Cloud OSS where OSS and S3
  differ (``x-oss-forbid-overwrite`` -> 409 FileAlreadyExists, ``x-oss-meta-*``, OSS listing XML), and
  refuses any request not signed with OSS signature V4 (403), as OSS does for new buckets;
- ``FaultProxy``: forwards to another server, and on request fails or stalls uploads.
"""

from __future__ import annotations

import hashlib
import http.client
import threading
import time
import uuid
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, quote, unquote, urlsplit
from xml.sax.saxutils import escape

from engram_bench.oss_front import V4_SCOPE
from engram_bench.processes import free_port, moto_front, moto_server  # noqa: F401 - re-exported



class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128  # sixteen writers connect at once in the race tests


class _Loopback:
    """Start/stop plumbing shared by the in-process servers."""

    handler: type[BaseHTTPRequestHandler]

    def start(self) -> _Loopback:
        self.httpd = _Server(("127.0.0.1", 0), self.handler)
        self.httpd.owner = self  # type: ignore[attr-defined]
        self.endpoint = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


# -- an OSS-like server ----------------------------------------------------------------

def _oss_error(code: str, message: str) -> bytes:
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>{code}</Code><Message>{message}</Message>'
            f"<RequestId>{uuid.uuid4().hex}</RequestId><HostId>oss-like.local</HostId></Error>").encode()


class _OssHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out in two writes: without this, delayed ACKs add ~40 ms

    def log_message(self, *args: object) -> None:
        pass

    @property
    def owner(self) -> OssLikeServer:
        return self.server.owner  # type: ignore[attr-defined]

    def _target(self) -> tuple[str, str, dict[str, list[str]]]:
        parts = urlsplit(self.path)
        bucket, _, key = parts.path.lstrip("/").partition("/")
        return bucket, unquote(key), parse_qs(parts.query, keep_blank_values=True)

    def _reply(self, status: int, body: bytes = b"", headers: dict[str, str] | None = None,
               head: bool = False) -> None:
        self.send_response(status)
        for name, value in {"x-oss-request-id": uuid.uuid4().hex, **(headers or {})}.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def _v1_refused(self, body: bytes = b"") -> bool:
        if V4_SCOPE.match(self.headers.get("Authorization") or ""):
            return False
        self._reply(403, b"" if self.command == "HEAD" else _oss_error("AccessDenied", "sign with V4"),
                    {"Content-Type": "application/xml"}, head=self.command == "HEAD")
        return True

    def do_PUT(self) -> None:
        bucket, key, _ = self._target()
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self._v1_refused():
            return None
        if not key:
            self.owner.buckets.add(bucket)
            return self._reply(200)
        forbid = (self.headers.get("x-oss-forbid-overwrite") or "").lower() == "true"
        with self.owner.lock:
            if forbid and (bucket, key) in self.owner.objects:
                return self._reply(409, _oss_error("FileAlreadyExists", "The object you specified already exists "
                                                   "and can not be overwritten."), {"Content-Type": "application/xml"})
            meta = {k.lower(): v for k, v in self.headers.items() if k.lower().startswith("x-oss-meta-")}
            self.owner.objects[(bucket, key)] = (body, meta, time.time())
        self._reply(200, headers={"ETag": f'"{hashlib.md5(body).hexdigest().upper()}"'})

    def _object(self, head: bool) -> None:
        if self._v1_refused():
            return None
        bucket, key, query = self._target()
        if not key:
            return self._list(bucket, query)
        found = self.owner.objects.get((bucket, key))
        if found is None:
            return self._reply(404, b"" if head else _oss_error("NoSuchKey", "The specified key does not exist."),
                               {"Content-Type": "application/xml"}, head=head)
        body, meta, modified = found
        headers = {"Content-Type": "application/octet-stream", "Last-Modified": formatdate(modified, usegmt=True),
                   "ETag": f'"{hashlib.md5(body).hexdigest().upper()}"', **meta}
        self.send_response(200)
        for name, value in {"x-oss-request-id": uuid.uuid4().hex, **headers}.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def do_GET(self) -> None:
        self._object(head=False)

    def do_HEAD(self) -> None:
        self._object(head=True)

    def do_DELETE(self) -> None:
        if self._v1_refused():
            return None
        bucket, key, _ = self._target()
        with self.owner.lock:
            self.owner.objects.pop((bucket, key), None)
        self._reply(204)

    def _list(self, bucket: str, query: dict[str, list[str]]) -> None:
        prefix, marker = query.get("prefix", [""])[0], query.get("marker", [""])[0]
        limit = int(query.get("max-keys", ["100"])[0] or 100)
        encode = query.get("encoding-type", [""])[0] == "url"
        keys = sorted(k for b, k in self.owner.objects if b == bucket and k.startswith(prefix) and k > marker)
        page, truncated = keys[:limit], len(keys) > limit
        self._reply(200, self._listing_xml(bucket, prefix, page, truncated, encode),
                    {"Content-Type": "application/xml"})

    def _listing_xml(self, bucket: str, prefix: str, page: list[str], truncated: bool, encode: bool) -> bytes:
        name = (lambda k: quote(k, safe="")) if encode else escape
        items = []
        for key in page:
            body, _, modified = self.owner.objects[(bucket, key)]
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(modified))
            items.append(f"<Contents><Key>{name(key)}</Key><LastModified>{stamp}</LastModified>"
                         f'<ETag>"{hashlib.md5(body).hexdigest().upper()}"</ETag><Type>Normal</Type>'
                         f"<Size>{len(body)}</Size><StorageClass>Standard</StorageClass></Contents>")
        tail = f"<NextMarker>{name(page[-1])}</NextMarker>" if truncated else ""
        encoding = "<EncodingType>url</EncodingType>" if encode else ""
        return (f'<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult><Name>{bucket}</Name>'
                f"<Prefix>{name(prefix)}</Prefix><Marker></Marker><MaxKeys>{len(page)}</MaxKeys>"
                f"<Delimiter></Delimiter>{encoding}<IsTruncated>{str(truncated).lower()}</IsTruncated>{tail}"
                + "".join(items) + "</ListBucketResult>").encode()


class OssLikeServer(_Loopback):
    handler = _OssHandler

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.buckets: set[str] = set()
        self.objects: dict[tuple[str, str], tuple[bytes, dict[str, str], float]] = {}


# -- a fault-injecting proxy ---------------------------------------------------------------

_HOP = {"connection", "keep-alive", "transfer-encoding", "proxy-connection", "te", "upgrade"}


class _ProxyHandler(BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    @property
    def owner(self) -> FaultProxy:
        return self.server.owner  # type: ignore[attr-defined]

    def _body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _handle(self) -> None:
        if self.command == "PUT" and "/snap/" in unquote(self.path):
            if self.owner.take_stall():
                return self._stall()
            status = self.owner.take_failure()
            if status:
                self._body()
                return self._send(status, _oss_error("InternalError", "injected failure"), {})
        self._forward(self._body())

    def _stall(self) -> None:
        """Read half the upload, then hang until the writer is gone: the object never reaches the server."""
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length // 2)
        self.owner.stalled.set()
        self.owner.release.wait(60)
        self.close_connection = True

    def _forward(self, body: bytes) -> None:
        conn = http.client.HTTPConnection(self.owner.upstream_host, self.owner.upstream_port, timeout=30)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP}
        conn.request(self.command, self.path, body=body if body or self.command == "PUT" else None, headers=headers)
        resp = conn.getresponse()
        data = resp.read()
        headers = {k: v for k, v in resp.getheaders() if k.lower() not in _HOP | {"content-length"}}
        self._send(resp.status, data, headers)
        conn.close()

    def _send(self, status: int, body: bytes, headers: dict[str, str]) -> None:
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    do_GET = do_PUT = do_HEAD = do_DELETE = do_POST = _handle


class FaultProxy(_Loopback):
    handler = _ProxyHandler

    def __init__(self, upstream: str) -> None:
        parts = urlsplit(upstream)
        self.upstream_host, self.upstream_port = parts.hostname, parts.port
        self.lock = threading.Lock()
        self.failures: list[int] = []
        self.stalls = 0
        self.stalled = threading.Event()
        self.release = threading.Event()

    def fail_next_puts(self, count: int, status: int = 500) -> None:
        with self.lock:
            self.failures += [status] * count

    def stall_next_put(self) -> None:
        with self.lock:
            self.stalls += 1

    def take_failure(self) -> int:
        with self.lock:
            return self.failures.pop(0) if self.failures else 0

    def take_stall(self) -> bool:
        with self.lock:
            if self.stalls:
                self.stalls -= 1
                return True
            return False
