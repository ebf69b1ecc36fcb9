"""Fuzz the HTTP API from its own OpenAPI document (schemathesis), bounded: no 5xx, every answer as documented.

Afterwards every tenant store still opens and passes SQLite's integrity check.
"""

from __future__ import annotations

import sqlite3

import pytest
import schemathesis
from functions_support import TENANT_KEYS, running_server
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance, response_schema_conformance, status_code_conformance,
)

EXAMPLES_PER_OPERATION = 15  # per mode; ~17 operations x 2 modes: a few hundred cases in all
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


@schemathesis.serializer("application/x-ndjson")
def _ndjson(context, value) -> bytes:  # noqa: ANN001 - schemathesis hook
    """Import bodies are JSON lines: send the generated string as it is."""
    return value if isinstance(value, bytes) else str(value).encode("utf-8")


@pytest.fixture(scope="module")
def fuzzed_server(tmp_path_factory):  # noqa: ANN001, ANN201
    store = tmp_path_factory.mktemp("fuzz") / "tenants"
    with running_server(store, ENGRAM_RATE_BURST="100000") as server:  # fuzz the handlers, not the limiter
        alice = server.as_tenant("alice")
        alice("POST", "/memories", json={"text": "I live in Lisbon.", "importance": 0.9})
        alice("POST", "/chat", json={"message": "My sister Ana lives in Braga.", "session_id": "s1"})
        yield server, store


def _fuzz(operation, server, mode: GenerationMode) -> None:  # noqa: ANN001
    @given(case=operation.as_strategy(mode))
    @settings(max_examples=EXAMPLES_PER_OPERATION, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    def answers_as_documented(case) -> None:  # noqa: ANN001
        case.call_and_validate(base_url=server.url, headers={"Authorization": f"Bearer {TENANT_KEYS['alice']}"},
                               checks=CHECKS, timeout=60)

    try:
        answers_as_documented()
    except Unsatisfiable:
        assert mode is GenerationMode.NEGATIVE  # an operation without inputs has no invalid request to make


def test_api_answers_every_generated_request_as_documented(fuzzed_server) -> None:  # noqa: ANN001
    server, _ = fuzzed_server
    schema = schemathesis.openapi.from_url(server.url + "/openapi.json")
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 17
    for operation in operations:
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            _fuzz(operation, server, mode)


def test_after_fuzzing_every_store_opens_and_passes_integrity_check(fuzzed_server) -> None:  # noqa: ANN001
    server, store = fuzzed_server
    assert server.call("GET", "/stats", TENANT_KEYS["alice"]).status_code == 200
    files = sorted(store.glob("*/engram.sqlite"))
    assert files, "the fuzzed tenant has a store"
    for path in files:
        with sqlite3.connect(path) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    from engram_core import open_engine

    with open_engine(files[0], embedder="hashing") as engine:
        assert engine.stats()["schema_version"] >= 1
        assert engine.memories(limit=500)
