"""The timer path: a timer event fans out one async InvokeFunction per due tenant, once per trigger time.

The real ``alibabacloud-fc20230330`` client talks plain HTTP to a small FC-API
stand-in on loopback that records every request; the recorded jobs are then
delivered to /invoke the way FC would deliver them.
"""

from __future__ import annotations

import json
import threading
import time
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from functions_support import ADMIN_KEY, TENANT_KEYS, load_event, running_server

FUNCTION = "engram-jobs"
ADMIN = {"Authorization": f"Bearer {ADMIN_KEY}"}
DUPLICATE = json.dumps({"Code": "TaskAlreadyExist", "Message": "the async task id already exists"}).encode()


class FcApiRecorder:
    """Answers InvokeFunction like FC (202 for async, 409 for a task id it has already) and keeps what it was sent."""

    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.task_ids: set[str] = set()
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                headers = {k.lower(): v for k, v in self.headers.items()}
                task = headers.get("x-fc-async-task-id", "")
                duplicate = task in recorder.task_ids
                recorder.task_ids.add(task)
                if not duplicate:
                    recorder.requests.append({"path": self.path, "headers": headers, "body": body})
                self.send_response(409 if duplicate else 202)
                self.send_header("x-fc-request-id", f"fc-{len(recorder.requests)}")
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(DUPLICATE) if duplicate else 0))
                self.end_headers()
                if duplicate:
                    self.wfile.write(DUPLICATE)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.endpoint = f"127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> FcApiRecorder:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def fc_api():
    with FcApiRecorder() as recorder:
        yield recorder


def _timer(trigger: datetime, **payload: str) -> bytes:
    event = load_event("timer.json")["event"]
    payload = {**json.loads(event["payload"]), **payload}
    return json.dumps({**event, "triggerTime": trigger.isoformat(), "payload": json.dumps(payload)}).encode()


def _invoke(server, body: bytes, **headers: str):
    return server.call("POST", "/invoke", headers={"content-type": "application/octet-stream", **headers}, data=body)


def _touch_tenants(server, *tenants: str) -> None:
    for tenant in tenants:
        assert server.as_tenant(tenant)("POST", "/memories", json={"text": f"{tenant} was here", "importance": 0.6}).ok


