"""The documented Python examples (docs/python.md, docs/http-api.md) run as pasted: the engine in-process,
the client and the OpenAI drop-in against ``engram serve`` (the real command, its printed dev key)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests

from engram_bench.processes import free_port, stop

ROOT = Path(__file__).resolve().parents[1]
KEY_LINE = re.compile(r"dev API key for tenant 'dev': (egk_\S+)")


def python_block(doc: str, heading: str) -> str:
    """The first ```python block after a heading of a page under docs/."""
    text = (ROOT / "docs" / doc).read_text(encoding="utf-8")
    start = text.index(heading + "\n")
    match = re.compile(r"```python\n(.*?)```", re.DOTALL).search(text, start)
    assert match is not None, f"no python block after {heading}"
    return match.group(1)


def clean_env(**extra: str) -> dict[str, str]:
    dropped = ("ENGRAM_", "QWEN_CLOUD_API_KEY", "DASHSCOPE_API_KEY", "FC_", "ALIBABA_CLOUD_")
    return {**{k: v for k, v in os.environ.items() if not k.startswith(dropped)}, **extra}


def run_example(code: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    script = cwd / "example.py"
    script.write_text(code, encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, f"the documented example failed:\n{done.stderr}"
    return done


@dataclass(frozen=True)
class Served:
    url: str
    key: str


@pytest.fixture(scope="module")
def engram_serve(tmp_path_factory) -> Iterator[Served]:
    """``engram serve`` as a user starts it: no keys configured, so it prints a dev key."""
    base = tmp_path_factory.mktemp("readme")
    port, log_path = free_port(), base / "serve.log"
    command = [sys.executable, "-m", "engram_core.cli.main", "serve", "--port", str(port),
               "--store", str(base / "tenants"), "--embedder", "hashing"]
    with open(log_path, "w", encoding="utf-8") as log:
        process = subprocess.Popen(command, cwd=ROOT, env=clean_env(ENGRAM_PROVIDER="offline"), stdout=log,
                                   stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        yield Served(url, _wait_for_key(url, process, log_path))
    finally:
        stop(process, grace=30)


def _wait_for_key(url: str, process: subprocess.Popen, log_path: Path) -> str:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert process.poll() is None, log_path.read_text()
        found = KEY_LINE.search(log_path.read_text())
        try:
            if found and requests.get(url + "/healthz", timeout=1).ok:
                return found.group(1)
        except (requests.ConnectionError, requests.Timeout):  # not listening yet, or still busy starting
            pass
        time.sleep(0.1)
    raise AssertionError(f"engram serve did not start:\n{log_path.read_text()}")


@pytest.mark.slow
def test_the_engine_example_runs_as_pasted(tmp_path: Path) -> None:
    done = run_example(python_block("python.md", "# The Python API"), tmp_path, clean_env(ENGRAM_PROVIDER="offline"))
    assert "Lisbon" in done.stdout
    assert (tmp_path / "memories.sqlite").exists()


def test_the_client_example_runs_against_engram_serve(engram_serve: Served, tmp_path: Path) -> None:
    env = clean_env(ENGRAM_URL=engram_serve.url, ENGRAM_API_KEY=engram_serve.key)
    done = run_example(python_block("http-api.md", "## Python client"), tmp_path, env)
    assert "shellfish" in done.stdout and "no memory 'mem_missing'" in done.stdout


def test_the_openai_drop_in_example_runs_against_engram_serve(engram_serve: Served, tmp_path: Path) -> None:
    env = clean_env(ENGRAM_URL=engram_serve.url, ENGRAM_API_KEY=engram_serve.key)
    done = run_example(python_block("http-api.md", "## Drop-in memory for OpenAI-compatible agents"), tmp_path, env)
    answer, memory_tokens = done.stdout.rstrip().rsplit("\n", 1)
    assert "shellfish" in answer and int(memory_tokens) > 0
