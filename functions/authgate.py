"""Authentication before the body: a request for a tenant's route without a valid API key is refused
before a byte of its body is read, let alone parsed (FastAPI parses a JSON body before it runs the
route's dependencies, so the dependency alone would come too late).

Which routes take an API key is read off the routes themselves (those whose dependencies include
``tenant_of``), so the gate cannot drift from them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from fastapi.routing import APIRoute

from engram_core.tenants.credentials import bearer_token
from functions.deps import tenant_of
from functions.errors import AuthError, error_response
from functions.middleware import header_value

KeyedRoute = tuple[re.Pattern, frozenset[str]]


def _calls(dependant) -> Iterator[object]:  # noqa: ANN001 - fastapi Dependant
    yield dependant.call
    for inner in dependant.dependencies:
        yield from _calls(inner)


def keyed_routes(routers: Iterable) -> list[KeyedRoute]:
    """(path pattern, methods) of every route whose tenant comes from an API key."""
    return [(route.path_regex, frozenset(route.methods)) for router in routers for route in router.routes
            if isinstance(route, APIRoute) and any(call is tenant_of for call in _calls(route.dependant))]


class AuthFirst:
    """Refuses, with the same 401 the route would give, a keyed route's request whose key names no tenant."""

    def __init__(self, app, keyed: list[KeyedRoute]) -> None:  # noqa: ANN001 - ASGI app
        self.app = app
        self.keyed = keyed

    def _needs_key(self, scope: dict) -> bool:
        return any(scope["method"] in methods and pattern.match(scope["path"]) for pattern, methods in self.keyed)

    async def __call__(self, scope, receive, send) -> None:  # noqa: ANN001 - ASGI
        if scope["type"] == "http" and self._needs_key(scope):
            keys = scope["app"].state.service.keys
            if keys.tenant_for(bearer_token(header_value(scope, b"authorization"))) is None:
                refused = error_response(401, AuthError.code, "missing or invalid API key",
                                         headers={"WWW-Authenticate": "Bearer"})
                await refused(scope, receive, send)
                return
        await self.app(scope, receive, send)
