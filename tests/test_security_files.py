"""Tenant data on disk is private to its owner (0600 files, 0700 directories, whatever the umask), and working
copies a killed process left behind are cleaned up when the next process starts."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from security_support import api_client, bearer
from snapshot_support import make_snapshotter, remember

from engram_core.snapshots.cache import WarmCache
from engram_core.snapshots.local import LocalDirStore

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def open_umask():
    """The common default: without care, files come out world-readable."""
    before = os.umask(0o022)
    yield
    os.umask(before)


def _exposed(root: Path) -> list[str]:
    """Every path under root that its group or others may read, write or enter."""
    found = []
    for path in [root, *root.rglob("*")]:
        mode = stat.S_IMODE(path.lstat().st_mode)
        if mode & 0o077:
            found.append(f"{oct(mode)} {path.relative_to(root.parent)}")
    return found


def test_tenant_stores_of_the_service_are_private(tmp_path, open_umask) -> None:
    with api_client(str(tmp_path / "tenants")) as client:
        for tenant in ("alice", "bob"):
            assert client.post("/memories", json={"text": "Prefers aisle seats.", "importance": 0.8},
                               headers=bearer(tenant)).status_code == 201
        assert sorted(p.name for p in (tmp_path / "tenants" / "alice").iterdir())  # the WAL files are there
        assert _exposed(tmp_path / "tenants") == []


def test_a_store_the_cli_creates_is_private(tmp_path) -> None:
    store = tmp_path / "new-dir" / "mine.sqlite"
    done = subprocess.run([sys.executable, "-m", "engram_core.cli.main", "--embedder", "hashing", "--store", str(store),
                           "remember", "Prefers aisle seats.", "--importance", "0.8"], capture_output=True, text=True,
                          preexec_fn=lambda: os.umask(0o022), timeout=120)
    assert done.returncode == 0, done.stderr
    assert _exposed(tmp_path / "new-dir") == []


def test_snapshot_objects_cache_and_working_copies_are_private(tmp_path, open_umask) -> None:
    snapshots = make_snapshotter(LocalDirStore(tmp_path / "objects"), tmp_path / "cache")
    snapshots.run("alice", remember("Prefers aisle seats."))
    snapshots.run("alice", remember("Lives in Lisbon."))
    with snapshots.checkout("alice") as checkout:
        assert checkout.workdir.exists()
        assert _exposed(tmp_path / "cache") == []
    assert _exposed(tmp_path / "objects") == [] and _exposed(tmp_path / "cache") == []


_LEAVE_A_WORKSPACE = textwrap.dedent("""
    import os, sys
    from engram_core.snapshots.cache import WarmCache
    cache = WarmCache(sys.argv[1], "objects", 1 << 20)
    folder = cache.workspace()
    (folder / "tenant.sqlite").write_bytes(b"a tenant's working copy")
    print(folder, flush=True)
    if sys.argv[2] == "die":
        os.kill(os.getpid(), 9)  # killed mid-operation: nothing cleans up
    sys.stdin.read()  # alive until the test closes stdin
""")


def test_a_killed_process_working_copy_goes_when_the_next_process_starts(tmp_path) -> None:
    killed = subprocess.run([sys.executable, "-c", _LEAVE_A_WORKSPACE, str(tmp_path), "die"], capture_output=True,
                            text=True, cwd=ROOT, timeout=60)
    left = Path(killed.stdout.strip())
    assert killed.returncode == -9 and left.exists()
    alive = subprocess.Popen([sys.executable, "-c", _LEAVE_A_WORKSPACE, str(tmp_path), "live"], stdout=subprocess.PIPE,
                             stdin=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        in_use = Path(alive.stdout.readline().strip())
        WarmCache(tmp_path, "objects", 1 << 20)  # the next process starts
        assert not left.exists(), "the dead process's working copy is gone"
        assert in_use.exists(), "a live process's working copy stays"
    finally:
        alive.communicate("", timeout=60)
