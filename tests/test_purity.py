"""The pure core and the offline bookkeeper import no I/O module (checked in a fresh interpreter)."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import engram_core.adapters.offline
import engram_core.core

PURE = [f"{package.__name__}.{module.name}" for package in (engram_core.core, engram_core.adapters.offline)
        for module in pkgutil.iter_modules(package.__path__)]
FORBIDDEN = ["sqlite3", "oss2", "openai", "http", "httpx", "urllib.request", "mcp", "requests", "boto3",
             "engram_core.adapters.sqlite_store"]


def test_pure_modules_import_no_io_modules() -> None:
    code = (
        "import sys\n"
        f"for name in {PURE!r}: __import__(name)\n"
        f"bad = [m for m in {FORBIDDEN!r} if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"pure modules pulled in: {out.stdout.strip()}"


def test_the_pure_list_covers_the_core() -> None:
    assert "engram_core.core.model" in PURE and "engram_core.adapters.offline.heuristics" in PURE
