"""What a new user meets in the first hour: `engram serve` starts, restarts and fails clearly, and the command
line's output reads well and ends cleanly in a pipe."""

from __future__ import annotations

import os
import re
import socket
import stat
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest
import requests

from engram_bench.processes import free_port, stop
from functions.devkey import DEV_KEY_FILE, kept_dev_key, read_dev_key

ROOT = Path(__file__).resolve().parents[1]
ENGRAM = [sys.executable, "-m", "engram_core.cli.main"]
KEY_LINE = re.compile(r"dev API key for tenant 'dev': (egk_\S+)")


def clean_env(tmp: Path, **extra: str) -> dict[str, str]:
    dropped = ("ENGRAM_", "QWEN_CLOUD_API_KEY", "DASHSCOPE_API_KEY", "FC_", "ALIBABA_CLOUD_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(dropped)}
    return {**env, "ENGRAM_EMBEDDER": "hashing", "ENGRAM_PROVIDER": "offline", "HOME": str(tmp),
            "XDG_DATA_HOME": str(tmp / "data"), "COLUMNS": "80", **extra}


def engram(tmp: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([*ENGRAM, *args], env=clean_env(tmp, **env), cwd=ROOT, capture_output=True, text=True,
                          timeout=120)


def start_serve(tmp: Path, *args: str) -> tuple[subprocess.Popen, Path, int]:
    port, log = free_port(), tmp / f"serve-{time.monotonic_ns()}.log"
    with open(log, "w", encoding="utf-8") as out:
        process = subprocess.Popen([*ENGRAM, "serve", "--port", str(port), *args], env=clean_env(tmp), cwd=ROOT,
                                   stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert process.poll() is None, log.read_text()
        try:
            if requests.get(f"http://127.0.0.1:{port}/healthz", timeout=1).ok:
                return process, log, port
        except (requests.ConnectionError, requests.Timeout):  # not listening yet, or still busy starting
            time.sleep(0.05)
    stop(process, grace=10)
    raise AssertionError(log.read_text())


def served_key(tmp: Path, *args: str) -> tuple[str, str]:
    """Start `engram serve`, read the key it printed, check the key works, stop; (key, what it printed)."""
    process, log, port = start_serve(tmp, *args)
    try:
        text = log.read_text()
        key = KEY_LINE.search(text).group(1)
        response = requests.get(f"http://127.0.0.1:{port}/stats", headers={"Authorization": f"Bearer {key}"},
                                timeout=10)
        assert response.status_code == 200, response.text
        return key, text
    finally:
        stop(process, grace=30)


def test_a_taken_port_is_one_clear_error_before_anything_is_announced(tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        done = engram(tmp_path, "serve", "--port", str(port), "--store", str(tmp_path / "tenants"))
    assert done.returncode == 2
    assert f"port {port} on 127.0.0.1 is already in use" in done.stderr and "--port" in done.stderr
    assert "Traceback" not in done.stderr and "Errno" not in done.stderr
    assert "serving on" not in done.stdout and "egk_" not in done.stdout
    assert not (tmp_path / "tenants" / DEV_KEY_FILE).exists()  # nothing was made for a server that never ran


def test_the_dev_key_survives_a_restart_and_is_private_until_a_new_one_is_asked_for(tmp_path: Path) -> None:
    store = tmp_path / "tenants"
    first, printed = served_key(tmp_path, "--store", str(store))
    assert f"tenant stores in {store}" in printed and str(store / DEV_KEY_FILE) in printed
    kept = store / DEV_KEY_FILE
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600 and kept.read_text().strip() == first
    again, _ = served_key(tmp_path, "--store", str(store))
    assert again == first  # an open board tab keeps working after a restart
    renewed, _ = served_key(tmp_path, "--store", str(store), "--new-dev-key")
    assert renewed != first and kept.read_text().strip() == renewed


def test_the_per_user_default_store_is_named_at_start(tmp_path: Path) -> None:
    _, printed = served_key(tmp_path)
    assert f"tenant stores in {tmp_path / 'data' / 'engram' / 'tenants'}" in printed
    assert "per-user default" in printed
    # what a first request would load is loaded before /healthz answers (the key check above came after it)
    assert re.search(r"engram: warmed up \(embedder \S+\) in \d+ ms", printed), printed


def test_kept_dev_key_tightens_a_loose_file_and_replaces_a_broken_one(tmp_path: Path) -> None:
    root = tmp_path / "tenants"
    key, made = kept_dev_key(str(root), "egk_" + "a" * 43, renew=False)
    assert made and key == "egk_" + "a" * 43
    os.chmod(root / DEV_KEY_FILE, 0o644)
    assert read_dev_key(root / DEV_KEY_FILE) == key
    assert stat.S_IMODE((root / DEV_KEY_FILE).stat().st_mode) == 0o600
    (root / DEV_KEY_FILE).write_text("not a key\n")
    replaced, made = kept_dev_key(str(root), "egk_" + "b" * 43, renew=False)
    assert made and replaced == "egk_" + "b" * 43


@pytest.fixture(scope="module")
def busy_store(tmp_path_factory) -> Path:
    """A store whose audit log is far larger than a pipe's buffer."""
    from engram_core import open_engine

    path = tmp_path_factory.mktemp("busy") / "busy.sqlite"
    with open_engine(path, embedder="hashing") as engine:
        for n in range(300):
            engine.remember(f"Meeting note {n}: the quarterly review moved to room {n % 40}.", importance=0.6)
    return path


@pytest.mark.parametrize("command", [["events", "--limit", "5000"], ["doctor"], ["export"], ["memories",
                                                                                               "--limit", "500"]])
def test_output_into_a_pipe_closed_early_ends_quietly_with_status_0(busy_store: Path, tmp_path: Path,
                                                                    command: list[str]) -> None:
    """`engram events | head`: the reader stops after one line."""
    process = subprocess.Popen([*ENGRAM, "--store", str(busy_store), *command], env=clean_env(tmp_path), cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout.readline()
    process.stdout.close()  # as head does once it has its lines
    _, stderr = process.communicate(timeout=120)
    assert stderr.decode() == "" and process.returncode == 0


def test_stats_prints_sentences_not_python_dicts(busy_store: Path, tmp_path: Path) -> None:
    done = engram(tmp_path, "--store", str(busy_store), "stats")
    assert done.returncode == 0, done.stderr
    assert "{" not in done.stdout and "'" not in done.stdout
    assert re.search(r"^memories: +300 active, 0 superseded", done.stdout, re.M)
    assert f"store:     {busy_store}" in done.stdout
    assert re.search(r"^beliefs: +\d+ current of \d+", done.stdout, re.M)


def _summaries(help_text: str) -> list[str]:
    """The Commands section's summaries, their wrapped lines joined."""
    section = help_text.split("Commands:\n", 1)[1]
    rows: list[str] = []
    for line in section.splitlines():
        if re.match(r"^  \S", line):
            rows.append(line.split(None, 1)[1] if len(line.split(None, 1)) > 1 else "")
        elif line.strip() and rows:
            rows[-1] += " " + line.strip()
    return rows


@pytest.mark.parametrize("group", [[], ["bench"], ["snapshots"], ["clock"], ["mcp"]])
def test_help_summaries_are_whole_sentences(tmp_path: Path, group: list[str]) -> None:
    done = engram(tmp_path, *group, "--help")
    assert done.returncode == 0
    summaries = _summaries(done.stdout)
    assert summaries and all(s.endswith(".") and not s.endswith("...") for s in summaries), summaries


def test_recall_help_says_the_cli_reinforces_and_http_recall_does_not(tmp_path: Path) -> None:
    text = " ".join(engram(tmp_path, "recall", "--help").stdout.split())
    assert "reinforces what it packs by default" in text and "POST /recall and the board never reinforce" in text


def test_the_readme_story_activates_the_venv_and_says_how_long_the_tests_take() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    story = readme.split("## Try the story", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    assert story.splitlines()[0].startswith("source .venv/bin/activate ")
    setup = readme.split("## Set up", 1)[1].split("## Try the story", 1)[0]
    assert re.search(r"takes about \d+ minutes", setup)


def test_the_licence_is_an_spdx_string() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == "MIT"


def test_setup_skips_an_install_that_is_current() -> None:
    if not (ROOT / ".venv" / ".engram-installed").exists():
        pytest.skip("this .venv was not made by scripts/setup.sh")
    done = subprocess.run(["bash", "scripts/setup.sh", "test"], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0 and "installing" not in done.stderr and done.stdout == ""
