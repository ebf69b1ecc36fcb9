"""The MCP server: ``engram_*`` tools and a memory-context resource over the official ``mcp`` SDK.

stdio serves one tenant chosen at start; streamable HTTP authenticates every request
with a bearer API key and runs each call on that key's tenant only.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.types import ToolAnnotations

from engram_core.core.errors import ConfigurationError
from engram_core.mcp.settings import HttpAddress, McpSettings
from engram_core.mcp.tools import MemoryTools
from engram_core.tenants.tenancy import TenantStores, open_tenant_stores
from engram_core.tenants.credentials import KeyRing

if TYPE_CHECKING:
    from engram_core.providers import ProviderRoot
    from engram_core.settings import Settings
    from engram_core.usecases.engine import Engine

MAX_REQUEST_BYTES = 32 * 1024 * 1024  # an import carries a whole export
INSTRUCTIONS = (
    "Engram is your long-term memory. At the start of a turn call engram_recall with the user's message and a "
    "token budget, and put the returned `block` in your context. Call engram_remember for anything worth keeping "
    "(facts, preferences, skills); a changed fact supersedes the old one. Use engram_beliefs for what is true now "
    "or on a past date, engram_forget to forget (purge only on a privacy request, with confirm_purge=true)."
)

_READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
_ADD = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
_CHANGE = ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False)
TOOL_TABLE: tuple[tuple[str, str, ToolAnnotations], ...] = (
    ("engram_remember", "remember", _ADD),
    ("engram_recall", "recall", _ADD),
    ("engram_list", "list_memories", _READ),
    ("engram_beliefs", "beliefs", _READ),
    ("engram_forget", "forget", _CHANGE),
    ("engram_stats", "stats", _READ),
    ("engram_export", "export", _READ),
    ("engram_import", "import_store", _ADD),
    ("engram_sleep", "sleep", _CHANGE),
    ("engram_dream", "dream", _ADD),
    ("engram_dream_apply", "dream_apply", _CHANGE),
)
# The tools that may call a model (or, like the HTTP API's /dream/apply, sit on that path): a gate such as
# a rate limit runs before them when one is given.
MODEL_CALLING_TOOLS = frozenset({"engram_remember", "engram_import", "engram_sleep", "engram_dream",
                                 "engram_dream_apply"})


@dataclass(frozen=True)
class HttpAuth:
    """Bearer-token auth for streamable HTTP: each configured key maps to one tenant."""

    keys: KeyRing
    base_url: str


class TenantTokenVerifier:
    """The SDK's TokenVerifier port over the key ring; the tenant rides in ``client_id``."""

    def __init__(self, keys: KeyRing) -> None:
        self._keys = keys

    async def verify_token(self, token: str) -> AccessToken | None:
        tenant = self._keys.tenant_for(token)
        if tenant is None:
            return None
        return AccessToken(token=token, client_id=tenant, subject=tenant, scopes=[])


def tenant_of_request() -> str:
    """The tenant of the authenticated request being served (never from a tool argument)."""
    token = get_access_token()
    if token is None:
        raise ToolError("this request is not authenticated")
    return token.client_id


def _resource_text(read: Callable[[], str]) -> str:
    try:
        return read()
    except ToolError as exc:
        raise ResourceError(str(exc)) from exc


def _add_resources(server: MCPServer, tools: MemoryTools) -> None:
    @server.resource("engram://memory-context", name="memory-context", mime_type="text/plain",
                     description="What is believed true now, as a memory block for a model's context.")
    def memory_context() -> str:
        return _resource_text(tools.memory_context)

    @server.resource("engram://memory-context/{query}", name="memory-context-for-query", mime_type="text/plain",
                     description="The memory block recall packs for a query (default budget, no reinforcement).")
    def memory_context_for(query: str) -> str:
        return _resource_text(lambda: tools.recall_context(query))


def _gated(tool: Callable, gate: Callable[[], None]) -> Callable:
    """The same tool (signature, schema, description) with ``gate`` run first; a gate refuses with ToolError."""
    @functools.wraps(tool)
    def run(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202 - the tool's own arguments and result
        gate()
        return tool(*args, **kwargs)

    return run


def build_server(tools: MemoryTools, auth: HttpAuth | None = None,
                 gate: Callable[[], None] | None = None) -> MCPServer:
    """Register every ``engram_*`` tool (schemas from the type hints) and the memory-context resources;
    ``gate`` runs before each model-calling tool."""
    from engram_core import __version__

    options = {}
    if auth is not None:
        options = {"token_verifier": TenantTokenVerifier(auth.keys),
                   "auth": AuthSettings(issuer_url=auth.base_url, resource_server_url=None)}
    server = MCPServer("engram", instructions=INSTRUCTIONS, version=__version__, log_level="WARNING", **options)
    for name, method, hints in TOOL_TABLE:
        tool = getattr(tools, method)
        if gate is not None and name in MODEL_CALLING_TOOLS:
            tool = _gated(tool, gate)
        server.add_tool(tool, name=name, annotations=hints)
    _add_resources(server, tools)
    return server


def open_stores(location: str, root: ProviderRoot, settings: Settings) -> TenantStores:
    """Per-tenant stores at a directory or ``oss://bucket/prefix``, every engine built from one provider root."""
    from engram_core import open_engine

    def open_tenant_engine(path: Path) -> Engine:
        return open_engine(path, providers=root.providers())

    return open_tenant_stores(location, open_tenant_engine, settings)


def serve(settings: McpSettings, keys: KeyRing) -> None:
    """Run until the client hangs up (stdio) or the process is stopped (HTTP)."""
    if settings.http is not None and len(keys) == 0:
        raise ConfigurationError("--http needs at least one API key: set ENGRAM_API_KEYS or --keys-file "
                                 "(make one with `engram mcp new-key --tenant NAME`)", field="api_keys")
    from engram_core.providers import provider_root

    root = provider_root(settings.engram.providers, embedder=settings.embedder)  # the providers, built once
    stores = open_stores(settings.store, root, settings.engram)
    try:
        with one_blas_thread():
            if settings.http is None:
                _serve_stdio(stores, settings.tenant)
            else:
                _serve_http(stores, root, settings.http, keys)
    finally:
        stores.close()


def one_blas_thread():  # noqa: ANN201 - a threadpoolctl context manager
    """A query embeds a few tokens: BLAS worker threads only spin against it. Measured on a busy 2-core
    host, one thread made a MiniLM query ~10x faster (0.37 s vs 4.1 s for 20 queries)."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="blas")


def _serve_stdio(stores: TenantStores, tenant: str) -> None:
    tools = MemoryTools(stores, lambda: tenant)
    tools.warm_up()
    build_server(tools).run("stdio")


def _warm_local_weights(root: ProviderRoot) -> None:
    """Tenants are not known before the first request, but local MiniLM weights are shared: load them now."""
    from engram_core.adapters.minilm import MiniLMEmbedder

    chosen = root.providers().embedder
    if isinstance(chosen, MiniLMEmbedder):
        chosen.embed(["warm-up"])


def _serve_http(stores: TenantStores, root: ProviderRoot, address: HttpAddress, keys: KeyRing) -> None:
    _warm_local_weights(root)
    server = build_server(MemoryTools(stores, tenant_of_request), HttpAuth(keys, address.base_url))
    server.run("streamable-http", host=address.host, port=address.port, max_request_body_size=MAX_REQUEST_BYTES)
