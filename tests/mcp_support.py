"""Drive ``engram mcp`` as a real subprocess with the official ``mcp`` client (stdio or streamable HTTP)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from engram_bench.processes import free_port, wait_listening  # noqa: F401 - free_port is re-exported

ROOT = Path(__file__).resolve().parents[1]
ENGRAM = [sys.executable, "-m", "engram_core.cli.main"]


def server_env(**extra: str) -> dict[str, str]:
    """The test's environment without Engram settings or model keys: the server runs offline."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("ENGRAM_") and k not in ("QWEN_CLOUD_API_KEY", "DASHSCOPE_API_KEY")}
    return {**env, "ENGRAM_PROVIDER": "offline", **extra}


def stdio_params(store: Path, tenant: str = "default", embedder: str | None = "hashing") -> StdioServerParameters:
    flags = ["--embedder", embedder] if embedder else []
    return StdioServerParameters(command=ENGRAM[0], args=[*ENGRAM[1:], *flags, "mcp", "--store", str(store),
                                                          "--tenant", tenant], env=server_env(), cwd=str(ROOT))


@asynccontextmanager
async def stdio_client(store: Path, tenant: str = "default", embedder: str | None = "hashing") -> AsyncIterator[Client]:
    async with Client(stdio_params(store, tenant, embedder)) as client:
        yield client


@asynccontextmanager
async def http_client(url: str, token: str) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        async with Client(streamable_http_client(url, http_client=http)) as client:
            yield client


async def call(client: Client, tool: str, arguments: dict | None = None) -> dict:
    """A tool call that must succeed; returns its structured result (also checks the JSON text matches)."""
    result = await client.call_tool(tool, arguments or {})
    assert not result.is_error, f"{tool} failed: {result.content[0].text}"
    assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


async def call_error(client: Client, tool: str, arguments: dict) -> str:
    """A tool call that must fail as a tool error; returns the message the client sees."""
    result = await client.call_tool(tool, arguments)
    assert result.is_error, f"{tool} with {arguments!r} should have failed"
    return result.content[0].text


def wait_for_port(port: int, process: subprocess.Popen, timeout: float = 30.0) -> None:
    wait_listening(port, process, "the MCP server", timeout)
