"""The HTTP API: the app in-process for most tests, and ``python -m functions`` as its own process on loopback
for the smoke tests (health, an FC event end to end, the access log)."""

from __future__ import annotations

import json

import pytest
from functions_support import ADMIN_KEY, TENANT_KEYS, in_process_server, load_event, running_server


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with in_process_server(tmp_path_factory.mktemp("http") / "tenants") as running:
        yield running


@pytest.fixture(scope="module")
def real_server(tmp_path_factory):
    with running_server(tmp_path_factory.mktemp("http-process") / "tenants") as running:
        yield running


def _error(response) -> dict:
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "field"}
    assert "Traceback" not in response.text
    return body["error"]


def test_health_needs_no_key_and_loads_nothing(real_server) -> None:
    response = real_server.call("GET", "/healthz")
    assert response.status_code == 200
    assert response.json()["status"] == "ok" and response.json()["function"] == "all"


def test_openapi_31_documents_every_route_error_shape_and_credentials(server) -> None:
    doc = server.call("GET", "/openapi.json").json()
    assert doc["openapi"] == "3.1.0"
    expected = {"/chat", "/memories", "/memories/{memory_id}", "/recall", "/beliefs", "/events", "/export",
                "/import", "/stats", "/consolidate", "/sleep", "/dream", "/dream/apply", "/invoke", "/healthz",
                "/initialize", "/pre-stop"}
    assert expected <= set(doc["paths"])
    assert {"apiKey", "adminKey"} <= set(doc["components"]["securitySchemes"])
    assert "ErrorBody" in doc["components"]["schemas"] and "HTTPValidationError" not in doc["components"]["schemas"]
    chat = doc["paths"]["/chat"]["post"]
    assert chat["security"] == [{"apiKey": []}]
    for status in ("401", "422", "429"):
        assert chat["responses"][status]["content"]["application/json"]["schema"]["$ref"].endswith("/ErrorBody")
    assert "security" not in doc["paths"]["/healthz"]["get"]


def test_fc_http_event_reaches_chat_and_its_request_id_is_logged(real_server) -> None:
    server = real_server
    event = load_event("http_chat.json")
    response = server.call(event["method"], event["path"], TENANT_KEYS["alice"], headers=event["headers"],
                           data=json.dumps(event["body"]))
    assert response.status_code == 200, response.text
    request_id = event["headers"]["x-fc-request-id"]
    assert response.headers["x-request-id"] == request_id
    line = f"[{request_id}] engram.http: POST /chat 200"
    assert server.wait_for_log(line), server.log()  # the line is written once the response is sent
    body = response.json()
    assert body["reply"] and body["session_id"] == "s1"
    kinds = {e["kind"] for e in body["events"]}
    assert {"stored", "not_stored"} <= kinds  # the message was stored, the offline reply was not
    assert any("allergic to shellfish" in m["text"] for m in body["stored"])
    assert body["usage"]["budget_tokens"] == 300 and body["usage"]["reply_tokens"] > 0


def test_fc_http_event_reaches_recall_which_writes_nothing(server) -> None:
    event = load_event("http_recall.json")
    alice = server.as_tenant("alice")
    before = alice("GET", "/export").text
    response = server.call(event["method"], event["path"], TENANT_KEYS["alice"], headers=event["headers"],
                           data=json.dumps(event["body"]))
    assert response.status_code == 200 and response.headers["x-request-id"] == event["headers"]["x-fc-request-id"]
    assert response.json()["budget_tokens"] == 200 and response.json()["tokens_used"] <= 200
    assert alice("GET", "/export").text == before


def test_chat_turn_recalls_with_score_breakdown_under_the_budget(server) -> None:
    bob = server.as_tenant("bob")
    told = bob("POST", "/chat", json={"message": "My favourite tea is genmaicha.", "session_id": "t"})
    assert told.status_code == 200
    body = bob("POST", "/chat", json={"message": "Which tea do I like?", "budget_tokens": 200}).json()
    items = body["recall"]["items"]
    assert items and any("genmaicha" in i["text"] for i in items)
    assert set(items[0]["score"]) == {"similarity", "lexical", "importance", "recency", "retention", "type_prior",
                                      "relevance", "score"}
    assert 0 < body["recall"]["tokens_used"] <= 200
    assert sum(i["tokens"] for i in items) <= body["recall"]["tokens_used"]


def test_reads_never_write(server) -> None:
    alice = server.as_tenant("alice")
    alice("POST", "/memories", json={"text": "Prefers aisle seats", "kind": "preference", "importance": 0.8})
    before = alice("GET", "/export").text
    memory_id = alice("GET", "/memories").json()["items"][0]["id"]
    for method, path, body in [("POST", "/recall", {"query": "aisle seats"}), ("GET", "/memories", None),
                               ("GET", f"/memories/{memory_id}", None), ("GET", "/beliefs", None),
                               ("GET", "/events", None), ("GET", "/stats", None), ("GET", "/export", None)]:
        assert alice(method, path, json=body).status_code == 200, path
    recalled = alice("POST", "/recall", json={"query": "aisle seats", "budget_tokens": 100}).json()
    assert any("aisle" in i["text"] for i in recalled["items"])
    assert alice("GET", "/export").text == before


