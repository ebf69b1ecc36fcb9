"""`engram --store oss://bucket/prefix ...` and `engram snapshots ...` as a user runs them, against moto."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest
from object_servers import free_port
from snapshot_support import KEY_ID, LOOPBACK_REGION, moto_endpoint, new_bucket  # noqa: F401 - fixture

from engram_core.cli.common import Context

ROOT = Path(__file__).resolve().parents[1]
SECRET = "do-not-print-this-9f8e7d"


def engram(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "engram_core.cli.main", *args], env=env, capture_output=True,
                          text=True, timeout=120, cwd=ROOT)


@pytest.fixture
def env(moto_endpoint: str, tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "ENGRAM_OSS_ENDPOINT": moto_endpoint, "ENGRAM_OSS_DIALECT": "s3",
            "ENGRAM_OSS_REGION": LOOPBACK_REGION,
            "ENGRAM_OSS_ACCESS_KEY_ID": KEY_ID, "ENGRAM_OSS_ACCESS_KEY_SECRET": SECRET,
            "ENGRAM_EMBEDDER": "hashing", "ENGRAM_SNAPSHOT_CACHE_DIR": str(tmp_path / "cache"),
            "ENGRAM_STORE": f"oss://{new_bucket(moto_endpoint)}/engram", "ENGRAM_TENANT": "alice"}


def test_commands_run_on_the_newest_generation_and_commit_the_next(env: dict[str, str]) -> None:
    assert engram(env, "remember", "Allergic to shellfish", "--importance", "0.9").returncode == 0
    assert engram(env, "remember", "Lives in Lisbon", "--importance", "0.8").returncode == 0
    stats = json.loads(engram(env, "stats", "--json").stdout)
    assert stats["memories"]["active"] == 2
    listed = json.loads(engram(env, "snapshots", "list", "--json").stdout)
    assert [g["generation"] for g in listed["generations"]] == [1, 2] and listed["tenant"] == "alice"
    other = {**env, "ENGRAM_TENANT": "bob"}
    assert json.loads(engram(other, "stats", "--json").stdout)["memories"]["active"] == 0


def test_show_gc_and_restore(env: dict[str, str]) -> None:
    for text in ("one", "two", "three"):
        assert engram(env, "remember", f"Note {text}", "--importance", "0.8").returncode == 0
    shown = json.loads(engram(env, "snapshots", "show", "1", "--json").stdout)
    assert shown["generation"] == 1 and shown["memories"] == {"active": 1} and len(shown["sha256"]) == 64
    restored = engram(env, "snapshots", "restore", "1")
    assert restored.returncode == 0 and "as generation 4" in restored.stdout
    assert json.loads(engram(env, "stats", "--json").stdout)["memories"]["active"] == 1
    collected = engram({**env, "ENGRAM_SNAPSHOT_KEEP": "2", "ENGRAM_SNAPSHOT_GRACE_SECONDS": "0"},
                       "snapshots", "gc", "--json")
    assert json.loads(collected.stdout) == [{"tenant": "alice", "deleted": [1, 2], "kept": [3, 4]}]


def test_a_local_directory_is_a_snapshot_store_for_the_snapshots_commands(tmp_path: Path) -> None:
    env = {**os.environ, "ENGRAM_SNAPSHOT_CACHE_DIR": str(tmp_path / "cache")}
    listed = engram(env, "--store", str(tmp_path / "snaps"), "--tenant", "carol", "snapshots", "list")
    assert listed.returncode == 0 and "no generations" in listed.stdout


@pytest.mark.parametrize("change, needle", [
    ({"ENGRAM_STORE": "oss://Bad_Bucket/x"}, "invalid bucket name"),
    ({"ENGRAM_OSS_ENDPOINT": ""}, "ENGRAM_OSS_ENDPOINT"),
    ({"ENGRAM_OSS_DIALECT": "gcs"}, "ENGRAM_OSS_DIALECT"),
    ({"ENGRAM_TENANT": "../../etc"}, "tenant"),
])
def test_bad_settings_are_one_clear_line(env: dict[str, str], change: dict[str, str], needle: str) -> None:
    out = engram({**env, **change}, "stats")
    assert out.returncode == 2 and out.stderr.startswith("engram: error:") and needle in out.stderr
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_an_unreachable_store_is_one_clear_line_without_secrets(env: dict[str, str]) -> None:
    out = engram({**env, "ENGRAM_OSS_ENDPOINT": f"http://127.0.0.1:{free_port()}"}, "remember", "x")
    assert out.returncode == 2 and "cannot reach the object store" in out.stderr
    assert SECRET not in out.stderr + out.stdout and "Traceback" not in out.stderr


def test_showing_a_missing_generation_is_a_clear_error(env: dict[str, str]) -> None:
    out = engram(env, "snapshots", "show", "7")
    assert out.returncode == 2 and "has no generation 7" in out.stderr


def test_a_command_that_loses_the_commit_race_runs_again_and_prints_once(
        env: dict[str, str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    for name, value in env.items():
        if name.startswith("ENGRAM_"):
            monkeypatch.setenv(name, value)
    store, runs = env["ENGRAM_STORE"], []
    ctx = Context(store, "hashing", "alice")

    def command() -> None:
        runs.append(len(runs) + 1)
        ctx.engine().remember(f"mine, attempt {runs[-1]}", kind="fact", importance=0.8)
        if runs[-1] == 1:  # another instance commits first, from the same starting point
            rival = Context(store, "hashing", "alice")
            rival.run_committed(lambda: rival.engine().remember("theirs", kind="fact", importance=0.8))
        click.echo(f"remembered on attempt {runs[-1]}")

    ctx.run_committed(command)
    assert runs == [1, 2] and capsys.readouterr().out == "remembered on attempt 2\n"
    reader = Context(store, "hashing", "alice")
    reader.run_committed(lambda: None)
    assert [m.text for m in reader.engine().memories()] == ["theirs", "mine, attempt 2"]
    reader.close()


def test_concurrent_commands_on_one_tenant_all_land(env: dict[str, str]) -> None:
    procs = [subprocess.Popen([sys.executable, "-m", "engram_core.cli.main", "remember", f"Concurrent note {n}",
                               "--importance", "0.8"], env=env, cwd=ROOT, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for n in range(6)]
    outcomes = [(p.wait(timeout=120), p.stderr.read()) for p in procs]
    assert [code for code, _ in outcomes] == [0] * 6, outcomes
    listed = engram(env, "memories", "--json")
    texts = sorted(m["text"] for m in json.loads(listed.stdout))
    assert texts == [f"Concurrent note {n}" for n in range(6)]
