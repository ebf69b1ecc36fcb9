"""The documentation says what the code does: the env table, the run command, the dev key."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import requests
from functions_support import free_port

from functions.settings import ServiceSettings, env_name, env_table

ROOT = Path(__file__).resolve().parents[1]


def test_the_documented_env_table_is_the_settings_object() -> None:
    deploy = (ROOT / "docs" / "deploy.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- env-table:start -->\n(.*?)\n<!-- env-table:end -->", deploy, re.S)
    assert block, "docs/deploy.md has no env-table block"
    assert block.group(1).strip() == env_table().strip(), "regenerate it with `engram serve --env-table`"
    for name in ServiceSettings.model_fields:
        assert f"`{env_name(name)}`" in block.group(1)


def test_run_script_starts_the_server_by_default() -> None:
    script = (ROOT / "scripts" / "run.sh").read_text(encoding="utf-8")
    assert 'exec .venv/bin/engram "${@:-serve}"' in script


def test_engram_serve_on_the_embedded_default_prints_a_working_dev_key(tmp_path) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ENGRAM_", "QWEN_", "DASHSCOPE_"))}
    env.update({"ENGRAM_TENANT_STORE": str(tmp_path / "tenants"), "ENGRAM_EMBEDDER": "hashing", "HOME": str(tmp_path)})
    process = subprocess.Popen([sys.executable, "-m", "engram_core.cli.main", "serve", "--port", str(port)],
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT)
    try:
        lines = [process.stdout.readline() for _ in range(2)]
        key = re.search(r"dev API key for tenant 'dev': (egk_\S+)", "".join(lines)).group(1)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                response = requests.get(f"http://127.0.0.1:{port}/stats", timeout=2,
                                        headers={"Authorization": f"Bearer {key}"})
                break
            except requests.ConnectionError:
                time.sleep(0.05)
        assert response.status_code == 200 and response.json()["tenant"] == "dev"
        assert requests.get(f"http://127.0.0.1:{port}/stats", timeout=2).status_code == 401
    finally:
        process.terminate()
        process.wait(timeout=30)
