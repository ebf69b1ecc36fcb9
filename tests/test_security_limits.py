"""Every route that can call a model is rate limited: counted against a real OpenAI-compatible server."""

from __future__ import annotations

import pytest
from openai_server import OpenAIServer
from qwen_support import KEY
from security_support import api_client, bearer

BURST = 3


@pytest.fixture
def model_server(monkeypatch):
    with OpenAIServer() as server:
        monkeypatch.setenv("QWEN_CLOUD_API_KEY", KEY)
        monkeypatch.setenv("ENGRAM_LLM_BASE_URL", server.url)
        monkeypatch.setenv("ENGRAM_LLM_BACKOFF_SECONDS", "0.001")
        yield server


def _calls(server: OpenAIServer, kind: str) -> int:
    return sum(1 for r in server.requests if r.path.endswith(kind))


def test_remember_is_rate_limited_because_it_calls_the_bookkeeping_model(tmp_path, model_server) -> None:
    with api_client(str(tmp_path / "tenants"), embedder="qwen", rate_burst=BURST, rate_per_minute=1) as client:
        remember = lambda i: client.post("/memories", json={"text": f"I met friend {i} at the cafe."},  # noqa: E731
                                         headers=bearer("alice")).status_code
        assert [remember(i) for i in range(BURST)] == [201] * BURST
        called = _calls(model_server, "/chat/completions")
        assert called >= BURST  # each remember asked the bookkeeping model
        assert [remember(i) for i in range(3)] == [429] * 3
        assert _calls(model_server, "/chat/completions") == called  # the refused requests called nothing
        limited = client.post("/memories", json={"text": "one more"}, headers=bearer("alice"))
        assert int(limited.headers["retry-after"]) >= 1 and limited.json()["error"]["code"] == "rate_limited"
        assert client.post("/memories", json={"text": "Bob's own bucket."}, headers=bearer("bob")).status_code == 201


def test_recall_is_rate_limited_when_the_embedder_is_a_hosted_model(tmp_path, model_server) -> None:
    with api_client(str(tmp_path / "tenants"), embedder="qwen", rate_burst=BURST, rate_per_minute=1) as client:
        before = _calls(model_server, "/embeddings")
        statuses = [client.post("/recall", json={"query": f"cafe {i}"}, headers=bearer("alice")).status_code
                    for i in range(BURST + 2)]
        assert statuses == [200] * BURST + [429] * 2
        assert _calls(model_server, "/embeddings") - before == BURST


def test_recall_with_a_local_embedder_calls_no_model_and_is_not_limited(tmp_path) -> None:
    with api_client(str(tmp_path / "tenants"), rate_burst=1, rate_per_minute=1) as client:
        statuses = [client.post("/recall", json={"query": f"cafe {i}"}, headers=bearer("alice")).status_code
                    for i in range(5)]
        assert statuses == [200] * 5


@pytest.mark.parametrize(("method", "path", "body"), [
    ("POST", "/chat", {"message": "hello"}), ("POST", "/memories", {"text": "hello there"}),
    ("POST", "/consolidate", {"session_id": "default"}), ("POST", "/sleep", None), ("POST", "/dream", None),
    ("POST", "/dream/apply", {"proposal_id": "drm-none", "approved": []}),
    ("POST", "/observe", {"text": "hello there"}),
    ("POST", "/v1/chat/completions", {"model": "engram", "messages": [{"role": "user", "content": "hello"}]})])
def test_every_model_calling_route_is_limited(tmp_path, method: str, path: str, body) -> None:
    with api_client(str(tmp_path / "tenants"), rate_burst=1, rate_per_minute=1) as client:
        client.request(method, path, json=body, headers=bearer("alice"))
        assert client.request(method, path, json=body, headers=bearer("alice")).status_code == 429
