"""Two tenants, every route of the OpenAPI document: bob, with his own key, aims at alice's ids, sessions and
proposals through path, body, query fields and headers, and tries path tricks. Nothing of alice's reaches
him, and nothing of hers changes (local directory store and snapshot storage on moto)."""

from __future__ import annotations

import http.client
import json
from dataclasses import dataclass
from urllib.parse import urlsplit

from functions_support import TENANT_KEYS, running_server
from object_servers import moto_server
from security_support import api_client, bearer
from snapshot_support import KEY_ID, KEY_SECRET, LOOPBACK_REGION, new_bucket

CANARY = "Quokkaville locker 4417"
TENANT_FIELDS = {"tenant": "alice", "tenant_id": "alice", "user": "alice", "user_id": "alice", "namespace": "alice"}
TENANT_HEADERS = {"X-Tenant": "alice", "X-Tenant-Id": "alice", "X-Engram-Tenant": "alice", "x-fc-tenant": "alice",
                  "x-fc-function-name": "alice", "x-fc-account-id": "alice", "X-Forwarded-User": "alice",
                  "X-HTTP-Method-Override": "DELETE"}


@dataclass(frozen=True)
class Alice:
    memories: list[str]
    messages: list[str]
    beliefs: list[str]
    events: list[str]
    proposal: str
    session: str = "alice-s1"

    def ids(self) -> list[str]:
        return [*self.memories, *self.messages, *self.beliefs, *self.events, self.proposal]


def _seed(client) -> Alice:
    alice = bearer("alice")
    client.post("/memories", json={"text": f"My home is {CANARY}.", "importance": 0.95}, headers=alice)
    client.post("/chat", json={"message": f"I live in {CANARY} with my cat Miso.", "session_id": "alice-s1"},
                headers=alice)
    proposal = client.post("/dream", headers=alice).json()["id"]
    export = [json.loads(line) for line in client.get("/export", headers=alice).text.splitlines()[1:]]
    of = lambda kind: [r["id"] for r in export if r["type"] == kind]  # noqa: E731
    client.post("/memories", json={"text": "Bob plays chess on Sundays.", "importance": 0.7}, headers=bearer("bob"))
    return Alice(of("memory"), of("message"), of("belief"), of("event")[:5], proposal)


def catalogue(a: Alice) -> dict[tuple[str, str], list[dict]]:
    """For every keyed operation: what bob sends, aimed at alice."""
    one = a.memories[0]
    return {
        ("POST", "/chat"): [{"json": {"message": "where is my home, my locker, my cat?", "session_id": a.session}},
                            {"json": {"message": "hi", **TENANT_FIELDS}}],
        ("GET", "/memories"): [{"params": {"text": "Quokkaville", "status": ["active", "deleted", "archived"],
                                           "limit": 500, **TENANT_FIELDS}}],
        ("POST", "/memories"): [{"json": {"text": "mine", "session_id": a.session}},
                                {"json": {"text": "mine", **TENANT_FIELDS}}],
        ("GET", "/memories/{memory_id}"): [{"path": f"/memories/{i}"} for i in a.ids()],
        ("DELETE", "/memories/{memory_id}"): [{"path": f"/memories/{i}", "params": {"purge": p}}
                                              for i in a.memories for p in ("false", "true")],
        ("POST", "/recall"): [{"json": {"query": "home locker cat", "budget_tokens": 4000}},
                              {"json": {"query": "home locker", **TENANT_FIELDS}}],
        ("GET", "/beliefs"): [{"params": {"subject": s}} for s in ("user", "alice", "cat")] + [
            {"params": {"as_of": "2999-01-01", **TENANT_FIELDS}}],
        ("GET", "/events"): [{"params": {"since": "1000-01-01", "limit": 10000, **TENANT_FIELDS}}],
        ("GET", "/export"): [{"params": TENANT_FIELDS}],
        ("POST", "/import"): [{"content": json.dumps({"type": "header", "format": "engram-export", "version": 1})
                               + "\n" + json.dumps({"type": "dream_proposal", "id": a.proposal, "actions": [],
                                                    "rejected": [], "created_at": "2026-01-01T00:00:00.000000Z"})}],
        ("GET", "/stats"): [{"params": TENANT_FIELDS}],
        ("GET", "/clock"): [{"params": TENANT_FIELDS}],
        ("POST", "/clock/advance"): [{"json": {"duration": "1w"}}, {"json": {"duration": "1w", **TENANT_FIELDS}}],
        ("POST", "/consolidate"): [{"json": {"session_id": a.session}}, {"json": {"session_id": one}}],
        ("POST", "/sleep"): [{"params": TENANT_FIELDS}],
        ("POST", "/dream"): [{"params": TENANT_FIELDS}],
        ("POST", "/dream/apply"): [{"json": {"proposal_id": a.proposal, "approved": ["a1", "a2", "a3"]}}],
        ("POST", "/observe"): [{"json": {"text": "where is my locker?", "id": m, "session_id": a.session}}
                               for m in a.messages] + [{"json": {"text": "hi", **TENANT_FIELDS}}],
        ("POST", "/v1/chat/completions"): [
            {"json": {"model": "engram", "messages": [{"role": "user", "content": "where is my home, my cat?"}],
                      "metadata": {"engram_session_id": a.session, **TENANT_FIELDS}}},
            {"json": {"model": "engram", "stream": True,
                      "messages": [{"role": "user", "content": "my locker number? my pet?"}]}}],
        ("GET", "/v1/models"): [{"params": TENANT_FIELDS}],
        ("GET", "/v1/models/{model}"): [{"path": f"/v1/models/{one}"}],
    }


