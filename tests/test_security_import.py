"""The import header is validated field by field; a stored clock offset out of range never takes a tenant down,
and an import never moves the tenant's clock back."""

from __future__ import annotations

import json
import sqlite3

import pytest
from security_support import api_client, bearer

HEADER = {"type": "header", "format": "engram-export", "version": 1}
ROUTES = [("GET", "/clock"), ("GET", "/stats"), ("GET", "/memories"), ("POST", "/recall"), ("POST", "/memories")]


def _lines(*records: dict) -> bytes:
    return b"".join(json.dumps(r).encode() + b"\n" for r in records)


@pytest.fixture
def client(tmp_path):
    with api_client(str(tmp_path / "tenants"), rate_burst=1000) as running:
        running.post("/memories", json={"text": "base memory about tea", "importance": 0.5}, headers=bearer("alice"))
        yield running


def _answers(client) -> None:
    bodies = {"/recall": {"query": "tea"}, "/memories": {"text": "another one", "importance": 0.5}}
    for method, path in ROUTES:
        response = client.request(method, path, json=bodies.get(path) if method == "POST" else None,
                                  headers=bearer("alice"))
        assert response.status_code in (200, 201), (path, response.status_code, response.text[:200])


@pytest.mark.parametrize(("extra", "field"), [
    ({"clock_offset_seconds": 1e15}, "clock_offset_seconds"), ({"clock_offset_seconds": -3e9}, "clock_offset_seconds"),
    ({"clock_offset_seconds": -1}, "clock_offset_seconds"), ({"clock_offset_seconds": "soon"}, "clock_offset_seconds"),
    ({"schema": 999}, "schema"), ({"schema": 0}, "schema"), ({"schema": "3"}, "schema"), ({"version": 0}, "version"),
    ({"version": 1.5}, "version"), ({"embedder": "x" * 500}, "embedder"), ({"embedder": "no dimension"}, "embedder"),
    ({"tenant": "bob"}, "tenant"), ({"format": "engram-export-2"}, "format")])
def test_a_header_field_out_of_bounds_is_refused_and_changes_nothing(client, extra: dict, field: str) -> None:
    before = client.get("/export", headers=bearer("alice")).text
    clock = client.get("/clock", headers=bearer("alice")).json()["offset_hours"]
    response = client.post("/import", content=_lines({**HEADER, **extra}), headers=bearer("alice"))
    assert response.status_code == 422, response.text
    assert field in response.json()["error"]["message"]
    assert client.get("/export", headers=bearer("alice")).text == before
    assert client.get("/clock", headers=bearer("alice")).json()["offset_hours"] == clock
    _answers(client)


def test_a_nan_offset_is_refused(client) -> None:
    body = b'{"type": "header", "format": "engram-export", "version": 1, "clock_offset_seconds": NaN}\n'
    assert client.post("/import", content=body, headers=bearer("alice")).status_code == 422
    _answers(client)


def test_an_import_never_moves_the_clock_back(client) -> None:
    assert client.post("/clock/advance", json={"duration": "5w"}, headers=bearer("alice")).status_code == 200
    older = _lines({**HEADER, "clock_offset_seconds": 3 * 7 * 86400.0})
    assert client.post("/import", content=older, headers=bearer("alice")).status_code == 200
    assert client.get("/clock", headers=bearer("alice")).json()["offset_hours"] == 5 * 7 * 24
    later = _lines({**HEADER, "clock_offset_seconds": 8 * 7 * 86400.0})
    assert client.post("/import", content=later, headers=bearer("alice")).status_code == 200
    assert client.get("/clock", headers=bearer("alice")).json()["offset_hours"] == 8 * 7 * 24
    _answers(client)


def test_an_exported_header_round_trips(client) -> None:
    exported = client.get("/export", headers=bearer("alice")).content
    assert client.post("/import", content=exported, headers=bearer("bob")).status_code == 200
    assert "base memory about tea" in client.get("/export", headers=bearer("bob")).text


@pytest.mark.parametrize("stored", ["1e15", "-3e9", "nan", "inf", "not a number"])
def test_a_stored_offset_out_of_range_never_takes_the_tenant_down(tmp_path, stored: str) -> None:
    with api_client(str(tmp_path / "tenants")) as client:
        client.post("/memories", json={"text": "base memory about tea", "importance": 0.5}, headers=bearer("alice"))
    with sqlite3.connect(tmp_path / "tenants" / "alice" / "engram.sqlite") as conn:
        conn.execute("UPDATE meta SET value = ? WHERE key = 'clock_offset_seconds'", (stored,))
        if not conn.total_changes:
            conn.execute("INSERT INTO meta (key, value) VALUES ('clock_offset_seconds', ?)", (stored,))
    with api_client(str(tmp_path / "tenants"), rate_burst=1000) as client:
        _answers(client)
        offset = client.get("/clock", headers=bearer("alice")).json()["offset_hours"]
        assert 0 <= offset <= 100 * 365 * 24
