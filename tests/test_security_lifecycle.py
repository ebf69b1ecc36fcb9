"""Function Compute's lifecycle hooks under load, on a real server process (a crash here is a dead process).

``GET /pre-stop`` closes warm stores while other requests run: it must wait for
them, never close a connection in use, lose no acknowledged write, and off
Function Compute it is not a public switch.
"""

from __future__ import annotations

import threading

import pytest
import requests
from functions_support import ADMIN_KEY, TENANT_KEYS, running_server

WRITES_PER_LOOP = 100
PRE_STOPS = 100


def _writer(url: str, tenant: str, loop: int, acknowledged: list[str], failures: list[str]) -> None:
    with requests.Session() as session:
        for i in range(WRITES_PER_LOOP):
            text = f"{tenant} loop {loop} note {i} about the harbour"
            try:
                response = session.post(url + "/memories", json={"text": text, "importance": 0.5}, timeout=60,
                                        headers={"Authorization": f"Bearer {TENANT_KEYS[tenant]}"})
            except requests.RequestException as exc:
                failures.append(f"{text}: {type(exc).__name__}")
                return
            if response.status_code == 201:
                acknowledged.append(text)
            else:
                failures.append(f"{text}: {response.status_code} {response.text[:200]}")


def _pre_stops(url: str, key: str | None, statuses: list[int]) -> None:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    with requests.Session() as session:
        for _ in range(PRE_STOPS):
            try:
                statuses.append(session.get(url + "/pre-stop", headers=headers, timeout=60).status_code)
            except requests.RequestException:
                statuses.append(-1)
                return


@pytest.mark.parametrize(("platform", "key"), [("local", ADMIN_KEY), ("fc", None)],
                         ids=["local-with-admin-key", "fc-as-the-platform-calls-it"])
def test_pre_stop_during_two_writer_loops_drains_and_never_crashes(tmp_path, platform: str, key) -> None:
    with running_server(tmp_path / "tenants", ENGRAM_PLATFORM=platform, ENGRAM_RATE_BURST="100000") as server:
        acknowledged: list[str] = []
        failures: list[str] = []
        statuses: list[int] = []
        threads = [threading.Thread(target=_writer, args=(server.url, tenant, loop, acknowledged, failures))
                   for loop, tenant in enumerate(("alice", "alice", "bob"))]
        threads.append(threading.Thread(target=_pre_stops, args=(server.url, key, statuses)))
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=300)
        assert server.process.poll() is None, f"the server died (status {server.process.returncode})"
        assert failures == []
        assert statuses == [200] * PRE_STOPS
        for tenant in ("alice", "bob"):
            exported = server.call("GET", "/export", TENANT_KEYS[tenant]).text
            missing = [t for t in acknowledged if t.startswith(tenant) and t not in exported]
            assert missing == [], f"{len(missing)} acknowledged writes of {tenant} are gone"
        assert "Traceback" not in server.log() and "Segmentation" not in server.log()


def test_off_function_compute_the_hooks_need_the_admin_credential(tmp_path) -> None:
    with running_server(tmp_path / "tenants") as server:
        for method, path in (("GET", "/pre-stop"), ("POST", "/initialize")):
            for key in (None, TENANT_KEYS["alice"], "egk_not-a-key"):
                refused = server.call(method, path, key)
                assert refused.status_code == 401, (path, key, refused.text)
                assert refused.json()["error"]["code"] == "unauthorized"
            assert server.call(method, path, ADMIN_KEY).json()["status"] == "ok"
        assert server.call("GET", "/healthz").status_code == 200  # liveness stays public


def test_on_function_compute_the_platform_calls_the_hooks_without_a_key(tmp_path) -> None:
    with running_server(tmp_path / "tenants", ENGRAM_PLATFORM="fc") as server:
        assert server.call("POST", "/initialize", headers={"x-fc-request-id": "init-1"}).json()["status"] == "ok"
        assert server.call("GET", "/pre-stop", headers={"x-fc-request-id": "stop-1"}).json()["status"] == "ok"
        assert server.call("GET", "/stats", TENANT_KEYS["alice"]).status_code == 200
