"""Bad tool input over MCP: a tool error with a message naming the problem, never a traceback; store unchanged."""

from __future__ import annotations

from pathlib import Path

import anyio
from mcp_support import call, call_error, stdio_client

HUGE = "x" * 100_000
BAD_CALLS = [
    ("engram_remember", {"text": 123}, "text"),
    ("engram_remember", {}, "text"),
    ("engram_remember", {"text": ""}, "text"),
    ("engram_remember", {"text": "   "}, "text"),
    ("engram_remember", {"text": HUGE}, "text is 100000 bytes"),
    ("engram_remember", {"text": "I live in Oslo.", "importance": 2}, "importance"),
    ("engram_remember", {"text": "I live in Oslo.", "importance": "high"}, "importance"),
    ("engram_remember", {"text": "I live in Oslo.", "kind": "gist"}, "kind"),
    ("engram_recall", {}, "query"),
    ("engram_recall", {"query": "where?", "budget_tokens": -5}, "budget_tokens"),
    ("engram_recall", {"query": "where?", "budget_tokens": 0}, "budget_tokens"),
    ("engram_recall", {"query": "where?", "budget_tokens": "lots"}, "budget_tokens"),
    ("engram_recall", {"query": "where?", "budget_tokens": 10_000_000}, "budget_tokens"),
    ("engram_recall", {"query": HUGE}, "query is 100000 bytes"),
    ("engram_recall", {"query": "where?", "as_of": "13/45/2026"}, "as_of"),
    ("engram_beliefs", {"as_of": "yesterday-ish"}, "as_of"),
    ("engram_list", {"limit": 0}, "limit"),
    ("engram_list", {"limit": "ten"}, "limit"),
    ("engram_list", {"status": ["gone"]}, "status"),
    ("engram_list", {"offset": -1}, "offset"),
    ("engram_forget", {}, "memory_id"),
    ("engram_forget", {"memory_id": "mem_missing"}, "no memory"),
    ("engram_forget", {"memory_id": "mem_missing", "purge": "yes please"}, "purge"),
    ("engram_import", {"data": "not json at all"}, "line 1"),
    ("engram_import", {}, "data"),
    ("engram_dream_apply", {"proposal_id": "drm_x"}, "approved"),
    ("engram_dream_apply", {"proposal_id": "drm_x", "approved": "a1"}, "approved"),
    ("engram_dream_apply", {"proposal_id": "drm_x", "approved": []}, "approved"),
    ("engram_dream_apply", {"proposal_id": "drm_x", "approved": ["a1"]}, "no dream proposal"),
]


def test_bad_input_is_a_clear_tool_error_and_leaves_the_store_unchanged(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with stdio_client(tmp_path) as client:
            await call(client, "engram_remember", {"text": "I live in Lisbon."})
            before = (await call(client, "engram_export"))["data"]
            for tool, arguments, needle in BAD_CALLS:
                message = await call_error(client, tool, arguments)
                assert needle in message, f"{tool} {str(arguments)[:80]}: {message[:300]}"
                assert "Traceback" not in message and len(message) < 2_000
            assert (await call(client, "engram_export"))["data"] == before
            unknown = await client.call_tool("engram_teleport", {})
            assert unknown.is_error and "engram_teleport" in unknown.content[0].text

    anyio.run(scenario)


def test_a_file_as_store_or_a_bad_tenant_is_one_error_line(tmp_path: Path) -> None:
    import subprocess

    from mcp_support import ENGRAM, ROOT, server_env

    not_a_dir = tmp_path / "store.sqlite"
    not_a_dir.write_text("")
    http = ["mcp", "--store", str(tmp_path), "--http", "127.0.0.1:8765"]
    for args, env, needle in ((["mcp", "--store", str(not_a_dir)], {}, "store"),
                              (["mcp", "--store", str(tmp_path), "--tenant", "../etc"], {}, "tenant"),
                              (["mcp", "--store", str(tmp_path), "--http", "127.0.0.1:0"], {}, "http"),
                              (http, {}, "API key"),
                              ([*http, "--keys-file", str(tmp_path / "missing.json")], {}, "keys file"),
                              (http, {"ENGRAM_API_KEYS": "alice:secret"}, "ENGRAM_API_KEYS")):
        out = subprocess.run([*ENGRAM, *args], env=server_env(**env), cwd=ROOT, capture_output=True, text=True,
                             timeout=60, stdin=subprocess.DEVNULL)
        assert out.returncode == 2 and out.stderr.startswith("engram: error:") and needle in out.stderr
        assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1