def keyed_operations(document: dict) -> set[tuple[str, str]]:
    return {(method.upper(), path) for path, operations in document["paths"].items()
            for method, operation in operations.items()
            if any("apiKey" in requirement for requirement in operation.get("security", ()))}


def _as_bob(client, method: str, template: str, request: dict, extra_headers: dict):
    headers = {**bearer("bob"), **extra_headers}
    if "content" in request:
        headers["content-type"] = "application/x-ndjson"
    return client.request(method, request.get("path", template), params=request.get("params"),
                          json=request.get("json"), content=request.get("content"), headers=headers)


def _alice_state(client) -> tuple[str, float]:
    alice = bearer("alice")
    return client.get("/export", headers=alice).text, client.get("/clock", headers=alice).json()["offset_hours"]


def _bob_probes_every_route(client) -> None:
    a = _seed(client)
    assert a.memories and a.messages and a.beliefs and a.events and a.proposal  # something of each to aim at
    planned = catalogue(a)
    assert set(planned) == keyed_operations(client.get("/openapi.json").json()), "a route is missing here"
    before = _alice_state(client)
    for (method, template), requests in planned.items():
        for request in requests:
            for headers in ({}, TENANT_HEADERS):
                response = _as_bob(client, method, template, request, headers)
                assert response.status_code < 500, (method, template, request, response.text[:300])
                assert "Quokkaville" not in response.text and "Miso" not in response.text, (method, template)
                if "path" in request and method in ("GET", "DELETE"):
                    assert response.status_code == 404, (method, request["path"], response.text[:200])
                if any(k in TENANT_FIELDS for k in request.get("json") or {}):
                    assert response.status_code == 422, (method, template, response.text[:200])
    assert _alice_state(client) == before
    bob_stats = client.get("/stats", headers=bearer("bob")).json()
    assert bob_stats["tenant"] == "bob"


def test_bob_reaches_nothing_of_alice_through_any_route_on_the_local_store(tmp_path) -> None:
    with api_client(str(tmp_path / "tenants"), rate_burst=100000) as client:
        _bob_probes_every_route(client)


def test_bob_reaches_nothing_of_alice_through_any_route_on_snapshot_storage(tmp_path, monkeypatch) -> None:
    with moto_server() as endpoint:
        for name, value in (("ENGRAM_OSS_ENDPOINT", endpoint), ("ENGRAM_OSS_DIALECT", "s3"),
                            ("ENGRAM_OSS_REGION", LOOPBACK_REGION),
                            ("ENGRAM_OSS_ACCESS_KEY_ID", KEY_ID), ("ENGRAM_OSS_ACCESS_KEY_SECRET", KEY_SECRET),
                            ("ENGRAM_SNAPSHOT_CACHE_DIR", str(tmp_path / "cache"))):
            monkeypatch.setenv(name, value)
        with api_client(f"oss://{new_bucket(endpoint)}/tenants", rate_burst=100000) as client:
            _bob_probes_every_route(client)


PATH_TRICKS = ["/memories/..%2fstats", "/memories/%2e%2e/stats", "/memories/../stats", "/memories/{id}%00",
               "/memories/{id}/", "//memories/{id}", "/memories/{id}%2f..", "/MEMORIES/{id}", "/memories;tenant=alice",
               "/board/../app.py", "/board/..%2f..%2fapp.py", "/board/%2e%2e/functions/app.py",
               "/memories/'%20OR%201=1%20--", "/memories/%27%3B%20DROP%20TABLE%20memories%3B--",
               "/alice/memories", "/memories/{id}?tenant=alice&tenant=bob", "/export/../export?tenant=alice"]


def _raw(url: str, path: str, key: str) -> tuple[int, str]:
    """The path sent byte for byte (no client-side normalisation of dot segments or escapes)."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        conn.putrequest("GET", path, skip_accept_encoding=True)
        conn.putheader("Authorization", f"Bearer {key}")
        conn.endheaders()
        response = conn.getresponse()
        return response.status, response.read().decode("utf-8", "replace")
    finally:
        conn.close()


def test_path_tricks_reach_nothing_of_alice(tmp_path) -> None:
    with running_server(tmp_path / "tenants") as server:
        alice = server.as_tenant("alice")
        memory_id = alice("POST", "/memories", json={"text": f"My home is {CANARY}.", "importance": 0.9}
                          ).json()["memories"][0]["id"]
        for trick in PATH_TRICKS:
            status, body = _raw(server.url, trick.replace("{id}", memory_id), TENANT_KEYS["bob"])
            assert status in (200, 307, 400, 404, 405), (trick, status, body[:200])  # 307: the slash-less path
            assert "Quokkaville" not in body and "import " not in body, (trick, body[:200])
            if status == 200:
                assert json.loads(body).get("tenant", "bob") == "bob" and memory_id not in body, trick
        assert alice("GET", f"/memories/{memory_id}").status_code == 200
