"""The pure core imports no I/O module (checked in a fresh interpreter)."""

from __future__ import annotations

import subprocess
import sys

PURE = ["heuristics_judge", "words", "heuristics_lexicon", "model", "config", "retention", "scoring", "packing", "ledger", "verdicts", "render", "timeutil",
        "inputs", "heuristics", "index", "errors", "ports"]
FORBIDDEN = ["sqlite3", "oss2", "openai", "http", "httpx", "urllib.request", "mcp", "requests", "boto3", "engram_core.adapters.sqlite_store"]


def test_pure_modules_import_no_io_modules() -> None:
    code = (
        "import sys\n"
        f"for name in {PURE!r}: __import__('engram_core.' + name)\n"
        f"bad = [m for m in {FORBIDDEN!r} if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"pure modules pulled in: {out.stdout.strip()}"
