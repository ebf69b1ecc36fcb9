"""The board's server side: the page and its files from the package, and the tenant clock over HTTP."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

import pytest
from functions_support import in_process_server

from engram_core.core.errors import ValidationError
from engram_core.core.timeutil import parse_duration

SVG_NAMESPACE = "http://www.w3.org/2000/svg"  # an identifier in the DOM API, never fetched
WEEK_HOURS = 7 * 24


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with in_process_server(tmp_path_factory.mktemp("board-http") / "tenants") as running:
        yield running


def _error(response) -> dict:
    body = response.json()
    assert set(body) == {"error"} and "Traceback" not in response.text
    return body["error"]


def _offset(server, tenant: str) -> float:
    response = server.as_tenant(tenant)("GET", "/clock")
    assert response.status_code == 200, response.text
    return response.json()["offset_hours"]


def _assets(server) -> dict[str, str]:
    """The page and every file it loads, following module imports."""
    page = server.call("GET", "/")
    found, queue = {"/": page.text}, re.findall(r'(?:src|href)="(/board/[^"]+)"', page.text)
    while queue:
        path = queue.pop()
        if path in found:
            continue
        response = server.call("GET", path)
        assert response.status_code == 200, (path, response.text)
        found[path] = response.text
        queue += ["/board/" + name for name in re.findall(r'from "\./([^"]+)"', response.text)]
    return found


def test_the_page_is_served_with_a_strict_policy_and_no_outside_reference(server) -> None:
    page = server.call("GET", "/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    policy = page.headers["content-security-policy"]
    assert "default-src 'none'" in policy and "connect-src 'self'" in policy and "script-src 'self'" in policy
    assets = _assets(server)
    assert {"/board/board.css", "/board/board.js", "/board/api.js", "/board/feed.js"} <= set(assets)
    for path, text in assets.items():
        outside = re.findall(r"(?:https?:)?//[\w.-]+\.\w+", text.replace(SVG_NAMESPACE, ""))
        assert outside == [], f"{path} refers to {outside}: the page must work offline"
    assert server.call("GET", "/board/board.js").headers["content-type"].startswith("text/javascript")
    assert server.call("GET", "/board/board.css").headers["content-type"].startswith("text/css")


@pytest.mark.parametrize("path", ["/board/missing.js", "/board/app.py", "/board/..%2Fapp.py", "/board/index.html",
                                  "/board/%2e%2e%2fboard.py"])
def test_nothing_but_the_board_files_is_reachable(server, path: str) -> None:
    response = server.call("GET", path)
    assert response.status_code == 404
    assert _error(response)["code"] == "not_found"


def test_the_clock_needs_a_key(server) -> None:
    assert server.call("GET", "/clock").status_code == 401
    refused = server.call("POST", "/clock/advance", "egk_wrong-key-000000000000", json={"duration": "1d"})
    assert refused.status_code == 401 and _error(refused)["code"] == "unauthorized"


def test_advancing_moves_only_this_tenants_clock_and_is_logged(server) -> None:
    alice = server.as_tenant("alice")
    before = _offset(server, "alice")
    moved = alice("POST", "/clock/advance", json={"duration": "1w"})
    assert moved.status_code == 200, moved.text
    assert moved.json()["offset_hours"] == pytest.approx(before + WEEK_HOURS)
    clock = alice("GET", "/clock").json()
    engine_now = datetime.fromisoformat(clock["now"])
    real_now = datetime.now(timezone.utc)
    assert abs(engine_now - (real_now + timedelta(hours=clock["offset_hours"]))) < timedelta(minutes=1)
    assert clock["decay_floor"] == 0.05 and clock["critical_importance"] == 0.9
    assert _offset(server, "bob") == 0
    logged = [e for e in alice("GET", "/events").json()["items"] if e["kind"] == "clock_advanced"]
    assert logged[-1]["detail"]["seconds"] == WEEK_HOURS * 3600


def test_a_retried_advance_moves_the_clock_once(server) -> None:
    dave = server.as_tenant("dave")
    headers = {"Idempotency-Key": "advance-once-1"}
    first = dave("POST", "/clock/advance", json={"duration": "3w"}, headers=headers)
    again = dave("POST", "/clock/advance", json={"duration": "3w"}, headers=headers)
    assert first.status_code == again.status_code == 200
    assert again.headers.get("Idempotent-Replayed") == "true"
    assert _offset(server, "dave") == pytest.approx(3 * WEEK_HOURS)


@pytest.mark.parametrize(("body", "field"), [
    ({"duration": "0d"}, "duration"), ({"duration": "-1d"}, "duration"), ({"duration": "soon"}, "duration"),
    ({"duration": ""}, "duration"), ({"duration": "9" * 30 + "y"}, "duration"), ({"duration": "101y"}, "duration"),
    ({}, "duration"), ({"duration": "1d", "tenant": "bob"}, "tenant"), ({"duration": 7}, "duration"),
])
def test_a_bad_duration_is_refused_and_changes_nothing(server, body: dict, field: str) -> None:
    before = _offset(server, "carol")
    response = server.as_tenant("carol")("POST", "/clock/advance", json=body)
    assert response.status_code == 422, response.text
    assert _error(response)["field"] == field
    assert _offset(server, "carol") == before


def test_the_offset_is_bounded(server) -> None:
    bob = server.as_tenant("bob")
    assert bob("POST", "/clock/advance", json={"duration": "60y"}).status_code == 200
    refused = bob("POST", "/clock/advance", json={"duration": "60y"})
    assert refused.status_code == 422 and "at most 100 years" in _error(refused)["message"]
    assert _offset(server, "bob") == pytest.approx(60 * 365 * 24)


def test_the_memories_function_alone_serves_the_board_and_its_clock(tmp_path) -> None:
    with in_process_server(tmp_path / "tenants", function="memories") as memories:
        assert memories.call("GET", "/").status_code == 200
        assert memories.as_tenant("alice")("GET", "/clock").status_code == 200
        assert memories.as_tenant("alice")("POST", "/chat", json={"message": "hi"}).status_code == 404
    with in_process_server(tmp_path / "chat-tenants", function="chat") as chat:
        assert chat.call("GET", "/").status_code == 404


def test_durations_past_the_bound_are_a_validation_error() -> None:
    assert parse_duration("3w") == timedelta(weeks=3)
    for text in ("9" * 400 + "y", "101y", "999999999999999d"):
        with pytest.raises(ValidationError) as raised:
            parse_duration(text)
        assert raised.value.field == "duration"


def test_the_engine_clock_stops_at_the_bound(engine) -> None:
    engine.advance_clock(timedelta(days=365 * 99))
    with pytest.raises(ValidationError):
        engine.advance_clock(timedelta(days=365 * 2))
    assert engine.clock_offset() == timedelta(days=365 * 99)