def test_remember_inspect_list_forget_and_purge(server) -> None:
    carol = server.as_tenant("carol")
    created = carol("POST", "/memories", json={"text": "I live in Lisbon.", "importance": 0.9})
    assert created.status_code == 201
    fact = next(m for m in created.json()["memories"] if m["kind"] == "fact")
    detail = carol("GET", f"/memories/{fact['id']}").json()
    assert detail["memory"]["id"] == fact["id"] and detail["provenance"][0]["text"] == "I live in Lisbon."
    assert detail["beliefs"][0]["object"].lower() == "lisbon"
    listed = carol("GET", "/memories", params={"kind": "fact", "limit": 1}).json()
    assert [m["id"] for m in listed["items"]] == [fact["id"]] and listed["next_offset"] == 1
    assert carol("GET", "/memories", params={"as_of": "2000-01-01"}).json()["items"] == []
    forgotten = carol("DELETE", f"/memories/{fact['id']}").json()
    assert forgotten["events"][0]["kind"] == "forgotten"
    assert carol("GET", f"/memories/{fact['id']}").json()["memory"]["status"] == "deleted"
    assert carol("DELETE", f"/memories/{fact['id']}", params={"purge": "true"}).json()["events"][0]["kind"] == "purged"
    gone = carol("GET", f"/memories/{fact['id']}")
    assert gone.status_code == 404 and _error(gone)["code"] == "not_found"


def test_beliefs_now_as_of_and_history(server) -> None:
    bob = server.as_tenant("bob")
    bob("POST", "/memories", json={"text": "I live in Porto.", "importance": 0.9})
    now = bob("GET", "/beliefs").json()["items"]
    assert any(b["object"].lower() == "porto" and b["current"] for b in now)
    assert bob("GET", "/beliefs", params={"as_of": "2000-01-01"}).json()["items"] == []
    history = bob("GET", "/beliefs", params={"subject": "user"}).json()["items"]
    assert any(b["object"].lower() == "porto" for b in history)
    both = bob("GET", "/beliefs", params={"subject": "user", "as_of": "2020-01-01"})
    assert both.status_code == 422 and _error(both)["field"] == "subject"


@pytest.mark.parametrize("key", [None, "egk_wrong", TENANT_KEYS["alice"] + "x", ADMIN_KEY])
def test_missing_or_wrong_key_is_401_and_says_nothing_about_tenants(server, key) -> None:
    response = server.call("GET", "/stats", key)
    assert response.status_code == 401
    error = _error(response)
    assert error == {"code": "unauthorized", "message": "missing or invalid API key", "field": None}
    assert response.headers["www-authenticate"] == "Bearer"


def test_bad_input_is_a_clear_4xx_naming_the_field(server) -> None:
    alice = server.as_tenant("alice")
    cases = [
        (("POST", "/chat"), {"json": {"message": "hi", "budget_tokens": 0}}, 422, "budget_tokens"),
        (("POST", "/chat"), {"json": {"message": "hi", "tenant": "bob"}}, 422, "tenant"),
        (("POST", "/recall"), {"json": {"query": "x", "as_of": "not a date"}}, 422, "as_of"),
        (("POST", "/recall"), {"json": {"query": "x", "as_of": "9999-12-31T23:59:59-23:00"}}, 422, "as_of"),
        (("GET", "/events"), {"params": {"since": "0001-01-01T00:00:00+23:00"}}, 422, "since"),
        (("POST", "/memories"), {"json": {"text": "x", "importance": 2}}, 422, "importance"),
        (("POST", "/memories"), {"json": {"text": "x", "kind": "gist"}}, 422, "kind"),
        (("GET", "/memories"), {"params": {"limit": 0}}, 422, "limit"),
        (("POST", "/chat"), {"data": b"{not json", "headers": {"content-type": "application/json"}}, 400, None),
        (("POST", "/import"), {"data": b'{"type": "header"}\n'}, 422, None),
        (("GET", "/memories/mem_nope"), {}, 404, "memory_id"),
        (("POST", "/dream/apply"), {"json": {"proposal_id": "drm_nope", "approved": ["a1"]}}, 404, "proposal_id"),
        (("POST", "/consolidate"), {"json": {"session_id": "never-seen"}}, 404, "session_id"),
    ]
    for (method, path), kwargs, status, field in cases:
        response = alice(method, path, **kwargs)
        assert response.status_code == status, (path, kwargs, response.text)
        error = _error(response)
        if field is not None:
            assert error["field"] == field, (path, error)


