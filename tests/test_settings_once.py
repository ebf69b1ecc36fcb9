"""Settings are read once, by the entry points: nothing below them reads the environment.

The source of every package is scanned with ``ast``: reading ``os.environ`` (or ``os.getenv``), making a
settings object (a ``BaseSettings`` reads the environment when it is made) and importing a settings loader
are each allowed only where listed, the few exceptions with their reasons. A test fails once an exception no
longer holds, so the lists only shrink. The HTTP service is then built from settings read once and run with
an environment that no longer holds them (and holds bad values instead): it still works.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from functions_support import ADMIN_KEY, TENANT_KEYS, keys_json
from snapshot_support import KEY_ID, KEY_SECRET, LOOPBACK_REGION, moto_endpoint, new_bucket  # noqa: F401 - fixture

from engram_core.core.errors import ConfigurationError
from engram_core.providers import provider_root
from engram_core.settings import load_settings
from engram_core.usecases.engine import Engine
from functions.service import build_service
from functions.settings import load_app_settings

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engram_core", "functions", "engram_bench")
# Where settings are declared, validated and read from the environment.
SETTINGS_MODULES = {"engram_core/settings.py", "engram_core/providers/settings.py",
                    "engram_core/snapshots/settings.py", "functions/settings.py"}
# Entry points: each reads the settings once, at its start, and passes them down.
ENTRY_POINTS = {
    "engram_core/cli/": "the `engram` commands (their Context reads the settings once per command)",
    "functions/serve.py": "`engram serve` and `python -m functions`, the HTTP service's start",
    "engram_bench/": "`engram bench` and its suites (a suite run outside `engram` is its own entry point)",
    "engram_core/__init__.py": "open_engine(path) is the library's composition root for a Python caller: given "
                               "neither settings nor providers it reads the provider settings, as documented "
                               "(every entry point of the package passes providers)",
}
# Reads of the environment that are not settings.
ENVIRONMENT_EXCEPTIONS = {
    "engram_core/client/wire.py": "the HTTP client (a library for callers of a server) takes its key and URL "
                                  "from ENGRAM_API_KEY and ENGRAM_URL when its caller passes none, as the "
                                  "openai client does",
    "engram_bench/service.py": "copies the environment (PATH, HOME) for the servers it starts; their settings "
                               "are given explicitly",
    "engram_bench/load.py": "copies the environment for the servers it starts; their settings are given explicitly",
    "engram_bench/mcp.py": "copies the environment for the MCP server process it starts",
}
ENVIRONMENT_NAMES = {"environ", "environb", "getenv", "getenvb", "putenv", "unsetenv"}


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    what: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line} {self.what}"


def sources() -> dict[str, ast.Module]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            found[path.relative_to(ROOT).as_posix()] = ast.parse(path.read_text(encoding="utf-8"))
    return found


def settings_classes(trees: dict[str, ast.Module]) -> set[str]:
    """Classes that derive from ``BaseSettings`` (directly or through another one found here)."""
    classes = {"BaseSettings"}
    defined = [node for tree in trees.values() for node in ast.walk(tree) if isinstance(node, ast.ClassDef)]
    while True:
        more = {c.name for c in defined if any(_name(b) in classes for b in c.bases)} - classes
        if not more:
            return classes
        classes |= more


def loaders(trees: dict[str, ast.Module]) -> set[str]:
    """The functions of the settings modules that read the environment: ``load_*`` and ``key_variable``."""
    return {node.name for path in SETTINGS_MODULES for node in ast.walk(trees[path])
            if isinstance(node, ast.FunctionDef) and (node.name.startswith("load_") or node.name == "key_variable")}


def _name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def environment_reads(path: str, tree: ast.AST) -> Iterator[Finding]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in ENVIRONMENT_NAMES and _name(node.value) == "os":
            yield Finding(path, node.lineno, f"reads os.{node.attr}")
        elif isinstance(node, ast.ImportFrom) and node.module == "os":
            for alias in node.names:
                if alias.name in ENVIRONMENT_NAMES:
                    yield Finding(path, node.lineno, f"imports os.{alias.name}")


def settings_made(path: str, tree: ast.AST, classes: set[str]) -> Iterator[Finding]:
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and any(_name(b) in classes for b in node.bases):
            yield Finding(path, node.lineno, f"declares settings class {node.name}")
        elif isinstance(node, ast.Call):
            called = node.func
            if _name(called) in classes:
                yield Finding(path, node.lineno, f"makes a {_name(called)}")
            elif isinstance(called, ast.Attribute) and called.attr.startswith("model_validate") \
                    and _name(called.value) in classes:
                yield Finding(path, node.lineno, f"validates a {_name(called.value)}")


def loader_imports(path: str, tree: ast.AST, names: set[str]) -> Iterator[Finding]:
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("settings"):
            for alias in node.names:
                if alias.name in names:
                    yield Finding(path, node.lineno, f"imports the loader {node.module}.{alias.name}")


def is_entry_point(path: str) -> bool:
    return any(path == entry or (entry.endswith("/") and path.startswith(entry)) for entry in ENTRY_POINTS)


TREES = sources()
CLASSES = settings_classes(TREES)
LOADERS = loaders(TREES)


def _environment_readers() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path, tree in TREES.items():
        if path not in SETTINGS_MODULES:
            for finding in environment_reads(path, tree):
                found.setdefault(path, []).append(str(finding))
    return found


def test_the_scan_sees_every_package_and_every_settings_object() -> None:
    assert {path.split("/")[0] for path in TREES} == set(PACKAGES)
    assert {"ProviderSettings", "OssSettings", "SnapshotSettings", "ServiceSettings"} <= CLASSES
    assert {"load_settings", "load_oss_settings", "load_snapshot_settings", "load_app_settings",
            "key_variable"} <= LOADERS


def test_only_the_settings_modules_read_the_environment() -> None:
    readers = _environment_readers()
    assert [line for path, lines in readers.items() if path not in ENVIRONMENT_EXCEPTIONS for line in lines] == []


def test_only_the_settings_modules_make_settings_objects() -> None:
    made = [str(f) for path, tree in TREES.items() if path not in SETTINGS_MODULES
            for f in settings_made(path, tree, CLASSES)]
    assert made == []


def test_only_the_entry_points_load_settings() -> None:
    loading = [str(f) for path, tree in TREES.items() if path not in SETTINGS_MODULES and not is_entry_point(path)
               for f in loader_imports(path, tree, LOADERS)]
    assert loading == []


def test_every_exception_still_holds() -> None:
    """Once a listed module stops reading the environment (or loading settings), its entry goes."""
    assert set(ENVIRONMENT_EXCEPTIONS) - set(_environment_readers()) == set()
    loading = {path for path, tree in TREES.items() if any(loader_imports(path, tree, LOADERS))}
    listed_files = {entry for entry in ENTRY_POINTS if not entry.endswith("/")}
    assert listed_files - loading == set()


def test_the_scan_catches_planted_reads() -> None:
    planted = ast.parse(
        "import os\nfrom os import getenv\nfrom engram_core.snapshots.settings import load_oss_settings\n"
        "key = os.environ.get('QWEN_CLOUD_API_KEY')\nstore = OssSettings(endpoint='x')\n"
        "other = SnapshotSettings.model_validate({})\nclass Mine(ProviderSettings):\n    pass\n")
    assert sorted(f.line for f in environment_reads("x.py", planted)) == [2, 4]
    assert sorted(f.line for f in settings_made("x.py", planted, CLASSES)) == [5, 6, 7]
    assert [f.line for f in loader_imports("x.py", planted, LOADERS)] == [3]
    assert is_entry_point("engram_core/cli/main.py") and not is_entry_point("engram_core/tenants/tenancy.py")


# -- the HTTP service, built from settings read once ---------------------------------------------------------

TENANTS = ("alice", "bob", "carol", "dave")
# Each would fail the start-up if any of the settings were read again.
BAD_ENVIRONMENT = {"ENGRAM_PROVIDER": "bogus", "ENGRAM_EMBED_DIM": "7", "ENGRAM_SNAPSHOT_KEEP": "0",
                   "ENGRAM_SNAPSHOT_MAX_ATTEMPTS": "0", "ENGRAM_OSS_DIALECT": "bogus",
                   "ENGRAM_OSS_CONNECT_TIMEOUT": "-1"}


def _storage_environment(endpoint: str, cache: Path) -> dict[str, str]:
    """Snapshot storage on moto; every commit a whole generation, and only the newest one kept."""
    return {"ENGRAM_OSS_ENDPOINT": endpoint, "ENGRAM_OSS_DIALECT": "s3", "ENGRAM_OSS_REGION": LOOPBACK_REGION,
            "ENGRAM_OSS_ACCESS_KEY_ID": KEY_ID, "ENGRAM_OSS_ACCESS_KEY_SECRET": KEY_SECRET,
            "ENGRAM_SNAPSHOT_CACHE_DIR": str(cache), "ENGRAM_SNAPSHOT_KEEP": "1",
            "ENGRAM_SNAPSHOT_GRACE_SECONDS": "0", "ENGRAM_SNAPSHOT_DELTA_CHAIN": "0"}


def _remember(text: str) -> Callable[[Engine], tuple[int, object]]:
    def remember(engine: Engine) -> tuple[int, object]:
        engine.remember(text, importance=0.9)
        return 201, None

    return remember


def _texts(engine: Engine) -> list[str]:
    return [m.text for m in engine.memories(limit=10)]


def test_the_service_reads_the_environment_once_and_opens_every_tenant_from_what_it_read(
        tmp_path: Path, moto_endpoint: str, monkeypatch: pytest.MonkeyPatch) -> None:
    bucket = new_bucket(moto_endpoint)
    storage = _storage_environment(moto_endpoint, tmp_path / "cache")
    for name, value in storage.items():
        monkeypatch.setenv(name, value)
    settings = load_app_settings(tenant_store=f"oss://{bucket}/tenants", embedder="hashing",
                                 api_keys=keys_json(TENANT_KEYS), admin_key=ADMIN_KEY)
    for name in storage:  # what the service needs is gone from the environment ...
        monkeypatch.delenv(name)
    for name, value in BAD_ENVIRONMENT.items():  # ... and what is there would fail if it were read
        monkeypatch.setenv(name, value)
    with pytest.raises(ConfigurationError):
        load_settings()
    service = build_service(settings)
    try:
        for tenant in TENANTS:
            notes = [f"{tenant} prefers window seats", f"{tenant} is allergic to peanuts"]
            for note in notes:  # two generations each: garbage collection then has one to delete
                assert service.write(tenant, _remember(note), None).status == 201
            assert sorted(service.read(tenant, _texts)) == sorted(notes)
            assert service.stores.collect_garbage(tenant) >= 1  # ENGRAM_SNAPSHOT_KEEP=1, as read at start
        assert sorted(service.stores.tenants()) == sorted(TENANTS)
    finally:
        service.close()


def test_a_bad_setting_fails_the_start_with_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENGRAM_SNAPSHOT_KEEP", "0")
    with pytest.raises(ConfigurationError, match="^ENGRAM_SNAPSHOT_KEEP: "):
        load_app_settings()
    monkeypatch.delenv("ENGRAM_SNAPSHOT_KEEP")
    monkeypatch.setenv("ENGRAM_LLM_TIMEOUT_SECONDS", "never")
    with pytest.raises(ConfigurationError, match="^ENGRAM_LLM_TIMEOUT_SECONDS: "):
        load_app_settings()


def test_the_providers_come_from_the_settings_given_not_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QWEN_CLOUD_API_KEY", "sk-test-never-sent")
    read = load_settings()
    monkeypatch.delenv("QWEN_CLOUD_API_KEY")
    monkeypatch.setenv("ENGRAM_PROVIDER", "offline")
    root = provider_root(read.providers, embedder="hashing")
    assert root.settings.qwen_active and root.client is not None  # the key read at start, not today's environment
    assert read.key_variable == "QWEN_CLOUD_API_KEY"
