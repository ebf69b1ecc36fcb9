"""One error shape for every failure: ``{"error": {"code", "message", "field"}}``, never a stack trace."""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

from engram_core.core.errors import (
    BusyError, ConfigurationError, EmbeddingMismatchError, EngramError, NotFoundError, ProviderError,
    SchemaTooNewError, StoreError, UnreadableRecordError, ValidationError,
)

log = logging.getLogger("engram.http")

STORE_RETRY_AFTER = 1
PROVIDER_RETRY_AFTER = 5


class ErrorDetail(BaseModel):
    code: str
    message: str
    field: str | None = None


class ErrorBody(BaseModel):
    error: ErrorDetail


class AuthError(EngramError):
    """No credential, or one that names no tenant. Says nothing about which tenants exist."""

    code = "unauthorized"


class RateLimitedError(EngramError):
    code = "rate_limited"

    def __init__(self, retry_after: int) -> None:
        super().__init__(f"too many requests; retry in {retry_after} s")
        self.retry_after = retry_after


class BodyTooLargeError(EngramError):
    code = "body_too_large"


# Most specific first: the first matching class decides the status.
_STATUS: tuple[tuple[type[EngramError], int], ...] = (
    (AuthError, 401),
    (RateLimitedError, 429),
    (BodyTooLargeError, 413),
    (ValidationError, 422),
    (NotFoundError, 404),
    (EmbeddingMismatchError, 409),
    (SchemaTooNewError, 409),
    (UnreadableRecordError, 409),  # a damaged row: retrying cannot help; forget or purge it
    (ConfigurationError, 500),
    (BusyError, 503),  # the snapshot commit lost the race too many times: nothing written, retry
    (StoreError, 503),
    (ProviderError, 503),
)


def error_response(status: int, code: str, message: str, field: str | None = None,
                   headers: dict[str, str] | None = None) -> JSONResponse:
    body = ErrorBody(error=ErrorDetail(code=code, message=message, field=field))
    return JSONResponse(body.model_dump(), status_code=status, headers=headers)


def status_of(exc: EngramError) -> int:
    return next((status for cls, status in _STATUS if isinstance(exc, cls)), 500)


def _retry_after(exc: EngramError, status: int) -> dict[str, str] | None:
    if isinstance(exc, RateLimitedError):
        return {"Retry-After": str(exc.retry_after)}
    if status == 503:
        wait = PROVIDER_RETRY_AFTER if isinstance(exc, ProviderError) else STORE_RETRY_AFTER
        return {"Retry-After": str(wait)}
    if isinstance(exc, AuthError):
        return {"WWW-Authenticate": "Bearer"}
    return None


async def _engram_error(request: Request, exc: EngramError) -> JSONResponse:
    status = status_of(exc)
    if status >= 500:
        log.warning("%s: %s", exc.code, exc.message)
    return error_response(status, exc.code, exc.message, exc.field, _retry_after(exc, status))


def _field_of(location: tuple) -> str | None:
    """``("body", "budget_tokens")`` -> ``budget_tokens``; the whole body -> ``body``."""
    parts = [str(p) for p in location if p not in ("body", "query", "path", "header")]
    return ".".join(parts) or (str(location[0]) if location else None)


async def _request_invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
    first = exc.errors()[0] if exc.errors() else {"loc": (), "msg": "invalid request", "type": ""}
    if first.get("type") == "json_invalid":
        return error_response(400, "invalid_json", "the request body is not valid JSON")
    field = _field_of(tuple(first.get("loc", ())))
    message = f"{field}: {first['msg']}" if field else str(first["msg"])
    return error_response(422, "invalid_input", message, field)


async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
    codes = {400: "invalid_body", 404: "not_found", 405: "method_not_allowed", 413: "body_too_large"}
    return error_response(exc.status_code, codes.get(exc.status_code, "http_error"), str(exc.detail),
                          headers=getattr(exc, "headers", None))


async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    """The outermost boundary: log the type, answer without details."""
    log.error("unexpected %s on %s %s", type(exc).__name__, request.method, request.url.path, exc_info=exc)
    return error_response(500, "internal_error", "internal error; the request id is in the x-request-id header")


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(EngramError, _engram_error)
    app.add_exception_handler(RequestValidationError, _request_invalid)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(Exception, _unexpected)
