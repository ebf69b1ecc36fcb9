"""The ASGI application: one app, the routes of the configured function(s), one error shape, OpenAPI 3.1."""

from __future__ import annotations

from contextlib import asynccontextmanager

from fastapi import FastAPI

from engram_core import __version__
from functions import board, chat, clock, completions, consolidate, invoke, lifecycle, mcp_http, memories, observe
from functions.authgate import AuthFirst, keyed_routes
from functions.errors import install_error_handlers
from functions.middleware import BodyLimit, RequestContext
from functions.openapi import build_document, install_openapi
from functions.service import Service
from functions.settings import FunctionRole

DESCRIPTION = """Engram's memory API: chat with budgeted recall, explicit memories, beliefs with history,
forgetting on purpose, consolidation. Every request is authenticated with an API key
(`Authorization: Bearer <key>`) that alone decides the tenant. Errors are always
`{"error": {"code", "message", "field"}}`."""

_ROUTERS = {
    FunctionRole.CHAT: (chat.router, completions.router),
    FunctionRole.MEMORIES: (memories.router, observe.router, clock.router, board.router),
    FunctionRole.CONSOLIDATE: (consolidate.router,),
    FunctionRole.JOBS: (invoke.router,),
}


# The functions behind the custom domain: one origin for the API and the board (the jobs function is not on it).
ORIGIN_ROLES = (FunctionRole.CHAT, FunctionRole.MEMORIES, FunctionRole.CONSOLIDATE)


def routers_for(role: FunctionRole) -> tuple:
    if role is FunctionRole.ALL:
        return tuple(r for group in _ROUTERS.values() for r in group)
    return _ROUTERS[role]


def documented_routers(role: FunctionRole) -> tuple:
    """What ``/openapi.json`` describes: every route of the origin, whichever function answers it."""
    if role is FunctionRole.ALL:
        return (lifecycle.router, *routers_for(role))
    return (lifecycle.router, *(r for origin in ORIGIN_ROLES for r in routers_for(origin)))


def origin_document() -> dict:
    """The OpenAPI document of the deployed origin (the custom domain), as docs/openapi.json holds it."""
    app = FastAPI(title="Engram", version=__version__, description=DESCRIPTION)
    return build_document(app, [route for router in documented_routers(FunctionRole.CHAT) for route in router.routes])


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
    routers = routers_for(service.settings.function)
    for router in routers:
        app.include_router(router)
    if service.settings.function in (FunctionRole.ALL, FunctionRole.MEMORIES):
        mcp_http.install(app, service)
    install_error_handlers(app)
    install_openapi(app, documented_routers(service.settings.function))
    app.add_middleware(BodyLimit, max_bytes=service.settings.max_body_bytes)
    app.add_middleware(AuthFirst, keyed=keyed_routes(routers))
    _outermost(app, RequestContext)
    return app


def _outermost(app: FastAPI, middleware) -> None:  # noqa: ANN001 - an ASGI middleware class
    """Around Starlette's own error middleware too, so the 500s it writes carry the request id as well."""
    build = app.build_middleware_stack
    app.build_middleware_stack = lambda: middleware(build())
