"""Run the server as a real process on loopback and talk to it over HTTP, or run its app in-process.

The process is ``python -m functions``, the container's entry point (``engram serve`` minus the rest of the CLI).
``in_process_server`` answers the same calls from the same app without a process: most HTTP tests use it, and a
few smoke tests keep the real process (start-up, logging, signals).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import requests

from engram_bench.processes import free_port, stop
from engram_core.tenants.credentials import KeyEntry, hash_key

if TYPE_CHECKING:
    from fastapi.testclient import TestClient
    from httpx2 import Response

ROOT = Path(__file__).resolve().parents[1]
EVENTS = Path(__file__).parent / "fixtures" / "fc_events"
ADMIN_KEY = "egk_admin-test-credential-0123456789"
TENANT_KEYS = {"alice": "egk_alice-test-key-0123456789", "bob": "egk_bob-test-key-0123456789",
               "carol": "egk_carol-test-key-0123456789", "dave": "egk_dave-test-key-0123456789"}
START_TIMEOUT_S = 120  # a busy 2-core machine can take a while to import and start a server


def keys_json(keys: dict[str, str]) -> str:
    return json.dumps([KeyEntry(tenant=t, hash=hash_key(k)).model_dump() for t, k in keys.items()])


def server_env(store: Path, **extra: str) -> dict[str, str]:
    """A clean environment: no ENGRAM_ settings or cloud keys of the developer leak in."""
    dropped = ("ENGRAM_", "FC_", "ALIBABA_CLOUD_", "QWEN_CLOUD_API_KEY", "DASHSCOPE_API_KEY")
    env = {k: v for k, v in os.environ.items() if not k.startswith(dropped)}
    env.update({"ENGRAM_TENANT_STORE": str(store), "ENGRAM_EMBEDDER": "hashing", "ENGRAM_PROVIDER": "offline",
                "ENGRAM_API_KEYS": keys_json(TENANT_KEYS), "ENGRAM_ADMIN_KEY": ADMIN_KEY})
    env.update(extra)
    return env


@dataclass
class Server:
    url: str
    process: subprocess.Popen
    log_path: Path
    session: requests.Session = field(default_factory=requests.Session)

    def call(self, method: str, path: str, key: str | None = None, **kwargs: object) -> requests.Response:
        headers = dict(kwargs.pop("headers", None) or {})
        if key is not None:
            headers["Authorization"] = f"Bearer {key}"
        return self.session.request(method, self.url + path, headers=headers, timeout=60, **kwargs)

    def as_tenant(self, tenant: str):
        key = TENANT_KEYS[tenant]
        return lambda method, path, **kw: self.call(method, path, key, **kw)

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def wait_for_log(self, text: str, timeout: float = 10.0) -> bool:
        deadline = time.monotonic() + timeout
        while text not in self.log():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)
        return True


def wait_healthy(url: str, process: subprocess.Popen, log_path: Path) -> float:
    started = time.perf_counter()
    while time.perf_counter() - started < START_TIMEOUT_S:
        if process.poll() is not None:
            raise RuntimeError(f"server exited early:\n{log_path.read_text()}")
        try:
            if requests.get(url + "/healthz", timeout=1).status_code == 200:
                return time.perf_counter() - started
        except (requests.ConnectionError, requests.Timeout):  # not listening yet, or still busy starting
            time.sleep(0.05)
    raise RuntimeError(f"server did not become healthy:\n{log_path.read_text()}")


@contextmanager
def running_server(store: Path, *args: str, **env: str) -> Iterator[Server]:
    port = free_port()
    log_path = store.parent / f"serve-{port}.log"
    command = [sys.executable, "-m", "functions", "--host", "127.0.0.1", "--port", str(port), *args]
    with open(log_path, "w", encoding="utf-8") as log:
        process = subprocess.Popen(command, env=server_env(store, **env), cwd=str(ROOT), stdout=log,
                                   stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, process, log_path)
        yield Server(url, process, log_path)
    finally:
        stop(process, grace=30)


class InProcessServer:
    """The same calls as ``Server``, answered by the app in this process (fastapi's TestClient over ASGI):
    no process start, no sockets. Server errors come back as 500 responses, as a real server sends them."""

    url = "http://testserver"

    def __init__(self, client: TestClient) -> None:
        self.client = client

    def call(self, method: str, path: str, key: str | None = None, **kwargs: object) -> Response:
        headers = dict(kwargs.pop("headers", None) or {})
        if key is not None:
            headers["Authorization"] = f"Bearer {key}"
        if "data" in kwargs and isinstance(kwargs["data"], (str, bytes)):
            kwargs["content"] = kwargs.pop("data")  # a raw body, as requests sends ``data=``
        kwargs.pop("timeout", None)
        return self.client.request(method, path, headers=headers, **kwargs)

    def as_tenant(self, tenant: str):
        key = TENANT_KEYS[tenant]
        return lambda method, path, **kw: self.call(method, path, key, **kw)


@contextmanager
def in_process_server(store: Path, **settings: object) -> Iterator[InProcessServer]:
    """The app ``python -m functions`` serves, with ``server_env``'s settings (``settings`` win), in-process."""
    from fastapi.testclient import TestClient

    from engram_core.providers import provider_root
    from engram_core.providers.settings import load_settings as load_provider_settings
    from functions.app import create_app
    from functions.service import build_service
    from functions.settings import load_app_settings

    options = {"tenant_store": str(store), "embedder": "hashing", "api_keys": keys_json(TENANT_KEYS),
               "admin_key": ADMIN_KEY, **settings}
    app_settings = load_app_settings(**options)
    root = provider_root(load_provider_settings(provider="offline"), embedder=app_settings.service.embedder)
    app = create_app(build_service(app_settings, providers=root))
    with TestClient(app, raise_server_exceptions=False) as client:
        yield InProcessServer(client)


def load_event(name: str) -> dict:
    return json.loads((EVENTS / name).read_text(encoding="utf-8"))
