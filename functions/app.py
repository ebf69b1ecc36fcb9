"""The ASGI application: one app, the routes of the configured function(s), one error shape, OpenAPI 3.1."""

from __future__ import annotations

from contextlib import asynccontextmanager

from fastapi import FastAPI

from engram_core import __version__
from functions import board, chat, clock, completions, consolidate, invoke, lifecycle, mcp_http, memories, observe
from functions.errors import install_error_handlers
from functions.middleware import BodyLimit, RequestContext
from functions.openapi import install_openapi
from functions.service import Service
from functions.settings import FunctionRole

DESCRIPTION = """Engram's memory API: chat with budgeted recall, explicit memories, beliefs with history,
forgetting on purpose, consolidation. Every request is authenticated with an API key
(`Authorization: Bearer <key>`) that alone decides the tenant. Errors are always
`{"error": {"code", "message", "field"}}`."""

_ROUTERS = {
    FunctionRole.CHAT: (chat.router, completions.router),
    FunctionRole.MEMORIES: (memories.router, observe.router, clock.router, board.router),
    FunctionRole.CONSOLIDATE: (consolidate.router, invoke.router),
}


def routers_for(role: FunctionRole) -> tuple:
    if role is FunctionRole.ALL:
        return tuple(r for group in _ROUTERS.values() for r in group)
    return _ROUTERS[role]


def create_app(service: Service) -> FastAPI:
    @asynccontextmanager
    async def lifespan(app: FastAPI):  # noqa: ANN202 - FastAPI lifespan
        async with mcp_http.running(app):
            yield
        service.close()

    app = FastAPI(title="Engram", version=__version__, description=DESCRIPTION, lifespan=lifespan,
                  docs_url=None, redoc_url=None)
    app.state.service = service
    app.include_router(lifecycle.router)
    for router in routers_for(service.settings.function):
        app.include_router(router)
    if service.settings.function in (FunctionRole.ALL, FunctionRole.MEMORIES):
        mcp_http.install(app, service)
    install_error_handlers(app)
    install_openapi(app)
    app.add_middleware(BodyLimit, max_bytes=service.settings.max_body_bytes)
    app.add_middleware(RequestContext)
    return app
