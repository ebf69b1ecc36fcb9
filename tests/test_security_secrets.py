"""Secrets never leave where they belong: the model provider's key, the admin key, tenant API keys and the
platform's STS secret appear in no log line (at DEBUG), no response, no event, no export and no stored file,
even when the provider echoes the key back in an error. Deep and wide JSON bodies are a clean 4xx."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from functions_support import ADMIN_KEY, TENANT_KEYS, running_server
from openai_server import OpenAIServer, Reply
from qwen_support import KEY
from security_support import api_client, bearer

FC_SECRET = "fc-sts-secret-9b1d7e33a2c4"
FC_TOKEN = "fc-sts-token-5e8c2b7d19aa"


def _platform_headers() -> dict[str, str]:
    return {"x-fc-access-key-id": "STS.probe", "x-fc-access-key-secret": FC_SECRET,
            "x-fc-security-token": FC_TOKEN, "x-fc-request-id": "req-secret-probe"}


def _everything(server) -> list[str]:
    """One pass over every kind of operation; returns every response (headers and body) as text."""
    alice = lambda method, path, **kw: server.call(method, path, TENANT_KEYS["alice"],  # noqa: E731
                                                   headers={**_platform_headers(), **kw.pop("headers", {})}, **kw)
    seen = [alice("POST", "/memories", json={"text": "I live in Lisbon and love green tea.", "importance": 0.8}),
            alice("POST", "/chat", json={"message": "I moved to Porto in May.", "session_id": "s1"}),
            alice("POST", "/chat", json={"message": "What do I drink?", "session_id": "s1"}),  # the echoing failure
            alice("POST", "/recall", json={"query": "where do I live"}),
            alice("POST", "/consolidate", json={"session_id": "s1"}), alice("POST", "/sleep"),
            alice("POST", "/dream"), alice("GET", "/stats"), alice("GET", "/events"), alice("GET", "/beliefs"),
            alice("GET", "/memories"), alice("GET", "/clock"), alice("POST", "/clock/advance", json={"duration": "1d"})]
    exported = alice("GET", "/export")
    seen += [exported, alice("POST", "/import", data=exported.content), alice("GET", "/export"),
             server.call("POST", "/initialize", ADMIN_KEY), server.call("GET", "/pre-stop", ADMIN_KEY),
             server.call("POST", "/invoke", ADMIN_KEY, json={"job": "sleep", "tenant": "alice",
                                                             "trigger_time": "2026-12-01T00:00:00Z"}),
             server.call("GET", "/stats", "egk_" + KEY)]
    return [json.dumps(dict(r.headers)) + r.text for r in seen]


def _stored_bytes(root: Path) -> bytes:
    return b"".join(p.read_bytes() for p in root.rglob("*") if p.is_file())


def test_no_secret_appears_in_logs_responses_events_exports_or_files(tmp_path) -> None:
    with OpenAIServer() as model:
        model.script(*[Reply(content='{"importance": 0.6, "facts": []}')] * 3,
                     Reply(status=400, error=f"invalid request from key {KEY}: rejected"))
        store = tmp_path / "tenants"
        with running_server(store, QWEN_CLOUD_API_KEY=KEY, ENGRAM_LLM_BASE_URL=model.url, ENGRAM_LOG_LEVEL="DEBUG",
                            ENGRAM_LLM_BACKOFF_SECONDS="0.001", ENGRAM_PLATFORM="fc", ENGRAM_PROVIDER="qwen",
                            ENGRAM_RATE_BURST="1000") as server:
            answers = _everything(server)
            log = server.log()
        assert model.chat_requests(), "the provider was really called"
        assert any(r.headers.get("authorization") == f"Bearer {KEY}" for r in model.requests)  # where it belongs
    stored = _stored_bytes(store)
    secrets = {"provider key": KEY, "admin key": ADMIN_KEY, "fc secret": FC_SECRET, "fc token": FC_TOKEN,
               **{f"{t} key": k for t, k in TENANT_KEYS.items()}}
    for name, secret in secrets.items():
        assert secret not in log, f"{name} in the log"
        assert all(secret not in answer for answer in answers), f"{name} in a response"
        assert secret.encode() not in stored, f"{name} in a stored file"
    assert "req-secret-probe" in log  # the log did record those requests


DEEP = [b"[" * 1_000 + b"]" * 1_000, b"[" * 100_000 + b"]" * 100_000, b'{"a":' * 50_000 + b"1" + b"}" * 50_000]
WIDE = [b"[" + b"0," * 1_000_000 + b"0]", b"{" + b",".join(b'"k%d":%d' % (i, i) for i in range(200_000)) + b"}",
        json.dumps({"text": "x", "importance": 0.5, "kind": "fact", "session_id": "s" * 200,
                    **{f"extra{i}": i for i in range(50_000)}}).encode()]


@pytest.mark.parametrize("body", DEEP + WIDE, ids=["deep-1k", "deep-100k", "deep-objects", "wide-array",
                                                   "wide-object", "wide-extra-fields"])
def test_deep_and_wide_json_is_a_clean_4xx_on_every_body_route(tmp_path, body: bytes) -> None:
    with api_client(str(tmp_path / "tenants"), rate_burst=100000) as client:
        for path in ("/chat", "/memories", "/recall", "/consolidate", "/dream/apply", "/clock/advance", "/import"):
            for headers in (bearer("alice"), {}):
                response = client.post(path, content=body, headers={**headers, "content-type": "application/json"})
                assert 400 <= response.status_code < 500, (path, response.status_code, response.text[:200])
                assert set(response.json()) == {"error"}
        for headers in (bearer(ADMIN_KEY), {}):
            response = client.post("/invoke", content=body, headers=headers)
            assert 400 <= response.status_code < 500, ("/invoke", response.status_code, response.text[:200])
        assert client.get("/stats", headers=bearer("alice")).status_code == 200
