"""The OpenAPI 3.1 document: every endpoint, the one error shape, and both credentials."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from functions.errors import ErrorBody

_DESCRIPTIONS = {
    400: "The body cannot be parsed (not JSON, not UTF-8).",
    401: "Missing or invalid credential.",
    404: "No such id in this tenant.",
    409: "Conflict: the stored vectors come from another embedder, a stored row cannot be read (forget or "
         "purge it), or a retried Idempotency-Key's first result was too large to keep (nothing was redone).",
    413: "The request body is too large.",
    422: "Invalid input; `field` names the culprit.",
    429: "Rate limited; see Retry-After.",
    503: "Storage or model provider busy or unreachable; see Retry-After.",
}


def errors(*statuses: int) -> dict[int | str, dict]:
    return {status: {"model": ErrorBody, "description": _DESCRIPTIONS[status]} for status in statuses}


READ_ERRORS = errors(400, 401, 404, 409, 413, 422, 503)
LIMITED_READ_ERRORS = errors(400, 401, 404, 409, 413, 422, 429, 503)
WRITE_ERRORS = errors(400, 401, 404, 409, 413, 422, 503)
LIMITED_WRITE_ERRORS = errors(400, 401, 404, 409, 413, 422, 429, 503)
PUBLIC_ERRORS = errors(413)


def _error_schema_for_422(document: dict) -> None:
    """FastAPI documents its own 422 shape; ours is the one error body, everywhere."""
    for path in document.get("paths", {}).values():
        for operation in path.values():
            response = operation.get("responses", {}).get("422")
            if response is not None:
                response["content"] = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}}
    schemas = document.get("components", {}).get("schemas", {})
    schemas.pop("HTTPValidationError", None)
    schemas.pop("ValidationError", None)


def build_document(app: FastAPI, routes: list) -> dict:
    document = get_openapi(title=app.title, version=app.version, description=app.description, routes=routes,
                           openapi_version="3.1.0", servers=[{"url": "/", "description": "this origin"}])
    _error_schema_for_422(document)
    return document


def install_openapi(app: FastAPI, routers: tuple = ()) -> None:
    """``/openapi.json`` describes ``routers`` (the whole origin), or this app's own routes without them."""

    def build() -> dict:
        if app.openapi_schema is None:
            routes = [route for router in routers for route in router.routes] if routers else app.routes
            app.openapi_schema = build_document(app, routes)
        return app.openapi_schema

    app.openapi = build
