"""The store port: the SQLite adapter and the in-memory fake both implement it, and the edges stay behind it."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest
from conftest import make_engine
from memory_store import MemoryStore

from engram_core.core import ports
from engram_core.adapters.sqlite_store import SqliteStore
from engram_core.core.errors import ConfigurationError
from functions import idempotency, schedule

ROOT = Path(__file__).resolve().parent.parent
STORE_PORTS = [ports.TransactionStore, ports.MetaStore, ports.MessageStore, ports.MemoryStore, ports.BeliefStore,
               ports.EventStore, ports.UsageStore, ports.ReviewStore, ports.ProposalStore, ports.MaintenanceStore,
               ports.ExchangeStore]


def port_members(port: type) -> dict[str, object]:
    return {name: value for name, value in vars(port).items()
            if not name.startswith("_") and (callable(value) or isinstance(value, property))}


def parameters(member: object) -> list[str]:
    target = member.fget if isinstance(member, property) else member
    return list(inspect.signature(target).parameters)


def test_tenant_store_is_every_group() -> None:
    assert set(ports.TenantStore.__mro__) >= set(STORE_PORTS)
    assert all(port_members(port) for port in STORE_PORTS)


@pytest.mark.parametrize("adapter", [SqliteStore, MemoryStore])
@pytest.mark.parametrize("port", STORE_PORTS, ids=lambda p: p.__name__)
def test_adapter_implements_the_port_member_by_member(adapter: type, port: type) -> None:
    for name, member in port_members(port).items():
        implemented = inspect.getattr_static(adapter, name, None)
        assert implemented is not None, f"{adapter.__name__} lacks {port.__name__}.{name}"
        assert isinstance(implemented, property) == isinstance(member, property), f"{name}: property or method"
        assert parameters(implemented) == parameters(member), f"{adapter.__name__}.{name} differs from the port"


@pytest.mark.parametrize("adapter", [SqliteStore, MemoryStore])
def test_purge_rows_implement_their_port(adapter: type) -> None:
    rows = type(adapter().purging) if adapter is MemoryStore else type(SqliteStore(":memory:").purging)
    for name, member in port_members(ports.PurgeRows).items():
        assert parameters(getattr(rows, name)) == parameters(member), f"{rows.__name__}.{name}"


def test_only_a_database_file_is_a_working_file(clock) -> None:
    assert isinstance(SqliteStore(":memory:"), ports.WorkingFile)
    with pytest.raises(ConfigurationError):
        _ = make_engine(clock, store=MemoryStore()).working_file


def test_idempotency_records_and_sleep_marks_go_through_the_meta_port(clock) -> None:
    engine = make_engine(clock, store=MemoryStore())
    first = idempotency.Replay(201, {"ok": True})
    idempotency.save(engine.meta, "digest", "print", first)
    assert idempotency.find(engine.meta, "digest", "print") == first
    with pytest.raises(idempotency.KeyReusedError):
        idempotency.find(engine.meta, "digest", "another request")
    schedule.record_sleep(engine, clock.now(), clock.now())
    assert schedule.last_sleep(engine) == clock.now() and schedule.already_done(engine, clock.now())


def test_the_edges_and_the_snapshot_layer_never_reach_past_the_engine_into_the_store() -> None:
    reach = re.compile(r"engine\.store\b|\.store\.conn\b|\bstore\.conn\b")
    found = [f"{path.relative_to(ROOT)}:{n}" for folder in ("functions", "engram_core/snapshots", "engram_core/mcp",
                                                           "engram_core/tenants", "engram_core/cli")
             for path in sorted((ROOT / folder).rglob("*.py"))
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1) if reach.search(line)]
    assert found == []
