"""Tenant isolation: bob's key never reaches alice's memories, through any endpoint."""

from __future__ import annotations

import pytest
from functions_support import in_process_server

SECRET = "My locker code is 4417 and I keep the spare key under the blue pot."


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    with in_process_server(tmp_path_factory.mktemp("isolation") / "tenants") as server:
        alice, bob = server.as_tenant("alice"), server.as_tenant("bob")
        made = alice("POST", "/memories", json={"text": SECRET, "kind": "fact", "importance": 0.95}).json()
        alice("POST", "/chat", json={"message": "I live in Lisbon with my cat Miso.", "session_id": "alice-s1"})
        proposal = alice("POST", "/dream").json()
        bob("POST", "/memories", json={"text": "Bob likes chess.", "importance": 0.7})
        yield server, alice, bob, [m["id"] for m in made["memories"]], proposal["id"]


def _alice_intact(alice, ids) -> None:
    for memory_id in ids:
        response = alice("GET", f"/memories/{memory_id}")
        assert response.status_code == 200 and response.json()["memory"]["status"] == "active"


def test_bob_cannot_read_forget_or_purge_alice_memories_by_id(world) -> None:
    server, alice, bob, ids, _ = world
    for memory_id in ids:
        for method, path, params in [("GET", f"/memories/{memory_id}", None),
                                     ("DELETE", f"/memories/{memory_id}", None),
                                     ("DELETE", f"/memories/{memory_id}", {"purge": "true"})]:
            response = bob(method, path, params=params)
            assert response.status_code == 404, (method, path, response.text)
            assert response.json()["error"]["code"] == "not_found"
    _alice_intact(alice, ids)


def test_bob_cannot_list_recall_export_or_see_alice_beliefs_and_events(world) -> None:
    server, alice, bob, ids, _ = world
    texts = [m["text"] for m in bob("GET", "/memories", params={"limit": 500}).json()["items"]]
    assert texts and not any("4417" in t or "Miso" in t for t in texts)
    assert bob("GET", "/memories", params={"text": "locker"}).json()["items"] == []
    recalled = bob("POST", "/recall", json={"query": "locker code spare key", "budget_tokens": 2000}).json()
    assert not any(i["memory_id"] in ids for i in recalled["items"]) and "4417" not in recalled["block"]
    chat = bob("POST", "/chat", json={"message": "What is my locker code?"}).json()
    assert "4417" not in chat["recall"]["block"] and "4417" not in chat["reply"]
    exported = bob("GET", "/export").text
    assert "4417" not in exported and "Miso" not in exported and "Lisbon" not in exported
    assert not any(b["object"].lower() == "lisbon" for b in bob("GET", "/beliefs").json()["items"])
    assert not any(e["memory_id"] in ids for e in bob("GET", "/events").json()["items"])
    alice_stats = alice("GET", "/stats").json()
    bob_stats = bob("GET", "/stats").json()
    assert alice_stats["tenant"] == "alice" and bob_stats["tenant"] == "bob"
    assert bob_stats["stats"]["memories"] != alice_stats["stats"]["memories"]


def test_bob_cannot_touch_alice_sessions_or_proposals(world) -> None:
    server, alice, bob, ids, proposal_id = world
    consolidated = bob("POST", "/consolidate", json={"session_id": "alice-s1"})
    assert consolidated.status_code == 404
    applied = bob("POST", "/dream/apply", json={"proposal_id": proposal_id, "approved": ["a1"]})
    assert applied.status_code == 404
    _alice_intact(alice, ids)


def test_no_body_or_query_field_picks_the_tenant(world) -> None:
    server, alice, bob, ids, _ = world
    in_body = bob("POST", "/recall", json={"query": "locker code", "tenant": "alice"})
    assert in_body.status_code == 422 and in_body.json()["error"]["field"] == "tenant"
    in_query = bob("GET", "/stats", params={"tenant": "alice"})
    assert in_query.status_code == 200 and in_query.json()["tenant"] == "bob"
    listed = bob("GET", "/memories", params={"tenant": "alice", "limit": 500}).json()["items"]
    assert not any(m["id"] in ids for m in listed)
    headers = {"x-fc-account-id": "alice", "x-tenant": "alice", "x-fc-function-name": "alice"}
    assert bob("GET", "/stats", headers=headers).json()["tenant"] == "bob"


def test_import_into_bob_cannot_overwrite_alice(world) -> None:
    server, alice, bob, ids, _ = world
    exported = alice("GET", "/export").content
    assert bob("POST", "/import", data=exported).status_code == 200  # a copy in bob's own store
    assert bob("DELETE", f"/memories/{ids[0]}", params={"purge": "true"}).status_code == 200  # bob's copy
    _alice_intact(alice, ids)
    assert "4417" in alice("GET", "/export").text
