"""Timestamps at the edges of the range, and a store with an unreadable row: the tenant stays up."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from functions_support import ADMIN_KEY
from security_support import api_client, bearer

# The range is UTC: 1000-01-01T00:00:00Z to 8999-12-31T23:59:59.999999Z.
EDGES_OK = ["1000-01-01T00:00:00Z", "1000-01-01", "1000-01-01T00:00:00-00:01", "2026-02-28T23:59:59.999999+14:00",
            "8999-12-31T23:59:59.999999Z", "8999-12-31T12:00:00-11:59"]
EDGES_REFUSED = ["0999-06-01T00:00:00Z", "0999-12-31T23:59:59.999999Z", "0001-01-01", "9000-01-01T00:00:00Z",
                 "9999-12-31T23:59:59Z", "1000-01-01T00:00:00+00:01", "8999-12-31T23:59:59.999999-12:00"]
ROUTES = [("GET", "/memories", None), ("GET", "/stats", None), ("GET", "/beliefs", None), ("GET", "/events", None),
          ("POST", "/recall", {"query": "Rome spring tea"}), ("POST", "/chat", {"message": "hi there"}),
          ("POST", "/sleep", None), ("POST", "/dream", None), ("GET", "/export", None), ("GET", "/clock", None)]


@pytest.fixture
def client(tmp_path):
    with api_client(str(tmp_path / "tenants"), rate_burst=1000) as running:
        yield running


def _all_routes_answer(client) -> None:
    for method, path, body in ROUTES:
        response = client.request(method, path, json=body, headers=bearer("alice"))
        assert response.status_code < 500, (path, response.status_code, response.text[:300])
        assert response.status_code in (200, 201), (path, response.status_code, response.text[:300])


@pytest.mark.parametrize("when", EDGES_OK)
def test_a_date_inside_the_range_is_stored_and_read_back(client, when: str) -> None:
    assert client.post("/chat", json={"message": "I visited Rome last spring.", "occurred_at": when},
                       headers=bearer("alice")).status_code == 200
    for field, path in (("as_of", "/memories"), ("since", "/events"), ("as_of", "/beliefs")):
        assert client.get(path, params={field: when}, headers=bearer("alice")).status_code == 200
    assert client.post("/recall", json={"query": "Rome", "as_of": when}, headers=bearer("alice")).status_code == 200
    _all_routes_answer(client)


@pytest.mark.parametrize("when", EDGES_REFUSED)
def test_a_date_outside_the_range_is_a_422_and_writes_nothing(client, when: str) -> None:
    assert client.post("/memories", json={"text": "likes tea", "importance": 0.5}, headers=bearer("alice")).is_success
    before = client.get("/export", headers=bearer("alice")).text
    refused = client.post("/chat", json={"message": "I visited Rome last spring.", "occurred_at": when},
                          headers=bearer("alice"))
    assert refused.status_code == 422 and refused.json()["error"]["field"] == "occurred_at", refused.text
    for field, path in (("as_of", "/memories"), ("since", "/events"), ("as_of", "/beliefs")):
        response = client.get(path, params={field: when}, headers=bearer("alice"))
        assert response.status_code == 422 and response.json()["error"]["field"] == field
    assert client.post("/recall", json={"query": "Rome", "as_of": when}, headers=bearer("alice")).status_code == 422
    assert client.get("/export", headers=bearer("alice")).text == before
    _all_routes_answer(client)


@pytest.mark.parametrize("when", ["0001-01-01T00:00:00Z", "0999-12-31T23:59:59Z", "9000-01-01T00:00:00Z",
                                  "9999-12-31T23:59:59+00:00"])
def test_a_trigger_time_outside_the_range_is_a_422(client, when: str) -> None:
    assert client.post("/memories", json={"text": "likes tea", "importance": 0.5}, headers=bearer("alice")).is_success
    job = client.post("/invoke", json={"job": "sleep", "tenant": "alice", "trigger_time": when},
                      headers=bearer(ADMIN_KEY))
    assert job.status_code == 422 and job.json()["error"]["field"] == "trigger_time", job.text
    timer = client.post("/invoke", json={"triggerTime": when, "triggerName": "t", "payload": "{}"},
                        headers=bearer(ADMIN_KEY))
    assert timer.status_code == 422 and timer.json()["error"]["field"] == "triggerTime", timer.text
    _all_routes_answer(client)


def _store_file(tmp_path: Path) -> Path:
    return tmp_path / "tenants" / "alice" / "engram.sqlite"


def _poison(tmp_path: Path, sql: str, *args: object) -> None:
    with sqlite3.connect(_store_file(tmp_path)) as conn:
        conn.execute(sql, args)


def test_a_store_written_with_a_short_year_reads_again(tmp_path) -> None:
    """Older versions wrote years below 1000 unpadded ('999-06-01...'): such a tenant must come back."""
    with api_client(str(tmp_path / "tenants")) as client:
        made = client.post("/memories", json={"text": "I visited Rome last spring.", "importance": 0.7},
                           headers=bearer("alice")).json()["memories"][0]["id"]
    _poison(tmp_path, "UPDATE memories SET created_at = '999-06-01T00:00:00.000000Z' WHERE id = ?", made)
    _poison(tmp_path, "UPDATE messages SET occurred_at = '999-06-01T00:00:00.000000Z'")
    with api_client(str(tmp_path / "tenants"), rate_burst=1000) as client:
        _all_routes_answer(client)
        assert client.get(f"/memories/{made}", headers=bearer("alice")).json()["memory"]["created_at"].startswith(
            "0999-06-01")
        exported = client.get("/export", headers=bearer("alice")).content
        assert client.post("/import", content=exported, headers=bearer("bob")).status_code == 200


def test_one_unreadable_row_never_takes_the_tenant_down(tmp_path) -> None:
    with api_client(str(tmp_path / "tenants"), rate_burst=1000) as client:
        ids = [client.post("/memories", json={"text": text, "importance": 0.7}, headers=bearer("alice")
                           ).json()["memories"][0]["id"] for text in ("I drink green tea.", "I visited Rome.",
                                                                      "My cat is called Miso.")]
        client.post("/chat", json={"message": "I moved to Porto in May."}, headers=bearer("alice"))
    bad, soft = ids[1], ids[2]
    _poison(tmp_path, "UPDATE memories SET created_at = 'not a time' WHERE id = ?", bad)
    _poison(tmp_path, "UPDATE memories SET status = 'weird', last_accessed_at = '??' WHERE id = ?", soft)
    _poison(tmp_path, "UPDATE events SET at = 'yesterday-ish' WHERE seq = 1")
    _poison(tmp_path, "UPDATE beliefs SET valid_from = '2026-13-45' WHERE rowid = 1")
    _poison(tmp_path, "UPDATE messages SET recorded_at = 'later' WHERE rowid = 1")
    with api_client(str(tmp_path / "tenants"), rate_burst=1000) as client:
        _all_routes_answer(client)
        listed = [m["id"] for m in client.get("/memories", headers=bearer("alice")).json()["items"]]
        assert ids[0] in listed and bad not in listed
        unreadable = client.get(f"/memories/{bad}", headers=bearer("alice"))
        assert unreadable.status_code == 409 and unreadable.json()["error"]["code"] == "unreadable_record"
        assert bad in unreadable.json()["error"]["message"]
        doctor = subprocess.run([sys.executable, "-m", "engram_core.cli.main", "--embedder", "hashing", "--store",
                                 str(_store_file(tmp_path)), "doctor", "--json"], capture_output=True, text=True)
        assert doctor.returncode == 0, doctor.stderr
        reported = json.loads(doctor.stdout)["store"]["unreadable"]
        assert {(r["table"], r["id"]) for r in reported} >= {("memories", bad), ("memories", soft)}
        assert {r["table"] for r in reported} == {"memories", "events", "beliefs", "messages"}
        assert client.delete(f"/memories/{soft}", headers=bearer("alice")).status_code == 200
        purged = client.delete(f"/memories/{bad}", params={"purge": "true"}, headers=bearer("alice"))
        assert purged.status_code == 200 and purged.json()["events"][0]["kind"] == "purged"
        assert "Rome" not in client.get("/export", headers=bearer("alice")).text
        _all_routes_answer(client)


def test_export_names_a_row_whose_json_column_is_damaged(tmp_path) -> None:
    with api_client(str(tmp_path / "tenants"), rate_burst=1000) as client:
        kept, bad = (client.post("/memories", json={"text": text}, headers=bearer("alice")
                                 ).json()["memories"][0]["id"] for text in ("I drink green tea.", "I visited Rome."))
    _poison(tmp_path, "UPDATE memories SET provenance = '{not json' WHERE id = ?", bad)
    with api_client(str(tmp_path / "tenants"), rate_burst=1000) as client:
        refused = client.get("/export", headers=bearer("alice"))
        assert refused.status_code == 409, refused.text
        error = refused.json()["error"]
        assert error["code"] == "unreadable_record" and bad in error["message"] and "provenance" in error["message"]
        assert kept in [m["id"] for m in client.get("/memories", headers=bearer("alice")).json()["items"]]
    cli = subprocess.run([sys.executable, "-m", "engram_core.cli.main", "--embedder", "hashing", "--store",
                          str(_store_file(tmp_path)), "export"], capture_output=True, text=True)
    assert cli.returncode != 0 and "Traceback" not in cli.stderr
    assert bad in cli.stderr and "provenance" in cli.stderr
    with api_client(str(tmp_path / "tenants"), rate_burst=1000) as client:  # the way out the error names
        assert client.delete(f"/memories/{bad}", params={"purge": "true"}, headers=bearer("alice")).status_code == 200
    cli = subprocess.run([sys.executable, "-m", "engram_core.cli.main", "--embedder", "hashing", "--store",
                          str(_store_file(tmp_path)), "export"], capture_output=True, text=True)
    assert cli.returncode == 0 and kept in cli.stdout
