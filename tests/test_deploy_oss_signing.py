"""The environment s.yaml gives the functions makes every OSS request signature V4, end to end.

The real server process (the container's entry point) runs with exactly that environment but for
the endpoint and the dialect: it talks to moto (S3's create-only header) behind a front that
refuses V1 with 403, as OSS does for new buckets and accounts, and forwards V4 requests (moto
itself cannot read an OSS V4 credential).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
import requests
from deploy_support import DEPLOY_ENV, ROOT, functions
from functions_support import TENANT_KEYS, keys_json
from object_servers import moto_front

from engram_bench.oss_front import Scope, create_bucket
from engram_bench.processes import free_port, stop
from engram_core.snapshots.settings import load_oss_settings, region_of_endpoint

STS = {"ALIBABA_CLOUD_ACCESS_KEY_ID": "STS.deployed-role", "ALIBABA_CLOUD_ACCESS_KEY_SECRET": "role-secret",
       "ALIBABA_CLOUD_SECURITY_TOKEN": "role-token"}  # what FC puts in the environment of a function with a role


def _function_env(endpoint: str, tmp_path, **changes: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ENGRAM_", "ALIBABA_CLOUD_", "QWEN_", "FC_"))}
    env.update(functions({**DEPLOY_ENV, "QWEN_CLOUD_API_KEY": ""})["engram-memories"]["environmentVariables"])
    env.update(STS)
    env.update({"ENGRAM_OSS_ENDPOINT": endpoint, "ENGRAM_OSS_DIALECT": "s3",  # moto speaks S3's create-only
                "ENGRAM_SNAPSHOT_CACHE_DIR": str(tmp_path / "cache"), "HOME": str(tmp_path),
                "ENGRAM_EMBEDDER": "hashing"})
    for name, value in changes.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


def _start(env: dict[str, str], port: int) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "functions", "--host", "127.0.0.1", "--port", str(port)],
                            env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


@pytest.fixture(scope="module")
def front():
    with moto_front() as running:
        create_bucket(running.endpoint, DEPLOY_ENV["ENGRAM_BUCKET"], "admin", "admin-secret")
        running.reset_counts()
        yield running


def test_the_deployed_environment_signs_v4_for_the_buckets_region(front, tmp_path) -> None:
    env = _function_env(front.endpoint, tmp_path)
    keys = load_oss_settings(endpoint=front.endpoint, access_key_id="admin", access_key_secret="admin-secret",
                             region="ap-southeast-1")
    from engram_core.snapshots.oss import OssStore

    OssStore.from_settings(keys, DEPLOY_ENV["ENGRAM_BUCKET"]).put(
        "engram-config/api-keys.json", keys_json({"alice": TENANT_KEYS["alice"]}).encode(), {})
    front.reset_counts()
    front.scopes.clear()
    port = free_port()
    process = _start(env, port)
    try:
        url, deadline = f"http://127.0.0.1:{port}", time.monotonic() + 120
        while True:
            assert process.poll() is None, process.stdout.read()
            try:
                if requests.get(url + "/healthz", timeout=1).ok:
                    break
            except (requests.ConnectionError, requests.Timeout):  # not listening yet, or still busy starting
                assert time.monotonic() < deadline
                time.sleep(0.05)
        alice = {"Authorization": f"Bearer {TENANT_KEYS['alice']}"}
        stored = requests.post(url + "/memories", json={"text": "Alice keeps bees", "importance": 0.7},
                               headers=alice, timeout=30)
        assert stored.status_code == 201, stored.text
        recalled = requests.post(url + "/recall", json={"query": "bees", "budget_tokens": 128}, headers=alice,
                                 timeout=30)
        assert recalled.status_code == 200 and "bees" in recalled.text
    finally:
        stop(process)
    assert front.refused == 0  # not one V1 (or unsigned) request
    assert front.requests["GET"] >= 1 and front.requests["PUT"] >= 1  # the keys file, the generation, the index
    region = region_of_endpoint(DEPLOY_ENV["ENGRAM_OSS_ENDPOINT"])  # Terraform's intranet endpoint names it
    assert front.scopes == {Scope("STS.deployed-role", region)}


def test_without_a_region_the_function_stops_at_start_with_a_clear_error(front, tmp_path) -> None:
    env = _function_env(front.endpoint, tmp_path, ENGRAM_OSS_REGION=None)  # a loopback endpoint names none
    process = _start(env, free_port())
    output, _ = process.communicate(timeout=60)
    assert process.returncode != 0
    assert "ENGRAM_OSS_REGION" in output and "Traceback" not in output
    assert front.refused == 0


def test_a_v1_signature_is_refused_as_oss_refuses_it(front) -> None:
    import oss2

    before = front.refused
    v1 = oss2.Bucket(oss2.Auth("admin", "admin-secret"), front.endpoint, DEPLOY_ENV["ENGRAM_BUCKET"])
    with pytest.raises(oss2.exceptions.AccessDenied):
        v1.get_object("engram-config/api-keys.json")
    assert front.refused == before + 1
