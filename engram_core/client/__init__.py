"""A typed Python client for Engram's HTTP API (``engram serve`` or the deployed functions), sync and async.

    from engram_core.client import EngramClient

    with EngramClient("http://127.0.0.1:9000", api_key="egk_...") as engram:
        engram.remember("Allergic to shellfish", importance=0.95)
        print(engram.recall("book a team dinner", budget_tokens=300).block)

Errors are the engine's own tree (``engram_core.core.errors``), read from the server's
error body, plus ``AuthenticationError``, ``RateLimitError`` and ``UnreachableError``.
"""

from engram_core.client.aio import AsyncEngramClient
from engram_core.client.errors import AuthenticationError, RateLimitError, UnreachableError
from engram_core.client.retry import RetryPolicy
from engram_core.client.sync import EngramClient

__all__ = ["AsyncEngramClient", "AuthenticationError", "EngramClient", "RateLimitError", "RetryPolicy",
           "UnreachableError"]
