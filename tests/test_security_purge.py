"""Purge leaves the text nowhere: not in gists made from it, not in stored replies or kept responses that quote
it, not in dream proposals, the full-text index, the raw SQLite bytes, the export or any later generation."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import zstandard
from security_support import api_client, bearer
from snapshot_support import make_snapshotter

from engram_core.snapshots.local import LocalDirStore

CANARY = "Gistcanary42"


def _store_bytes(tmp_path: Path, tenant: str = "alice") -> bytes:
    base = tmp_path / "tenants" / tenant / "engram.sqlite"
    return b"".join(p.read_bytes() for p in (base, base.with_name(base.name + "-wal")) if p.exists()).lower()


def _fts_hits(tmp_path: Path, word: str) -> int:
    with sqlite3.connect(tmp_path / "tenants" / "alice" / "engram.sqlite") as conn:
        return conn.execute("SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?", (word,)).fetchone()[0]


def _memories(client, **params) -> list[dict]:
    query = {"status": ["active", "decayed", "archived", "superseded"], "limit": 500, **params}
    return client.get("/memories", params=query, headers=bearer("alice")).json()["items"]


def _trip(client) -> list[str]:
    """Four faded episodes of one trip, and the sleep cycle that compresses them into one gist."""
    ids = []
    for i in range(1, 5):
        made = client.post("/memories", json={"text": f"On the trip we visited {CANARY} harbour and ate fish "
                                                      f"number {i} called Finn{i}x.", "importance": 0.3,
                                              "kind": "episode"}, headers=bearer("alice")).json()
        ids.append(made["memories"][0]["id"])
    assert client.post("/clock/advance", json={"duration": "12w"}, headers=bearer("alice")).status_code == 200
    assert client.post("/sleep", headers=bearer("alice")).status_code == 200
    gists = [m for m in _memories(client) if m["kind"] == "gist"]
    assert len(gists) == 1 and CANARY in gists[0]["text"] and "Finn1x" in gists[0]["text"]  # the setting holds
    return ids


def test_purging_one_original_drops_its_gist_and_keeps_the_others(tmp_path) -> None:
    with api_client(str(tmp_path / "tenants"), rate_burst=1000) as client:
        ids = _trip(client)
        assert client.delete(f"/memories/{ids[0]}", params={"purge": "true"}, headers=bearer("alice")).is_success
        left = {m["id"]: m for m in _memories(client)}
        assert not any(m["kind"] == "gist" for m in left.values())
        assert set(ids[1:]) <= set(left) and ids[0] not in left
        assert {left[i]["status"] for i in ids[1:]} == {"decayed"} and all(left[i]["superseded_by"] is None
                                                                           for i in ids[1:])
        assert "Finn1x" not in client.get("/export", headers=bearer("alice")).text
        assert client.post("/sleep", headers=bearer("alice")).status_code == 200  # a new gist, without it
        gists = [m for m in _memories(client) if m["kind"] == "gist"]
        assert len(gists) == 1 and "Finn2x" in gists[0]["text"] and "Finn1x" not in gists[0]["text"]
        assert b"finn1x" not in _store_bytes(tmp_path) and _fts_hits(tmp_path, "finn1x") == 0


def test_purging_every_original_leaves_no_trace_of_the_gist(tmp_path) -> None:
    with api_client(str(tmp_path / "tenants"), rate_burst=1000) as client:
        for memory_id in _trip(client):
            assert client.delete(f"/memories/{memory_id}", params={"purge": "true"},
                                 headers=bearer("alice")).is_success
        recalled = client.post("/recall", json={"query": f"{CANARY} harbour fish", "budget_tokens": 2000},
                               headers=bearer("alice")).json()
        assert recalled["items"] == [] and CANARY not in recalled["block"]
        assert CANARY not in client.get("/export", headers=bearer("alice")).text
        assert CANARY.lower().encode() not in _store_bytes(tmp_path)
        assert _fts_hits(tmp_path, CANARY.lower()) == 0


def test_purge_redacts_replies_kept_responses_and_proposals_that_quote_it(tmp_path) -> None:
    with api_client(str(tmp_path / "tenants"), rate_burst=1000) as client:
        made = client.post("/memories", json={"text": "I live in Quokkaville.", "importance": 0.8},
                           headers=bearer("alice")).json()
        ids = [m["id"] for m in made["memories"]]
        client.post("/memories", json={"text": "My locker is number 12.", "importance": 0.8}, headers=bearer("alice"))
        kept = {**bearer("alice"), "Idempotency-Key": "turn-1"}
        turn = client.post("/chat", json={"message": "where do I live and what about my locker?"}, headers=kept)
        assert "Quokkaville" in turn.json()["reply"]  # the offline reply recites the recalled block
        assert client.post("/dream", headers=bearer("alice")).status_code == 200
        for memory_id in ids:
            assert client.delete(f"/memories/{memory_id}", params={"purge": "true"},
                                 headers=bearer("alice")).is_success
        exported = client.get("/export", headers=bearer("alice")).text
        assert "Quokkaville" not in exported and "quokkaville" not in exported.lower()
        assert "locker is number 12" in exported  # what does not quote it stays
        replayed = client.post("/chat", json={"message": "where do I live and what about my locker?"}, headers=kept)
        assert replayed.headers["idempotent-replayed"] == "true" and "Quokkaville" not in replayed.text
        assert b"quokkavil" not in _store_bytes(tmp_path) and _fts_hits(tmp_path, "quokkaville") == 0


def test_no_later_snapshot_generation_keeps_the_purged_text(tmp_path) -> None:
    store = LocalDirStore(tmp_path / "objects")
    snapshots = make_snapshotter(store, tmp_path / "cache")
    made = snapshots.run("erin", lambda e: e.remember("I live in Quokkaville.", importance=0.8))
    snapshots.run("erin", lambda e: e.chat("where do I live?"))
    snapshots.run("erin", lambda e: e.forget(made.memories[0].id, purge=True))
    snapshots.run("erin", lambda e: e.remember("I like chess.", importance=0.8))
    generations = [info.key for info in store.list("erin/snap/")]
    assert generations
    for key in generations:
        raw = zstandard.ZstdDecompressor().decompress(store.get(key).data)
        assert b"quokkavil" not in raw.lower(), key