def test_timer_fans_out_one_async_invocation_per_due_tenant_and_a_repeat_fans_out_nothing(tmp_path, fc_api) -> None:
    fc_env = {"ENGRAM_FANOUT_MODE": "fc", "ENGRAM_FC_ENDPOINT": fc_api.endpoint, "ENGRAM_FC_PROTOCOL": "http",
              "ENGRAM_PLATFORM": "fc",  # the platform's x-fc-* headers are trusted on Function Compute only
              "ENGRAM_FC_SLEEP_FUNCTION": FUNCTION, "FC_REGION": "ap-southeast-1",
              "ALIBABA_CLOUD_ACCESS_KEY_ID": "STS.test", "ALIBABA_CLOUD_ACCESS_KEY_SECRET": "test-secret",
              "ALIBABA_CLOUD_SECURITY_TOKEN": "test-token"}
    with running_server(tmp_path / "tenants", **fc_env) as server:
        _touch_tenants(server, "alice", "bob", "carol")
        assert server.as_tenant("carol")("POST", "/sleep").ok  # carol slept just now: not due
        trigger = datetime.now(timezone.utc).replace(microsecond=0) + timedelta(hours=1)

        first = _invoke(server, _timer(trigger), **ADMIN, **{"x-fc-request-id": "timer-1"})  # credentials: env
        assert first.status_code == 200, first.text
        assert first.headers["x-fc-status"] == "200"
        # The fan-out reads no store: carol is on the schedule, and her job finds she slept meanwhile.
        assert sorted(first.json()["dispatched"]) == ["alice", "bob", "carol"]
        assert len(fc_api.requests) == 3
        for sent in fc_api.requests:
            assert sent["path"] == f"/2023-03-30/functions/{FUNCTION}/invocations"
            assert sent["headers"]["x-fc-invocation-type"] == "Async"
            assert sent["headers"]["authorization"].startswith("ACS3-HMAC-SHA256 Credential=STS.test")
            assert len(sent["body"]) < 128 * 1024 and ADMIN_KEY.encode() not in sent["body"]
        jobs = [json.loads(sent["body"]) for sent in fc_api.requests]
        assert sorted(j["tenant"] for j in jobs) == ["alice", "bob", "carol"]
        assert {sent["headers"]["x-fc-async-task-id"] for sent in fc_api.requests} == {
            f"engram-sleep-{t}-{int(trigger.timestamp())}" for t in ("alice", "bob", "carol")}

        repeated = _invoke(server, _timer(trigger), **ADMIN, **{"x-fc-request-id": "timer-1-retry"})
        assert repeated.status_code == 200
        assert repeated.json()["dispatched"] == [] and repeated.json()["failed"] == []
        assert len(fc_api.requests) == 3  # nothing new: every dispatched tenant is next due a period later

        for sent in fc_api.requests:  # FC delivers each async job to /invoke
            done = _invoke(server, sent["body"]).json()
            if json.loads(sent["body"])["tenant"] == "carol":
                assert done["skipped"] is True and done["reason"] == "not_due", done
            else:
                assert done["skipped"] is False, done
                again = _invoke(server, sent["body"]).json()  # a retried job does no double work
                assert again["skipped"] is True and again["reason"] == "done"
        events = server.as_tenant("alice")("GET", "/events").json()["items"]
        assert any(e["kind"] == "consolidated" and e["detail"].get("scope") == "sleep" for e in events)

        fc_headers = load_event("timer.json")["headers"]  # FC's own headers carry the role's STS credentials
        assert _invoke(server, _timer(trigger + timedelta(hours=12)), **ADMIN).json()["dispatched"] == []
        later = _invoke(server, _timer(trigger + timedelta(hours=25)), **ADMIN, **fc_headers)
        assert sorted(later.json()["dispatched"]) == ["alice", "bob", "carol"]
        assert len(fc_api.requests) == 6
        assert all("Credential=STS.fixture-key-id" in sent["headers"]["authorization"] for sent in fc_api.requests[3:])
        assert fc_api.requests[-1]["headers"]["x-acs-security-token"] == "fixture-token"


def test_fanout_is_bounded_per_run(tmp_path, fc_api) -> None:
    fc_env = {"ENGRAM_FANOUT_MODE": "fc", "ENGRAM_FC_ENDPOINT": fc_api.endpoint, "ENGRAM_FC_PROTOCOL": "http",
              "ENGRAM_FC_SLEEP_FUNCTION": FUNCTION, "ALIBABA_CLOUD_ACCESS_KEY_ID": "AK",
              "ALIBABA_CLOUD_ACCESS_KEY_SECRET": "SK", "ENGRAM_FANOUT_MAX_PER_RUN": "2"}
    with running_server(tmp_path / "tenants", **fc_env) as server:
        _touch_tenants(server, "alice", "bob", "carol")
        trigger = datetime.now(timezone.utc) + timedelta(hours=1)
        first = _invoke(server, _timer(trigger), **ADMIN).json()
        assert len(first["dispatched"]) == 2 and first["truncated"] is True
        rest = _invoke(server, _timer(trigger), **ADMIN).json()  # the retry picks up the tenant left over
        assert len(rest["dispatched"]) == 1 and rest["truncated"] is False
        assert len(fc_api.requests) == 3


def test_invoke_needs_the_admin_credential_or_a_valid_job_signature(tmp_path) -> None:
    with running_server(tmp_path / "tenants") as server:
        _touch_tenants(server, "alice")
        trigger = datetime(2026, 1, 6, 3, tzinfo=timezone.utc)
        job = load_event("sleep_job.json")["event"]
        tenant_key = f"Bearer {TENANT_KEYS['alice']}"
        for response in (_invoke(server, _timer(trigger)),
                         _invoke(server, _timer(trigger), Authorization=tenant_key),
                         _invoke(server, json.dumps(job).encode()),
                         _invoke(server, json.dumps({**job, "signature": "0" * 64}).encode())):
            assert response.status_code == 401 and response.headers["x-fc-status"] == "404"
            assert response.json()["error"]["code"] == "unauthorized"
        by_header = _invoke(server, json.dumps(job).encode(), Authorization=f"Bearer {ADMIN_KEY}")
        assert by_header.status_code == 200 and by_header.json()["tenant"] == "alice"
        assert _invoke(server, b"not json", Authorization=f"Bearer {ADMIN_KEY}").status_code == 422
        unknown = _invoke(server, json.dumps({**job, "tenant": "zed"}).encode(), Authorization=f"Bearer {ADMIN_KEY}")
        assert unknown.status_code == 404


