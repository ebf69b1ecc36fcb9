"""Two server processes ("instances") on one tenant in snapshot storage on moto's S3 server: no turn is lost.

Each instance keeps its own warm cache; every write commits a new generation
create-only, and the loser of a race reloads and re-applies its turn. The module runs twice: with
whole generations and with delta generations.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import pytest
from functions_support import TENANT_KEYS, keys_json, running_server
from object_servers import moto_server
from snapshot_support import KEY_ID, KEY_SECRET, LOOPBACK_REGION, new_bucket, oss_store

TURNS = 200
WORKERS = 4
MAX_TRIES = 20
ERIN = "egk_erin-only-in-the-keys-file-0123"


# Test tenants are tiny: a share this large makes every commit a delta (a full snapshot after every eight).
DELTA_ENV = {"ENGRAM_SNAPSHOT_DELTA_SHARE": "1000", "ENGRAM_SNAPSHOT_DELTA_CHAIN": "8"}
WHOLE_ENV = {"ENGRAM_SNAPSHOT_DELTA_CHAIN": "0"}


@pytest.fixture(scope="module", params=["whole", "deltas"])
def instances(request, tmp_path_factory):
    with moto_server() as endpoint:
        bucket = new_bucket(endpoint)
        env = {"ENGRAM_OSS_ENDPOINT": endpoint, "ENGRAM_OSS_DIALECT": "s3", "ENGRAM_OSS_REGION": LOOPBACK_REGION,
               "ENGRAM_OSS_ACCESS_KEY_ID": KEY_ID,
               "ENGRAM_OSS_ACCESS_KEY_SECRET": KEY_SECRET, "ENGRAM_SNAPSHOT_MAX_ATTEMPTS": "40",
               "ENGRAM_RATE_BURST": "1000",  # this test races commits, not the rate limiter
               **(DELTA_ENV if request.param == "deltas" else WHOLE_ENV)}
        root = tmp_path_factory.mktemp("snapshots")
        store = f"oss://{bucket}/tenants"
        oss_store(endpoint, "s3", bucket, prefix="config").put("api-keys.json", keys_json({"erin": ERIN}).encode(), {})
        instance = lambda name, **more: running_server(  # noqa: E731 - each instance has its own warm cache
            root / name, "--store", store, ENGRAM_SNAPSHOT_CACHE_DIR=str(root / f"cache-{name}"), **env, **more)
        with instance("a") as a, instance("b", ENGRAM_API_KEYS_FILE=f"oss://{bucket}/config/api-keys.json") as b:
            yield a, b, oss_store(endpoint, "s3", bucket, prefix="tenants"), request.param  # either dialect lists


def _turn(server, number: int) -> int:
    """One chat turn, retried on 503 (busy) with the same Idempotency-Key: retries never double a turn."""
    headers = {"Idempotency-Key": f"turn-{number}"}
    for _ in range(MAX_TRIES):
        response = server.call("POST", "/chat", TENANT_KEYS["alice"], headers=headers,
                               json={"message": f"Note number {number}: the code word is w{number}.",
                                     "session_id": "race", "budget_tokens": 200})
        if response.status_code != 503:
            return response.status_code
        assert response.json()["error"]["code"] in ("busy", "store_error") and response.headers["retry-after"]
    return 503


def _generations(objects) -> list[str]:
    return [info.key for info in objects.list("alice/snap/")]


def test_two_instances_serving_one_tenant_lose_no_turn(instances) -> None:
    a, b, bucket, kind = instances
    with ThreadPoolExecutor(WORKERS) as pool:
        statuses = list(pool.map(lambda n: _turn(a if n % 2 else b, n), range(TURNS)))
    assert statuses == [200] * TURNS
    for server in (a, b):
        records = [json.loads(line) for line in server.call("GET", "/export", TENANT_KEYS["alice"]).text.splitlines()]
        said = sorted(r["text"] for r in records if r["type"] == "message" and r["role"] == "user")
        assert said == sorted(f"Note number {n}: the code word is w{n}." for n in range(TURNS))
    assert len(_generations(bucket)) >= 1
    codecs = {bucket.head(key).metadata.get("codec") for key in _generations(bucket)}
    assert codecs == ({"zstd", "zstd-pages"} if kind == "deltas" else {"zstd"})


def test_reads_on_either_instance_write_no_generation(instances) -> None:
    a, b, bucket, _ = instances
    a.call("POST", "/memories", TENANT_KEYS["alice"], json={"text": "Prefers window seats.", "importance": 0.8})
    before = _generations(bucket)
    for server in (a, b):
        for method, path, body in [("POST", "/recall", {"query": "window seats"}), ("GET", "/memories", None),
                                   ("GET", "/beliefs", None), ("GET", "/events", None), ("GET", "/stats", None),
                                   ("GET", "/export", None)]:
            assert server.call(method, path, TENANT_KEYS["alice"], json=body).status_code == 200, path
    recalled = b.call("POST", "/recall", TENANT_KEYS["alice"], json={"query": "window seats"}).json()
    assert any("window" in i["text"] for i in recalled["items"])  # b sees a's write
    assert _generations(bucket) == before


def test_tenants_stay_apart_in_the_bucket(instances) -> None:
    a, b, bucket, _ = instances
    assert b.call("POST", "/memories", TENANT_KEYS["bob"], json={"text": "Bob's own note.", "importance": 0.7}).ok
    assert "Bob's own note" not in a.call("GET", "/export", TENANT_KEYS["alice"]).text
    assert "Bob's own note" in a.call("GET", "/export", TENANT_KEYS["bob"]).text
    keys = [info.key for info in bucket.list("")]
    assert {key.split("/")[0] for key in keys if not key.startswith("_")} == {"alice", "bob"}
    assert {key.rsplit("/", 1)[1] for key in keys if key.startswith("_due/")} == {"alice", "bob"}  # the schedule


def test_a_keys_file_in_the_bucket_adds_tenants(instances) -> None:
    a, b, bucket, _ = instances
    assert b.call("GET", "/stats", ERIN).json()["tenant"] == "erin"  # b reads oss://.../api-keys.json
    assert a.call("GET", "/stats", ERIN).status_code == 401  # a was not given the file
