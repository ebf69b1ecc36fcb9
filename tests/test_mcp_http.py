"""``engram mcp --http``: streamable HTTP with bearer API keys mapped to tenants, driven by the official client."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp.shared.exceptions import MCPError
from mcp_support import ENGRAM, ROOT, call, call_error, free_port, http_client, server_env, wait_for_port

MCP_ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@dataclass(frozen=True)
class Served:
    url: str
    store: Path
    alice: str
    bob: str


def _new_key(tenant: str) -> tuple[str, dict]:
    """``engram mcp new-key``: the key for the client, and the salted-hash entry for the server."""
    out = subprocess.run([*ENGRAM, "mcp", "new-key", "--tenant", tenant], env=server_env(), cwd=ROOT,
                         capture_output=True, text=True, timeout=60, check=True)
    lines = dict(line.split(":", 1) for line in out.stdout.splitlines())
    key, entry = lines["key"].strip(), json.loads(lines["entry"])
    assert entry["tenant"] == tenant and key not in entry["hash"]
    return key, entry


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    store = tmp_path_factory.mktemp("mcp-http")
    (alice, alice_entry), (bob, bob_entry) = _new_key("alice"), _new_key("bob")
    keys_file = store.parent / "bob-keys.json"
    keys_file.write_text(json.dumps([bob_entry]))
    port = free_port()
    process = subprocess.Popen(
        [*ENGRAM, "--embedder", "hashing", "mcp", "--store", str(store), "--http", f"127.0.0.1:{port}",
         "--keys-file", str(keys_file)],
        env=server_env(ENGRAM_API_KEYS=json.dumps([alice_entry])), cwd=ROOT, stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, text=True)
    try:
        wait_for_port(port, process)
        yield Served(f"http://127.0.0.1:{port}/mcp", store, alice, bob)
    finally:
        process.terminate()
        _, stderr = process.communicate(timeout=20)
        assert alice not in stderr and bob not in stderr, "an API key reached the log"


def test_each_key_reaches_only_its_own_tenant(served: Served) -> None:
    async def scenario() -> None:
        async with http_client(served.url, served.alice) as alice, http_client(served.url, served.bob) as bob:
            tools = {t.name for t in (await alice.list_tools()).tools}
            assert {"engram_remember", "engram_recall", "engram_dream_apply"} <= tools
            lisbon = await call(alice, "engram_remember", {"text": "I live in Lisbon."})
            await call(bob, "engram_remember", {"text": "I live in Oslo."})
            assert (await call(alice, "engram_stats"))["tenant"] == "alice"
            assert (await call(bob, "engram_stats"))["tenant"] == "bob"

            seen_by_alice = await call(alice, "engram_recall", {"query": "where do I live?", "budget_tokens": 200})
            seen_by_bob = await call(bob, "engram_recall", {"query": "where do I live?", "budget_tokens": 200})
            assert "Lisbon" in seen_by_alice["block"] and "Oslo" not in seen_by_alice["block"]
            assert "Oslo" in seen_by_bob["block"] and "Lisbon" not in seen_by_bob["block"]
            assert "Lisbon" not in (await call(bob, "engram_export"))["data"]
            assert all("Lisbon" not in m["text"] for m in (await call(bob, "engram_list"))["memories"])
            assert all(b["object"] != "Lisbon" for b in (await call(bob, "engram_beliefs"))["beliefs"])

            alice_memory = lisbon["memories"][0]["id"]
            stolen = await call_error(bob, "engram_forget", {"memory_id": alice_memory, "purge": True,
                                                             "confirm_purge": True})
            assert "no memory" in stolen
            assert [m["id"] for m in (await call(alice, "engram_list"))["memories"]] == [alice_memory]
        assert sorted(p.parent.name for p in served.store.glob("*/engram.sqlite")) == ["alice", "bob"]

    anyio.run(scenario)


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer egk_not-a-real-key"},
                                     {"Authorization": "Basic YWxpY2U6c2VjcmV0"}])
def test_missing_or_wrong_credentials_get_401_without_detail(served: Served, headers: dict[str, str]) -> None:
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    response = httpx2.post(served.url, json=request, headers={**MCP_ACCEPT, **headers}, timeout=10)
    assert response.status_code == 401
    assert "alice" not in response.text and "bob" not in response.text


def test_the_official_client_with_a_wrong_token_cannot_connect(served: Served) -> None:
    async def scenario() -> None:
        async with http_client(served.url, "egk_wrong") as client:
            await client.list_tools()

    with pytest.raises(BaseExceptionGroup) as failure:
        anyio.run(scenario)
    assert failure.value.subgroup(lambda exc: isinstance(exc, MCPError)) is not None


def test_bad_input_over_http_is_a_tool_error_and_changes_nothing(served: Served) -> None:
    async def scenario() -> None:
        async with http_client(served.url, served.bob) as bob:
            before = (await call(bob, "engram_export"))["data"]
            assert "budget_tokens" in await call_error(bob, "engram_recall", {"query": "x", "budget_tokens": -1})
            assert "text" in await call_error(bob, "engram_remember", {"text": "y" * 50_000})
            assert "text" in await call_error(bob, "engram_remember", {"text": ["not", "a", "string"]})
            assert (await call(bob, "engram_export"))["data"] == before

    anyio.run(scenario)


def _post(served: Served, key: str, message: dict, session: str | None = None) -> httpx2.Response:
    headers = {**MCP_ACCEPT, "Authorization": f"Bearer {key}", "mcp-protocol-version": "2025-06-18"}
    if session:
        headers["mcp-session-id"] = session
    return httpx2.post(served.url, json=message, headers=headers, timeout=10)


def test_a_session_opened_with_one_key_cannot_be_used_with_another(served: Served) -> None:
    hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                        "clientInfo": {"name": "t", "version": "1"}}}
    opened = _post(served, served.alice, hello)
    session = opened.headers["mcp-session-id"]
    _post(served, served.alice, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
    stats = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "engram_stats", "arguments": {}}}
    own = _post(served, served.alice, stats, session)
    assert own.status_code == 200 and '\\"tenant\\": \\"alice\\"' in own.text
    hijacked = _post(served, served.bob, stats, session)
    assert hijacked.status_code in (401, 403, 404) and "alice" not in hijacked.text
