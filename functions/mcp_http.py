"""MCP on the deployment: the memories function serves ``engram mcp``'s tools over streamable HTTP at /mcp.

The tools, their schemas and their errors are ``engram mcp --http``'s own; the
API keys are the HTTP API's (each key reaches only its tenant), and the
model-calling tools share the routes' per-tenant rate limit. The transport is
stateless with JSON answers: a function instance keeps no MCP session, so any
instance can answer any request of a client.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

import anyio
import anyio.to_thread
from fastapi import FastAPI
from starlette.datastructures import Headers
from starlette.routing import Route

if TYPE_CHECKING:
    from functions.service import Service

MCP_PATH = "/mcp"


class ServiceKeys:
    """The service's key ring as it is at each request (it may be reloaded), for the SDK's token check."""

    def __init__(self, service: Service) -> None:
        self._service = service

    def tenant_for(self, key: str | None) -> str | None:
        return self._service.keys.tenant_for(key)


def _rate_gate(service: Service):  # noqa: ANN202 - a gate for build_server
    from mcp.server.mcpserver.exceptions import ToolError

    from engram_core.mcp.server import tenant_of_request

    def take() -> None:
        wait = service.limiter.take(tenant_of_request())
        if wait is not None:
            raise ToolError(f"too many requests; retry in {wait} s (rate limited)")

    return take


def build_mcp_app(service: Service):  # noqa: ANN201 - (the SDK's Starlette app, its session manager)
    from mcp.server.transport_security import TransportSecuritySettings

    from engram_core.mcp.server import HttpAuth, build_server, tenant_of_request
    from engram_core.mcp.tools import MemoryTools

    tools = MemoryTools(service.stores, tenant_of_request)
    auth = HttpAuth(ServiceKeys(service), service.self_url or "http://127.0.0.1")  # type: ignore[arg-type]
    server = build_server(tools, auth, gate=_rate_gate(service))
    # DNS-rebinding checks guard unauthenticated local servers; here every request needs an API key, and the
    # deployed Host is the function's domain.
    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH, stateless_http=True, json_response=True,
        max_request_body_size=service.settings.max_body_bytes,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False))
    return app, server.session_manager


class McpMount:
    """/mcp, built on its first request: the SDK loads only when an MCP client calls (a function's cold
    start stays as fast as without it). A request with a valid key moves the stores onto its credentials."""

    def __init__(self, service: Service) -> None:
        self._service = service
        self._app = None
        self._group: anyio.abc.TaskGroup | None = None
        self._lock: anyio.Lock | None = None
        self._stop: anyio.Event | None = None

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """For the app's lifetime: the task group the SDK's session manager runs in once started."""
        self._lock, self._stop = anyio.Lock(), anyio.Event()
        async with anyio.create_task_group() as group:
            self._group = group
            try:
                yield
            finally:
                self._stop.set()

    async def _started(self):  # noqa: ANN202 - the SDK's ASGI app
        if self._app is None:
            if self._group is None or self._lock is None:
                raise RuntimeError("/mcp needs the application's lifespan to run")
            async with self._lock:
                if self._app is None:
                    app, manager = await anyio.to_thread.run_sync(build_mcp_app, self._service)
                    await self._group.start(self._run_manager, manager)
                    self._app = app
        return self._app

    async def _run_manager(self, manager, *, task_status=anyio.TASK_STATUS_IGNORED) -> None:  # noqa: ANN001 - the SDK's session manager
        async with manager.run():
            task_status.started()
            await self._stop.wait()

    async def __call__(self, scope, receive, send) -> None:  # noqa: ANN001 - ASGI
        app = await self._started()
        headers = Headers(scope=scope)
        scheme, _, token = headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and self._service.keys.tenant_for(token.strip()) is not None:
            self._service.use_request_credentials(headers)
        await app(scope, receive, send)


def install(app: FastAPI, service: Service) -> None:
    """Add /mcp to the app; ``running(app)`` keeps its session manager for the app's lifetime."""
    mount = McpMount(service)
    app.router.routes.append(Route(MCP_PATH, endpoint=mount, methods=["GET", "POST", "DELETE"]))
    app.state.mcp_mount = mount


@asynccontextmanager
async def running(app: FastAPI) -> AsyncIterator[None]:
    mount = getattr(app.state, "mcp_mount", None)
    if mount is None:
        yield
        return
    async with mount.running():
        yield
