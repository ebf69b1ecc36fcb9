"""A loopback proxy in front of an object-store server that records which access key id signed each request."""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from urllib.parse import unquote

from object_servers import FaultProxy, _ProxyHandler

_V1 = re.compile(r"^OSS (?P<id>.+):[^:]+$")  # OSS signature v1: "OSS <key id>:<signature>"
_V4 = re.compile(r"Credential=(?P<id>.+?)/\d{8}/")  # v4: "... Credential=<key id>/<date>/<region>/..."


@dataclass(frozen=True)
class Signed:
    method: str
    target: str  # path and query, unquoted
    key_id: str
    security_token: str | None


def key_id_of(authorization: str) -> str:
    found = _V1.match(authorization) or _V4.search(authorization)
    return found.group("id") if found else authorization


class _AuthLogHandler(_ProxyHandler):
    def _handle(self) -> None:
        self.owner.record(Signed(self.command, unquote(self.path), key_id_of(self.headers.get("Authorization", "")),
                                 self.headers.get("x-oss-security-token")))
        self._forward(self._body())

    do_GET = do_PUT = do_HEAD = do_DELETE = do_POST = _handle


class AuthLogProxy(FaultProxy):
    handler = _AuthLogHandler

    def __init__(self, upstream: str) -> None:
        super().__init__(upstream)
        self._seen: list[Signed] = []
        self._seen_lock = threading.Lock()

    def record(self, signed: Signed) -> None:
        with self._seen_lock:
            self._seen.append(signed)

    def seen(self) -> list[Signed]:
        with self._seen_lock:
            return list(self._seen)

    def clear(self) -> None:
        with self._seen_lock:
            self._seen.clear()

    def key_ids_for(self, tenant: str) -> set[str]:
        """Key ids of the requests that touched the tenant's objects (``<prefix>/<tenant>/...``)."""
        return {s.key_id for s in self.seen() if f"/{tenant}/" in s.target}
