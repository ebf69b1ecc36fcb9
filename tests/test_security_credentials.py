"""Request-supplied storage credentials (x-fc-* headers) are honoured only where the platform supplies them,
only after authentication, and only for that one request: seen through a logging proxy in front of moto."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone

import pytest
from authlog_proxy import AuthLogProxy
from object_servers import moto_server
from functions_support import ADMIN_KEY
from security_support import api_client, bearer
from snapshot_support import KEY_ID, KEY_SECRET, LOOPBACK_REGION, new_bucket

# moto reads a SigV4 scope out of any key id with exactly four '/': these carry more (see snapshot_support).
ATTACKER = "attacker/chosen/key/id/no/aws/scope"
BOB_STS = "bob/request/sts/key/id/no/aws/scope"
ALICE_STS = "alice/request/sts/key/id/no/aws/scope"


def fc_headers(key_id: str) -> dict[str, str]:
    return {"x-fc-access-key-id": key_id, "x-fc-access-key-secret": "secret-" + key_id[:6],
            "x-fc-security-token": "token-" + key_id[:6]}


@pytest.fixture(scope="module")
def storage(tmp_path_factory):
    with moto_server() as endpoint:
        proxy = AuthLogProxy(endpoint).start()
        try:
            yield proxy, new_bucket(endpoint), tmp_path_factory.mktemp("credentials")
        finally:
            proxy.stop()


@pytest.fixture
def client_for(storage, monkeypatch, tmp_path):
    proxy, bucket, _ = storage
    monkeypatch.setenv("ENGRAM_OSS_ENDPOINT", proxy.endpoint)
    monkeypatch.setenv("ENGRAM_OSS_DIALECT", "s3")
    monkeypatch.setenv("ENGRAM_OSS_REGION", LOOPBACK_REGION)
    monkeypatch.setenv("ENGRAM_OSS_ACCESS_KEY_ID", KEY_ID)
    monkeypatch.setenv("ENGRAM_OSS_ACCESS_KEY_SECRET", KEY_SECRET)
    monkeypatch.setenv("ENGRAM_SNAPSHOT_CACHE_DIR", str(tmp_path / "cache"))
    proxy.clear()
    return lambda platform: api_client(f"oss://{bucket}/{tmp_path.name}", platform=platform, rate_burst=1000)


def _remember(client, tenant: str, text: str, headers: dict | None = None) -> None:
    response = client.post("/memories", json={"text": text, "importance": 0.6},
                           headers={**bearer(tenant), **(headers or {})})
    assert response.status_code == 201, response.text


def test_off_function_compute_request_credentials_are_never_used(storage, client_for) -> None:
    proxy = storage[0]
    with client_for("local") as client:
        _remember(client, "alice", "Alice keeps bees.")
        _remember(client, "bob", "Bob sails on Sundays.", fc_headers(ATTACKER))
        refused = client.post("/invoke", headers=fc_headers(ATTACKER),
                              json={"job": "sleep", "tenant": "alice", "trigger_time": "2026-12-01T00:00:00Z"})
        assert refused.status_code == 401
        _remember(client, "alice", "Alice keeps two hives now.")
        assert client.get("/memories", headers=bearer("alice")).status_code == 200
    assert proxy.seen(), "the proxy saw the storage requests"
    assert {s.key_id for s in proxy.seen()} == {KEY_ID}


def test_an_unauthenticated_request_never_changes_the_credentials(storage, client_for) -> None:
    proxy = storage[0]
    with client_for("fc") as client:
        _remember(client, "alice", "Alice keeps bees.")
        job = {"job": "sleep", "tenant": "alice", "trigger_time": "2026-12-01T00:00:00Z"}
        for path, body in (("/invoke", job), ("/memories", {"text": "x"}), ("/chat", {"message": "x"})):
            assert client.post(path, headers=fc_headers(ATTACKER), json=body).status_code == 401
        _remember(client, "alice", "Alice keeps two hives now.")
    assert ATTACKER not in {s.key_id for s in proxy.seen()}
    assert proxy.key_ids_for("alice") == {KEY_ID}


def test_on_function_compute_credentials_are_scoped_to_their_own_request(storage, client_for) -> None:
    proxy = storage[0]
    with client_for("fc") as client:
        _remember(client, "alice", "Alice keeps bees.")
        _remember(client, "bob", "Bob sails on Sundays.", fc_headers(BOB_STS))
        with ThreadPoolExecutor(4) as pool:  # bob's and alice's requests interleave
            jobs = [pool.submit(_remember, client, "bob", f"Bob note {i}.", fc_headers(BOB_STS)) for i in range(6)]
            jobs += [pool.submit(_remember, client, "alice", f"Alice note {i}.") for i in range(6)]
            for job in jobs:
                job.result()
        assert client.get("/memories", headers=bearer("alice")).status_code == 200
        _remember(client, "alice", "Alice with the platform's credentials.", fc_headers(ALICE_STS))
    assert proxy.key_ids_for("bob") == {BOB_STS}
    assert proxy.key_ids_for("alice") == {KEY_ID, ALICE_STS}
    bob_tokens = {s.security_token for s in proxy.seen() if "/bob/" in s.target}
    assert bob_tokens == {"token-bob/re"}


def test_off_function_compute_the_fan_out_never_signs_with_request_credentials(tmp_path, monkeypatch) -> None:
    for name in ("ALIBABA_CLOUD_ACCESS_KEY_ID", "ALIBABA_CLOUD_ACCESS_KEY_SECRET", "ALIBABA_CLOUD_SECURITY_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    soon = datetime.now(timezone.utc) + timedelta(hours=2)  # a new tenant is due from the next hour on
    timer = {"triggerTime": soon.isoformat(), "triggerName": "hourly"}
    fanout = {"fanout_mode": "fc", "fc_endpoint": "127.0.0.1:9", "fc_protocol": "http", "fc_sleep_function": "f"}
    with api_client(str(tmp_path / "tenants"), platform="local", **fanout) as client:
        _remember(client, "alice", "Alice keeps bees.")
        refused = client.post("/invoke", json=timer, headers={**bearer(ADMIN_KEY), **fc_headers(ATTACKER)})
        assert refused.status_code == 500 and refused.json()["error"]["code"] == "configuration_error"
        assert "credentials" in refused.json()["error"]["message"]  # the headers' were not taken
    with api_client(str(tmp_path / "tenants"), platform="fc", **fanout) as client:
        tried = client.post("/invoke", json=timer, headers={**bearer(ADMIN_KEY), **fc_headers(BOB_STS)})
        assert tried.status_code == 200 and tried.json()["failed"] == ["alice"]  # signed with them; nobody listens
