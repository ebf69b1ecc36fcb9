"""MCP on the deployment: the memories function serves the ``engram_*`` tools at /mcp (streamable HTTP) with
the HTTP API's keys, driven by the official MCP client against the server process."""

from __future__ import annotations

from collections.abc import Iterator

import anyio
import httpx2
import pytest
from functions_support import TENANT_KEYS, Server, running_server
from mcp.shared.exceptions import MCPError
from mcp_support import call, call_error, http_client

MCP_ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture(scope="module")
def memories(tmp_path_factory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("mcp-fn") / "tenants", ENGRAM_FUNCTION="memories",
                        ENGRAM_RATE_BURST="3", ENGRAM_RATE_PER_MINUTE="1") as server:
        yield server


def test_the_memories_function_serves_the_tools_to_each_key_for_its_own_tenant(memories: Server) -> None:
    url = memories.url + "/mcp"

    async def scenario() -> None:
        async with http_client(url, TENANT_KEYS["alice"]) as alice, http_client(url, TENANT_KEYS["bob"]) as bob:
            tools = {t.name for t in (await alice.list_tools()).tools}
            assert {"engram_remember", "engram_recall", "engram_beliefs", "engram_dream_apply"} <= tools
            await call(alice, "engram_remember", {"text": "I live in Lisbon.", "importance": 0.9})
            assert (await call(alice, "engram_stats"))["tenant"] == "alice"
            assert (await call(bob, "engram_stats"))["tenant"] == "bob"
            mine = await call(alice, "engram_recall", {"query": "where do I live?", "budget_tokens": 200})
            theirs = await call(bob, "engram_recall", {"query": "where do I live?", "budget_tokens": 200})
            assert "Lisbon" in mine["block"] and "Lisbon" not in theirs["block"]

    anyio.run(scenario)
    # the same store as the HTTP routes of the same function
    listed = memories.call("GET", "/memories", TENANT_KEYS["alice"]).json()["items"]
    assert any("Lisbon" in m["text"] for m in listed)
    assert not memories.call("GET", "/memories", TENANT_KEYS["bob"]).json()["items"]


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer egk_not-a-real-key"}])
def test_missing_or_wrong_keys_get_401(memories: Server, headers: dict[str, str]) -> None:
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    response = httpx2.post(memories.url + "/mcp", json=request, headers={**MCP_ACCEPT, **headers}, timeout=30)
    assert response.status_code == 401 and "alice" not in response.text

    async def scenario() -> None:
        async with http_client(memories.url + "/mcp", "egk_wrong") as client:
            await client.list_tools()

    with pytest.raises(BaseExceptionGroup) as failure:
        anyio.run(scenario)
    assert failure.value.subgroup(lambda exc: isinstance(exc, MCPError)) is not None


def test_model_calling_tools_share_the_tenants_rate_limit(memories: Server) -> None:
    async def scenario() -> None:
        async with http_client(memories.url + "/mcp", TENANT_KEYS["carol"]) as carol:
            for _ in range(3):
                await call(carol, "engram_sleep")
            assert "rate limited" in await call_error(carol, "engram_sleep", {})
            assert (await call(carol, "engram_stats"))["tenant"] == "carol"  # reads are not limited

    anyio.run(scenario)


def test_mcp_is_served_by_the_memories_function_only(tmp_path) -> None:
    with running_server(tmp_path / "tenants", ENGRAM_FUNCTION="chat") as chat:
        response = httpx2.post(chat.url + "/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                               headers={**MCP_ACCEPT, "Authorization": f"Bearer {TENANT_KEYS['alice']}"}, timeout=30)
        assert response.status_code == 404