def test_idempotency_key_returns_the_first_result_and_writes_once(server) -> None:
    bob = server.as_tenant("bob")
    body = {"text": "Remember the blue umbrella.", "importance": 0.7}
    first = bob("POST", "/memories", json=body, headers={"Idempotency-Key": "remember-umbrella-1"})
    again = bob("POST", "/memories", json=body, headers={"Idempotency-Key": "remember-umbrella-1"})
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json() and again.headers["idempotent-replayed"] == "true"
    listed = bob("GET", "/memories", params={"text": "blue umbrella", "limit": 500}).json()["items"]
    assert len(listed) == len(first.json()["memories"])
    other = bob("POST", "/memories", json={**body, "text": "Something else."},
                headers={"Idempotency-Key": "remember-umbrella-1"})
    assert other.status_code == 422 and _error(other)["code"] == "idempotency_key_reused"
    turn = {"message": "Call me Robert from now on.", "session_id": "idem"}
    chats = [bob("POST", "/chat", json=turn, headers={"Idempotency-Key": "turn-7"}) for _ in range(3)]
    assert chats[0].json() == chats[1].json() == chats[2].json()
    records = [json.loads(line) for line in bob("GET", "/export").text.splitlines()]
    said = [r for r in records if r["type"] == "message" and r["text"] == turn["message"]]
    assert len(said) == 1


def test_export_import_round_trip(server) -> None:
    alice, dave = server.as_tenant("alice"), server.as_tenant("dave")
    # its own memories first, so the round trip holds when this test runs alone
    for text in ("Keeps a sourdough starter called Rufus", "Takes the 8:10 ferry on Mondays"):
        assert alice("POST", "/memories", json={"text": text, "importance": 0.7}).status_code in (200, 201)
    exported = alice("GET", "/export")
    assert exported.headers["content-type"].startswith("application/x-ndjson")
    lines = exported.text.splitlines()
    assert json.loads(lines[0])["type"] == "header"
    imported = dave("POST", "/import", data=exported.content, headers={"content-type": "application/x-ndjson"})
    assert imported.status_code == 200, imported.text
    assert sum(imported.json()["imported"].values()) == len(lines) - 1
    mine = alice("GET", "/memories", params={"limit": 500}).json()["items"]
    theirs = dave("GET", "/memories", params={"limit": 500}).json()["items"]
    assert [m["text"] for m in theirs] == [m["text"] for m in mine]
    again = dave("POST", "/import", data=exported.content)
    assert again.status_code == 422  # the same ids again: all or nothing
    assert len(dave("GET", "/memories", params={"limit": 500}).json()["items"]) == len(mine)


def test_consolidate_sleep_and_dream_propose_then_apply_only_valid_ids(server) -> None:
    carol = server.as_tenant("carol")
    carol("POST", "/chat", json={"message": "My sister Ana lives in Braga.", "session_id": "fam"})
    consolidated = carol("POST", "/consolidate", json={"session_id": "fam"})
    assert consolidated.status_code == 200
    assert any(e["kind"] == "consolidated" for e in consolidated.json()["events"])
    slept = carol("POST", "/sleep")
    assert slept.status_code == 200 and any(e["kind"] == "consolidated" for e in slept.json()["events"])
    proposal = carol("POST", "/dream").json()
    assert proposal["id"].startswith("drm")
    applied = carol("POST", "/dream/apply", json={"proposal_id": proposal["id"], "approved": ["a999"]}).json()
    assert [e["kind"] for e in applied["events"]] == ["dream_rejected"]


def test_lifecycle_hooks_are_cheap_and_the_server_keeps_serving(server) -> None:
    assert server.call("POST", "/initialize", ADMIN_KEY).json()["status"] == "ok"
    assert server.call("GET", "/pre-stop", ADMIN_KEY).json()["status"] == "ok"
    assert server.call("GET", "/stats", TENANT_KEYS["alice"]).status_code == 200


def test_body_limit_and_rate_limit(tmp_path) -> None:
    with in_process_server(tmp_path / "tenants", max_body_bytes=4096, rate_burst=2, rate_per_minute=1) as small:
        alice, bob = small.as_tenant("alice"), small.as_tenant("bob")
        big = alice("POST", "/memories", json={"text": "x" * 5000})
        assert big.status_code == 413 and _error(big)["code"] == "body_too_large"
        assert [alice("POST", "/chat", json={"message": f"hello {i}"}).status_code for i in range(2)] == [200, 200]
        limited = alice("POST", "/chat", json={"message": "hello again"})
        assert limited.status_code == 429 and _error(limited)["code"] == "rate_limited"
        assert int(limited.headers["retry-after"]) >= 1
        assert alice("POST", "/sleep").status_code == 429
        assert alice("POST", "/recall", json={"query": "hello"}).status_code == 200  # a local embedder: no model
        assert bob("POST", "/chat", json={"message": "hello"}).status_code == 200  # per tenant
