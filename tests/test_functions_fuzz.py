"""Fuzz the HTTP API from its own OpenAPI document (schemathesis), bounded: no 5xx, every answer as documented.

Three kinds of cases: schemathesis' own positive and negative ones; bodies and query values of hostile Unicode
(look-alike brackets, bidi and tag characters, NUL, combining marks, noncharacters, long strings), made from
each operation's schema; and deeply nested or very wide JSON in any body field. Afterwards every tenant store
still opens and passes SQLite's integrity check. ``ENGRAM_FUZZ_EXAMPLES`` raises the number of examples per
operation and mode for a longer run by hand; the test prints how many cases it sent and how many got a 5xx.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections import Counter

import pytest
import requests
import schemathesis
from functions_support import TENANT_KEYS, running_server
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.core import NOT_SET
from schemathesis.specs.openapi.checks import (
    content_type_conformance, response_schema_conformance, status_code_conformance,
)

EXAMPLES_PER_OPERATION = int(os.environ.get("ENGRAM_FUZZ_EXAMPLES", "15"))  # per mode: a few hundred in all
HOSTILE_EXAMPLES = max(4, EXAMPLES_PER_OPERATION // 2)
TALLY: Counter = Counter()


def _tallied(ctx, response, case) -> None:
    TALLY["cases"] += 1
    TALLY["5xx"] += response.status_code >= 500


CHECKS = [_tallied, not_a_server_error, status_code_conformance, content_type_conformance,
          response_schema_conformance]
AUTH = {"Authorization": f"Bearer {TENANT_KEYS['alice']}"}
HOSTILE_PIECES = ["\uff1c/memories\uff1e", "\u27e8/mem\u27e9", "\u202e", "\u2066", "\U000e003c\U000e003e", "\x00",
                  "\u200b", "\ufeff", "\ufffe", "\U0010ffff", "e\u0301", "👨\u200d👩\u200d👧", "\x1b[2J", "\u2028",
                  "</memories>", "&lt;", "Ω", "ß", "İ", "\u0000\u0000", "'; DROP TABLE memories; --", "%00", "../"]
hostile_text = st.one_of(
    st.text(st.characters(codec="utf-8"), max_size=64),
    st.lists(st.sampled_from(HOSTILE_PIECES), min_size=1, max_size=8).map("".join),
    st.builds(lambda piece, n: piece * n, st.sampled_from(HOSTILE_PIECES), st.integers(100, 4000)),
)


@schemathesis.serializer("application/x-ndjson")
def _ndjson(context, value) -> bytes:
    """Import bodies are JSON lines: send the generated string as it is."""
    return value if isinstance(value, bytes) else str(value).encode("utf-8")


@pytest.fixture(scope="module")
def fuzzed_server(tmp_path_factory):
    store = tmp_path_factory.mktemp("fuzz") / "tenants"
    with running_server(store, ENGRAM_RATE_BURST="100000") as server:  # fuzz the handlers, not the limiter
        alice = server.as_tenant("alice")
        alice("POST", "/memories", json={"text": "I live in Lisbon.", "importance": 0.9})
        alice("POST", "/chat", json={"message": "My sister Ana lives in Braga.", "session_id": "s1"})
        yield server, store


@pytest.fixture(scope="module")
def operations(fuzzed_server):
    schema = schemathesis.openapi.from_url(fuzzed_server[0].url + "/openapi.json")
    found = [result.ok() for result in schema.get_all_operations()]
    assert len(found) >= 17
    return found


def _fuzz(operation, server, strategy, examples: int) -> None:
    @given(case=strategy)
    @settings(max_examples=examples, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    def answers_as_documented(case) -> None:
        case.call_and_validate(base_url=server.url, headers=AUTH, checks=CHECKS, timeout=60)

    answers_as_documented()


def test_api_answers_every_generated_request_as_documented(fuzzed_server, operations) -> None:
    server, _ = fuzzed_server
    for operation in operations:
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            try:
                _fuzz(operation, server, operation.as_strategy(mode), EXAMPLES_PER_OPERATION)
            except Unsatisfiable:
                assert mode is GenerationMode.NEGATIVE  # an operation without inputs has no invalid request to make


def _json_schema(operation) -> dict | None:
    content = operation.definition.raw.get("requestBody", {}).get("content", {})
    return content.get("application/json", {}).get("schema") if "application/json" in content else None


def _hostile_body(operation) -> st.SearchStrategy:
    """The operation's own fields (and a stray one), each a hostile string, number, list or object."""
    schema = _json_schema(operation) or {}
    target = schema
    if "$ref" in schema:
        target = operation.schema.raw_schema["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    names = list(target.get("properties", {})) or ["job", "tenant", "trigger_time", "triggerTime", "payload"]
    value = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
                         | hostile_text,
                         lambda inner: st.lists(inner, max_size=4) | st.dictionaries(hostile_text, inner, max_size=4),
                         max_leaves=12)
    fields = {name: st.one_of(hostile_text, hostile_text, value) for name in names}
    return st.fixed_dictionaries({}, optional={**fields, "extra": value})


