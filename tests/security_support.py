"""In-process clients of the HTTP API for the security tests: the real app and service, no server process."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from fastapi.testclient import TestClient
from functions_support import ADMIN_KEY, TENANT_KEYS, keys_json

from functions.app import create_app
from functions.service import Service, build_service
from functions.settings import load_app_settings


def make_service(store: str, **settings: object) -> Service:
    """The service ``engram serve`` builds, on the fast offline ports, with the test tenants' keys."""
    options = {"tenant_store": store, "embedder": "hashing", "api_keys": keys_json(TENANT_KEYS),
               "admin_key": ADMIN_KEY, **settings}
    return build_service(load_app_settings(**options))


@contextmanager
def api_client(store: str, **settings: object) -> Iterator[TestClient]:
    """A client of the whole app; server errors come back as 500 responses, as a real server sends them."""
    with TestClient(create_app(make_service(store, **settings)), raise_server_exceptions=False) as client:
        yield client


def bearer(tenant_or_key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {TENANT_KEYS.get(tenant_or_key, tenant_or_key)}"}
