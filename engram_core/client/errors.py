"""HTTP error bodies back into the engine's error tree: ``{"error": {"code", "message", "field"}}`` -> EngramError.

The class comes from the body's ``code`` (``invalid_input`` -> ValidationError,
``busy`` -> BusyError, ...); a code this client does not know falls back by HTTP
status. Every raised error carries ``status`` and the server's ``request_id``.
"""

from __future__ import annotations

from engram_core.core.errors import (
    BusyError, ConfigurationError, CorruptSnapshotError, EmbeddingMismatchError, EngramError, GenerationExistsError,
    ImportFormatError, NotFoundError, ProviderError, SchemaTooNewError, StoreError, ValidationError,
)


class AuthenticationError(EngramError):
    """The API key is missing or names no tenant (401)."""

    code = "unauthorized"


class RateLimitError(EngramError):
    """The tenant's rate limit (429), still hit after the client's retries."""

    code = "rate_limited"

    def __init__(self, message: str, *, field: str | None = None, retry_after: float | None = None) -> None:
        super().__init__(message, field=field)
        self.retry_after = retry_after


class UnreachableError(EngramError):
    """No HTTP answer at all: the server is down, the address is wrong, or the request timed out."""

    code = "unreachable"


_BY_CODE: dict[str, type[EngramError]] = {cls.code: cls for cls in (
    ValidationError, ImportFormatError, NotFoundError, StoreError, SchemaTooNewError, CorruptSnapshotError,
    GenerationExistsError, BusyError, ProviderError, ConfigurationError, EmbeddingMismatchError,
    AuthenticationError, RateLimitError,
)}
_BY_STATUS: dict[int, type[EngramError]] = {400: ValidationError, 401: AuthenticationError, 404: NotFoundError,
                                            409: EngramError, 413: ValidationError, 422: ValidationError,
                                            429: RateLimitError, 503: StoreError}


def error_class(status: int, code: str | None) -> type[EngramError]:
    return _BY_CODE.get(code or "") or _BY_STATUS.get(status) or EngramError


def error_from_body(status: int, body: object, *, request_id: str | None = None,
                    retry_after: float | None = None) -> EngramError:
    """The error a response with this status and (parsed JSON) body stands for."""
    detail = body.get("error") if isinstance(body, dict) else None
    detail = detail if isinstance(detail, dict) else {}
    code = detail.get("code") if isinstance(detail.get("code"), str) else None
    message = detail.get("message") if isinstance(detail.get("message"), str) else f"HTTP {status}"
    field = detail.get("field") if isinstance(detail.get("field"), str) else None
    cls = error_class(status, code)
    error = cls(message, field=field, retry_after=retry_after) if cls is RateLimitError else cls(message, field=field)
    if code and code != cls.code:
        error.code = code  # the server's own, more precise code (invalid_json, idempotency_key_reused, ...)
    error.status = status  # type: ignore[attr-defined]
    error.request_id = request_id  # type: ignore[attr-defined]
    return error