def test_local_mode_runs_the_jobs_on_the_local_server(tmp_path) -> None:
    with running_server(tmp_path / "tenants") as server:
        _touch_tenants(server, "alice", "bob")
        trigger = datetime.now(timezone.utc) + timedelta(hours=1)
        report = _invoke(server, _timer(trigger), **ADMIN).json()
        assert sorted(report["dispatched"]) == ["alice", "bob"]
        deadline = time.monotonic() + 30
        pending = {"alice", "bob"}
        while pending and time.monotonic() < deadline:
            for tenant in list(pending):
                events = server.as_tenant(tenant)("GET", "/events").json()["items"]
                if any(e["kind"] == "consolidated" and e["detail"].get("scope") == "sleep" for e in events):
                    pending.discard(tenant)
            time.sleep(0.1)
        assert not pending, server.log()
        assert _invoke(server, _timer(trigger), **ADMIN).json()["dispatched"] == []


def test_a_duplicate_task_id_is_fcs_dedup_not_a_failure(tmp_path, fc_api) -> None:
    fc_env = {"ENGRAM_FANOUT_MODE": "fc", "ENGRAM_FC_ENDPOINT": fc_api.endpoint, "ENGRAM_FC_PROTOCOL": "http",
              "ENGRAM_FC_SLEEP_FUNCTION": FUNCTION, "ALIBABA_CLOUD_ACCESS_KEY_ID": "AK",
              "ALIBABA_CLOUD_ACCESS_KEY_SECRET": "SK"}
    with running_server(tmp_path / "tenants", **fc_env) as server:
        _touch_tenants(server, "alice")
        trigger = datetime.now(timezone.utc).replace(microsecond=0) + timedelta(hours=1)
        fc_api.task_ids.add(f"engram-sleep-alice-{int(trigger.timestamp())}")  # queued by an earlier attempt
        report = _invoke(server, _timer(trigger), **ADMIN)
        assert report.status_code == 200 and report.headers["x-fc-status"] == "200"  # FC does not retry the timer
        assert report.json()["failed"] == [] and report.json()["already_dispatched"] == ["alice"]
        assert _invoke(server, _timer(trigger + timedelta(hours=1)), **ADMIN).json()["dispatched"] == []  # moved on


def test_on_fc_the_jobs_function_trusts_the_platform_and_nothing_else_does(tmp_path, fc_api) -> None:
    fc_env = {"ENGRAM_PLATFORM": "fc", "ENGRAM_FANOUT_MODE": "fc", "ENGRAM_FC_ENDPOINT": fc_api.endpoint,
              "ENGRAM_FC_PROTOCOL": "http", "ENGRAM_FC_SLEEP_FUNCTION": FUNCTION}
    trigger = datetime.now(timezone.utc).replace(microsecond=0) + timedelta(hours=1)
    fc_headers = load_event("timer.json")["headers"]
    with running_server(tmp_path / "all", **fc_env) as server:  # every route: reachable over HTTP
        _touch_tenants(server, "alice")
        assert _invoke(server, _timer(trigger), **fc_headers).status_code == 401
    with running_server(tmp_path / "all", "--function", "jobs", **fc_env) as jobs:
        report = _invoke(jobs, _timer(trigger), **fc_headers)  # what FC's timer delivers: no key anywhere
        assert report.status_code == 200 and report.json()["dispatched"] == ["alice"], report.text
        with_key = _invoke(jobs, _timer(trigger + timedelta(days=2), admin_key=ADMIN_KEY), **fc_headers)
        assert with_key.status_code == 422 and "never carries a key" in with_key.json()["error"]["message"]
        forged = {**json.loads(fc_api.requests[0]["body"]), "signature": "0" * 64}
        assert _invoke(jobs, json.dumps(forged).encode(), **fc_headers).status_code == 401  # jobs stay signed
        assert _invoke(jobs, fc_api.requests[0]["body"], **fc_headers).json()["skipped"] is False
