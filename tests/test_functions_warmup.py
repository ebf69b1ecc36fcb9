"""FC's initializer loads what every first request would otherwise load: the token vocabulary and the read path."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PROGRAM = """
import json, sys
from engram_core.adapters import tokens
before = tokens._qwen_encoding.cache_info().currsize, "engram_core.usecases.recall" in sys.modules
from engram_core.adapters.hashing import HashingEmbedder
from functions.warmup import warm_up
model = warm_up(HashingEmbedder())
after = tokens._qwen_encoding.cache_info().currsize, "engram_core.usecases.recall" in sys.modules
print(json.dumps({"model": model, "before": before, "after": after}))
"""


def test_warm_up_loads_the_token_vocabulary_and_the_recall_path_offline() -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(ROOT / ".no-home"), "ENGRAM_PROVIDER": "offline"}
    result = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, cwd=ROOT, env=env,
                            timeout=120, check=True)
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["before"] == [0, False]
    assert report["after"] == [1, True]
    assert report["model"].startswith("hashing")
