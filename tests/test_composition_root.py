"""One composition root per entry point: provider settings read once, one OpenAI client for every tenant."""

from __future__ import annotations

from pathlib import Path

import pytest

from engram_core.usecases.engine import Engine
from engram_core.providers import provider_root
from engram_core.providers.settings import load_settings as load_provider_settings
from functions.service import build_service
from functions.settings import load_app_settings

TENANTS = ("alice", "bob", "carol")


def _wiring(engine: Engine) -> tuple[object, object, object]:
    """The client behind the engine's LLM and embedder, and the meter its calls are stored from."""
    rt = engine._rt
    return rt.llm.transport.client, rt.embedder.transport.client, rt.usage


def test_the_service_builds_one_client_for_every_tenant_and_a_meter_for_each(tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QWEN_CLOUD_API_KEY", "sk-test-never-sent")
    monkeypatch.setenv("ENGRAM_LLM_BASE_URL", "http://127.0.0.1:9/v1")  # nothing here calls a model
    service = build_service(load_app_settings(tenant_store=str(tmp_path)))
    try:
        wired = [service.read(tenant, _wiring) for tenant in TENANTS]
        wired += [service.read(tenant, _wiring) for tenant in TENANTS]  # and again, on a warm instance
    finally:
        service.close()
    clients = {id(client) for llm_client, embed_client, _ in wired for client in (llm_client, embed_client)}
    assert clients == {id(service.providers.client)}
    meters = [id(meter) for _, _, meter in wired[:len(TENANTS)]]
    assert len(set(meters)) == len(TENANTS)  # no tenant's model calls end up in another's usage log
    assert service.hosted_embedder


def test_a_root_without_a_key_builds_no_client() -> None:
    root = provider_root(load_provider_settings(provider="offline"), embedder="hashing")
    assert root.client is None and not root.hosted_embedder
    assert root.providers().usage is None

