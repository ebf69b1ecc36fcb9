"""Shared pieces of the snapshot tests: stores over every adapter, engines, snapshotters."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from object_servers import OssLikeServer, moto_server

from engram_core.adapters.clock import SystemClock
from engram_bench.oss_front import LOOPBACK_REGION, create_bucket
from engram_core.adapters.hashing import HashingEmbedder
from engram_core.adapters.offline.llm import OfflineLLM
from engram_core.adapters.sqlite_store import SqliteStore
from engram_core.adapters.tokens import ConservativeTokenCounter
from engram_core.usecases.engine import Engine
from engram_core.snapshots.cache import WarmCache
from engram_core.snapshots.deltas import CompactionPolicy
from engram_core.snapshots.local import LocalDirStore
from engram_core.snapshots.oss import OssStore
from engram_core.snapshots.ports import SnapshotStore
from engram_core.snapshots.settings import OssSettings
from engram_core.snapshots import RetryPolicy, Snapshotter

ADAPTERS = ["local", "moto-s3", "oss-like"]
# moto routes a request by reading a SigV4 credential scope ("id/date/region/service/...") out of the
# Authorization header; an OSS signature that happens to hold exactly four '/' would be misread as one
# (a random 500), so the test key id carries more slashes than a scope has.
KEY_ID, KEY_SECRET = "engram/tests/have/no/aws/scope", "test-key-secret"
# Test tenants are tiny, so the default share (a delta under half the full snapshot) would keep them full:
# this policy makes every commit a delta, with a full snapshot after every eight.
DELTAS = CompactionPolicy(max_chain=8, max_share=1000.0)
WHOLE = CompactionPolicy(max_chain=0)  # every commit writes the whole database, however large the tenant grows


def hashing_engine(path: Path) -> Engine:
    """A real engine on the file, with the fast offline ports (random ids: many processes write)."""
    return Engine(SqliteStore(path), embedder=HashingEmbedder(), llm=OfflineLLM(),
                  tokens=ConservativeTokenCounter(), clock=SystemClock())


def oss_settings(endpoint: str, dialect: str = "s3") -> OssSettings:
    return OssSettings(endpoint=endpoint, access_key_id=KEY_ID, access_key_secret=KEY_SECRET,
                       dialect=dialect, region=LOOPBACK_REGION, connect_timeout=5)


def new_bucket(endpoint: str, dialect: str = "s3") -> str:
    name = f"engram-{uuid.uuid4().hex[:16]}"
    create_bucket(endpoint, name, KEY_ID, KEY_SECRET)
    return name


def oss_store(endpoint: str, dialect: str = "s3", bucket: str | None = None, prefix: str = "tenants") -> OssStore:
    return OssStore.from_settings(oss_settings(endpoint, dialect), bucket or new_bucket(endpoint, dialect), prefix)


def make_snapshotter(store: SnapshotStore, cache_dir: Path, *, attempts: int = 8, cache_bytes: int = 1 << 28,
                     **extra: object) -> Snapshotter:
    return Snapshotter(store, hashing_engine, WarmCache(cache_dir, store.location, cache_bytes),
                       retry=RetryPolicy(max_attempts=attempts, base_delay=0.002, max_delay=0.05), **extra)


def remember(text: str):
    return lambda engine: engine.remember(text, kind="episode", importance=0.9)


def texts_in(snapshotter: Snapshotter, tenant: str) -> list[str]:
    return snapshotter.run(tenant, lambda e: [m.text for m in e.memories(limit=100_000)], write=False)


@pytest.fixture(scope="module")
def moto_endpoint() -> Iterator[str]:
    with moto_server() as endpoint:
        yield endpoint


@pytest.fixture(scope="module")
def oss_like() -> Iterator[OssLikeServer]:
    server = OssLikeServer().start()
    yield server
    server.stop()


@pytest.fixture(params=ADAPTERS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> SnapshotStore:
    """The same contract, run against every adapter."""
    if request.param == "local":
        return LocalDirStore(tmp_path / "store")
    if request.param == "moto-s3":
        return oss_store(request.getfixturevalue("moto_endpoint"), "s3")
    return oss_store(request.getfixturevalue("oss_like").endpoint, "oss")
