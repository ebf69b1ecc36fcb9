"""ASGI middleware: the request id on every log line, and the request body limit."""

from __future__ import annotations

import logging
import time
import uuid
from contextvars import ContextVar

from starlette.exceptions import HTTPException

from engram_core.tenants.tenancy_snapshots import reset_request_credentials, scope_request_credentials
from functions.errors import BodyTooLargeError, error_response

request_id_var: ContextVar[str] = ContextVar("request_id", default="-")
log = logging.getLogger("engram.http")
LOG_FORMAT = "%(asctime)s %(levelname)s [%(request_id)s] %(name)s: %(message)s"


class RequestIdFilter(logging.Filter):
    """Adds the current request id (FC's x-fc-request-id when present) to every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id_var.get()
        return True


def configure_logging(level: str) -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter(LOG_FORMAT))
    handler.addFilter(RequestIdFilter())
    for name in ("engram", "uvicorn.error"):  # ours, and the server's own errors
        logger = logging.getLogger(name)
        logger.handlers[:] = [handler]
        logger.setLevel(level)
        logger.propagate = False


def header_value(scope: dict, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return value.decode("latin-1")
    return None


class RequestContext:
    """Sets the request id, echoes it as x-request-id, and logs one line per request.

    It wraps the whole app, Starlette's error middleware included: a 500 carries its id too, and once
    that 500 is sent (its traceback logged by the error handler) the error goes no further, so the
    server does not log it a second time."""

    def __init__(self, app) -> None:  # noqa: ANN001 - ASGI app
        self.app = app

    async def __call__(self, scope, receive, send) -> None:  # noqa: ANN001 - ASGI
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = header_value(scope, b"x-fc-request-id") or uuid.uuid4().hex
        token = request_id_var.set(request_id)
        credentials = scope_request_credentials(None)  # none until authentication scopes the request's own
        started, status = time.perf_counter(), [0]

        async def send_with_id(message: dict) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
                message.setdefault("headers", []).append((b"x-request-id", request_id.encode("latin-1")))
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        except Exception:
            if not status[0]:
                raise  # nothing was answered: let the server close the connection
        finally:
            log.info("%s %s %s %.1fms", scope["method"], scope["path"], status[0],
                     (time.perf_counter() - started) * 1000)
            reset_request_credentials(credentials)
            request_id_var.reset(token)


class BodyLimit:
    """Refuses bodies above the limit, by Content-Length or while streaming, with 413."""

    def __init__(self, app, max_bytes: int) -> None:  # noqa: ANN001 - ASGI app
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope, receive, send) -> None:  # noqa: ANN001 - ASGI
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = header_value(scope, b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            too_large = f"request body is larger than {self.max_bytes} bytes"
            response = error_response(413, BodyTooLargeError.code, too_large)
            await response(scope, receive, send)
            return
        seen = [0]

        async def counting_receive() -> dict:
            message = await receive()
            seen[0] += len(message.get("body", b""))
            if seen[0] > self.max_bytes:  # an HTTPException: FastAPI's body parser passes it on as it is
                raise HTTPException(413, f"request body is larger than {self.max_bytes} bytes")
            return message

        await self.app(scope, counting_receive, send)
