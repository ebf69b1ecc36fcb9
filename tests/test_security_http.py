"""The HTTP edge under hostile input: deep JSON, chunked bodies over the limit, authentication before parsing,
and a request id on every response, 500s included (in-process: the real app on the ASGI interface)."""

from __future__ import annotations

import logging

import pytest
from functions_support import ADMIN_KEY
from security_support import api_client, bearer

from functions.middleware import RequestIdFilter

LIMIT = 4096


class _Records(logging.Handler):
    """The engram.http log lines with the request id the service's filter gives them."""

    def __init__(self) -> None:
        super().__init__()
        self.addFilter(RequestIdFilter())
        self.lines: list[tuple[str, str, bool]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append((record.request_id, record.getMessage(), record.exc_info is not None))


@pytest.fixture
def records():
    handler, logger = _Records(), logging.getLogger("engram.http")
    level = logger.level
    logger.setLevel(logging.INFO)  # setLevel, not the attribute: it clears the cached level checks
    logger.addHandler(handler)
    yield handler
    logger.removeHandler(handler)
    logger.setLevel(level)


@pytest.fixture
def client(tmp_path):
    with api_client(str(tmp_path / "tenants"), max_body_bytes=LIMIT) as running:
        yield running


def _chunks(total: int, size: int = 512):
    yield b'{"text": "'
    for _ in range(total // size):
        yield b"q" * size
    yield b'"}'


def test_an_unexpected_error_answers_500_with_its_request_id_in_the_header_and_the_log(client, records) -> None:
    def boom() -> None:
        raise RuntimeError("an internal fault")

    client.app.add_api_route("/boom-for-the-test", boom)
    assert client.post("/memories", content=b"x" * (LIMIT + 1), headers=bearer("alice")).status_code == 413
    failed = client.get("/boom-for-the-test", headers={"x-fc-request-id": "req-500-a"})
    assert failed.status_code == 500
    assert failed.json()["error"]["code"] == "internal_error" and "an internal fault" not in failed.text
    assert failed.headers["x-request-id"] == "req-500-a"
    unexpected = [line for line in records.lines if line[1].startswith("unexpected RuntimeError")]
    assert [line[0] for line in unexpected] == ["req-500-a"]
    assert [line[0] for line in records.lines if "/boom-for-the-test 500" in line[1]] == ["req-500-a"]
    anonymous = client.get("/boom-for-the-test")
    assert anonymous.status_code == 500 and len(anonymous.headers["x-request-id"]) == 32
    assert sum(1 for line in records.lines if line[2]) == 2  # one traceback per failure, logged once


def test_every_answer_carries_a_request_id(client) -> None:
    for method, path, kwargs in [("GET", "/healthz", {}), ("GET", "/stats", {}), ("GET", "/nowhere", {}),
                                 ("POST", "/memories", {"content": b"x" * (LIMIT + 1)}),
                                 ("POST", "/recall", {"content": b"{", "headers": bearer("alice")})]:
        response = client.request(method, path, **kwargs)
        assert response.status_code >= 200 and response.headers.get("x-request-id"), (path, response.status_code)


@pytest.mark.parametrize("path", ["/memories", "/chat", "/recall", "/import", "/invoke"])
def test_a_chunked_body_over_the_limit_is_413(client, path: str) -> None:
    headers = {**bearer("alice" if path != "/invoke" else ADMIN_KEY), "content-type": "application/json"}
    response = client.post(path, content=_chunks(LIMIT * 2), headers=headers)
    assert response.status_code == 413, response.text
    assert response.json()["error"]["code"] == "body_too_large"


def test_deep_json_on_import_is_a_422_naming_the_line(tmp_path, records) -> None:
    with api_client(str(tmp_path / "tenants")) as client:
        deep = b"[" * 100_000 + b"]" * 100_000 + b"\n"
        response = client.post("/import", content=deep, headers={**bearer("alice"),
                                                                  "content-type": "application/x-ndjson"})
        assert response.status_code == 422, response.text
        assert response.json()["error"]["field"] == "line 1"
        header = b'{"type":"header","format":"engram-export","version":1}\n'
        response = client.post("/import", content=header + deep, headers=bearer("alice"))
        assert response.status_code == 422 and response.json()["error"]["field"] == "line 2"
        assert not any(line[2] for line in records.lines)


def test_deep_json_on_invoke_is_refused_without_a_traceback(tmp_path, records) -> None:
    with api_client(str(tmp_path / "tenants")) as client:
        big = b"[" * 60_000 + b"]" * 60_000  # 120 KB: never parsed without the admin credential
        refused = client.post("/invoke", content=big)
        assert refused.status_code == 401 and refused.json()["error"]["code"] == "unauthorized"
        small = b"[" * 5_000 + b"]" * 5_000  # small enough to be a signed job: parsed, refused as a client error
        assert client.post("/invoke", content=small).status_code == 422
        assert client.post("/invoke", content=big, headers=bearer(ADMIN_KEY)).status_code == 422
        assert not any(line[2] for line in records.lines)


@pytest.mark.parametrize("body", [b"[" * 50_000, b"{not json", b'{"text": "' + b"q" * 3000 + b'"}'])
def test_unauthenticated_bodies_are_refused_before_they_are_parsed(client, body: bytes) -> None:
    for path in ("/memories", "/chat", "/recall", "/consolidate", "/dream/apply", "/import", "/clock/advance"):
        for headers in ({}, {"Authorization": "Bearer egk_wrong"}, bearer(ADMIN_KEY)):
            response = client.post(path, content=body, headers={**headers, "content-type": "application/json"})
            assert response.status_code == 401, (path, headers, response.status_code)
            assert response.json()["error"]["code"] == "unauthorized"
            assert response.headers["www-authenticate"] == "Bearer"