def _hostile_query(operation) -> st.SearchStrategy:
    names = [p["name"] for p in operation.definition.raw.get("parameters", []) if p["in"] == "query"]
    return st.fixed_dictionaries({}, optional={name: hostile_text for name in names})


def test_hostile_unicode_in_every_field_gets_no_5xx(fuzzed_server, operations) -> None:
    server, _ = fuzzed_server
    for operation in operations:
        has_body = _json_schema(operation) is not None
        paths = {p["name"]: hostile_text.filter(bool)  # an empty id is another route (/memories/ -> /memories)
                 for p in operation.definition.raw.get("parameters", []) if p["in"] == "path"}
        strategy = st.builds(
            lambda body, query, path, operation=operation, has_body=has_body: operation.Case(
                body=body if has_body else NOT_SET, query=query, path_parameters=path or None,
                media_type="application/json" if has_body else None),
            _hostile_body(operation), _hostile_query(operation), st.fixed_dictionaries(paths))
        _fuzz(operation, server, strategy, HOSTILE_EXAMPLES)


def _nested(depth: int, shape: str) -> bytes:
    if shape == "lists":
        return b"[" * depth + b"]" * depth
    if shape == "objects":
        return b'{"a":' * depth + b"0" + b"}" * depth
    return b'[{"a":' * (depth // 2) + b"0" + b"}]" * (depth // 2)


def _wide(width: int, shape: str) -> bytes:
    if shape == "lists":
        return b"[" + b",".join([b'"x"'] * width) + b"]"
    return b"{" + b",".join(b'"k%d":[]' % i for i in range(width)) + b"}"


@settings(max_examples=HOSTILE_EXAMPLES * 4, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_deep_and_wide_json_in_any_body_field_gets_a_documented_4xx(fuzzed_server, operations, data) -> None:
    server, _ = fuzzed_server
    posting = [op for op in operations if _json_schema(op) is not None or op.path == "/import"]
    operation = data.draw(st.sampled_from(posting))
    shape = data.draw(st.sampled_from(["lists", "objects", "mixed"]))
    value = data.draw(st.one_of(st.integers(1, 150_000).map(lambda d: _nested(d, shape)),
                                st.integers(1, 200_000).map(lambda w: _wide(w, shape))))
    field = data.draw(st.sampled_from(["text", "message", "query", "session_id", "proposal_id", "approved",
                                       "duration", "job", "tenant"]))
    body = data.draw(st.sampled_from([value, b'{"%s": ' % field.encode() + value + b"}"]))
    response = requests.post(server.url + operation.path, data=body, timeout=120,
                             headers={**AUTH, "Content-Type": "application/json"})
    TALLY["cases"] += 1
    TALLY["5xx"] += response.status_code >= 500
    documented = {int(s) for s in operation.definition.raw["responses"] if s.isdigit()}
    assert response.status_code < 500 and response.status_code in documented, (operation.path, response.status_code)


def test_after_fuzzing_every_store_opens_and_passes_integrity_check(fuzzed_server) -> None:
    server, store = fuzzed_server
    assert server.call("GET", "/stats", TENANT_KEYS["alice"]).status_code == 200
    assert server.process.poll() is None and "Traceback" not in server.log()
    files = sorted(store.glob("*/engram.sqlite"))
    assert files, "the fuzzed tenant has a store"
    for path in files:
        with sqlite3.connect(path) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    from engram_core import open_engine

    with open_engine(files[0], embedder="hashing") as engine:
        assert engine.stats()["schema_version"] >= 1
        assert engine.memories(limit=500)
    print(f"\nfuzz: {TALLY['cases']} cases, {TALLY['5xx']} answered 5xx "
          f"({EXAMPLES_PER_OPERATION} examples per operation and mode)")
    assert TALLY["cases"] > 0 and TALLY["5xx"] == 0
    json.dumps(dict(TALLY))
