"""The import graph, read from the source: layers point one way, no cycles, no module over 400 lines.

Every import counts: at module level, inside a function, and under ``TYPE_CHECKING`` (a type is a
dependency too). A package's ``__init__`` running before its submodules is not counted as an edge.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engram_core", "functions", "engram_bench")
MAX_LINES = 400

# Layer of a module: the longest prefix that names it.
LAYERS = {
    "engram_core": "root",
    "engram_core.core": "core",
    "engram_core.adapters": "adapters",
    "engram_core.adapters.offline": "bookkeeper",
    "engram_core.providers": "providers",
    "engram_core.usecases": "usecases",
    "engram_core.snapshots": "snapshots",
    "engram_core.tenants": "tenants",
    "engram_core.migrations": "adapters",
    "engram_core.mcp": "mcp",
    "engram_core.client": "client",
    "engram_core.cli": "cli",
    "engram_core.settings": "settings",
    "functions": "functions",
    "engram_bench": "bench",
}
LIBRARY = {"root", "core", "adapters", "bookkeeper", "providers", "usecases", "snapshots", "tenants", "mcp",
           "client", "cli", "settings"}
# What each layer may import (besides itself).
MAY_IMPORT = {
    "core": set(),
    "bookkeeper": {"core"},
    "adapters": {"core"},
    "usecases": {"core"},
    "providers": {"core", "adapters", "bookkeeper"},
    "snapshots": {"core", "adapters", "usecases"},
    "settings": {"core", "providers", "snapshots"},
    "tenants": {"core", "adapters", "snapshots", "usecases", "root", "settings"},
    "root": {"core", "adapters", "bookkeeper", "providers", "usecases"},
    "client": {"core"},
    "mcp": {"core", "usecases", "tenants", "root", "providers", "adapters", "settings"},
    "cli": LIBRARY - {"cli"},
    "functions": LIBRARY,
    "bench": LIBRARY | {"functions"},
}
# The edges (functions/, the MCP server) reach storage only through the Engine.
EDGE_FORBIDDEN = ("engram_core.adapters.sqlite_", "engram_core.usecases.runtime")
EDGE_LAYERS = {"functions", "mcp"}

# Known exceptions, each with its reason; a test fails once one no longer holds, so the list only shrinks.
KNOWN_WRONG_WAY: dict[tuple[str, str], str] = {}
KNOWN_CYCLES: dict[tuple[str, ...], str] = {}
KNOWN_LONG: dict[str, str] = {
}


# Imports inside a function keep start-up light and optional backends (OSS, MCP, MiniLM, the HTTP stack) out of
# processes that never use them: that is for entry points and the roots that choose a backend, never for the
# core, the use cases, the adapters or the client.
LAZY_ALLOWED = {"root", "providers", "snapshots", "tenants", "mcp", "cli", "functions", "bench"}


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    line: int
    lazy: bool = False


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for package in PACKAGES for p in sorted((ROOT / package).rglob("*.py"))}


def _imported(node: ast.AST, source: str, is_package: bool, known: dict[str, Path]) -> Iterator[str]:
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
    elif isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:
            parts = source.split(".")[: len(source.split(".")) - node.level + (1 if is_package else 0)]
            base = ".".join(parts + ([node.module] if node.module else []))
        for alias in node.names:
            yield f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base


def _in_functions(tree: ast.AST) -> set[int]:
    """Ids of the import statements inside a function body."""
    return {id(node) for fn in ast.walk(tree) if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef)
            for node in ast.walk(fn) if isinstance(node, ast.Import | ast.ImportFrom)}


def edges(known: dict[str, Path]) -> list[Edge]:
    found = []
    for source, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        lazy = _in_functions(tree)
        for node in ast.walk(tree):
            for target in _imported(node, source, path.name == "__init__.py", known):
                if target in known and target != source:
                    found.append(Edge(source, target, node.lineno, id(node) in lazy))
    return found


def layer(module: str) -> str:
    prefixes = [p for p in LAYERS if module == p or module.startswith(p + ".")]
    return LAYERS[max(prefixes, key=len)]


def wrong_way(edge: Edge) -> str | None:
    source, target = layer(edge.source), layer(edge.target)
    if source != target and target not in MAY_IMPORT[source]:
        return f"{source} -> {target}"
    if source in EDGE_LAYERS and edge.target.startswith(EDGE_FORBIDDEN):
        return f"{source} reaches past the Engine"
    return None


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def graph_of(found: list[Edge]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for edge in found:
        graph.setdefault(edge.source, set()).add(edge.target)
    return graph


KNOWN = modules()
EDGES = edges(KNOWN)


def test_the_graph_is_read_from_every_package() -> None:
    assert {m.split(".")[0] for m in KNOWN} == set(PACKAGES)
    assert "engram_core.core.packing" in {e.target for e in EDGES if e.source == "engram_core.usecases.recall_pack"}
    assert any(e.lazy for e in EDGES if e.source == "engram_core.cli.main")  # its subcommands load on demand


def _cycles() -> list[tuple[str, ...]]:
    return [tuple(c) for c in cycles(graph_of(EDGES))]


def _wrong_way() -> dict[tuple[str, str], str]:
    return {(e.source, e.target): f"{e.source}:{e.line} imports {e.target} ({why})"
            for e in EDGES if (why := wrong_way(e))}


def _long() -> dict[str, int]:
    return {m: n for m, p in KNOWN.items() if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}


def test_no_import_cycles() -> None:
    assert [c for c in _cycles() if c not in KNOWN_CYCLES] == []


def test_imports_point_one_way() -> None:
    assert [line for pair, line in _wrong_way().items() if pair not in KNOWN_WRONG_WAY] == []


def test_no_module_over_400_lines() -> None:
    assert {m: n for m, n in _long().items() if m not in KNOWN_LONG} == {}


def test_imports_inside_functions_only_where_they_keep_start_up_light() -> None:
    lazy = [f"{e.source}:{e.line} imports {e.target}" for e in EDGES
            if e.lazy and layer(e.source) not in LAZY_ALLOWED]
    assert lazy == []


def test_every_known_exception_still_holds() -> None:
    """Once one is fixed, its entry goes: the exceptions cannot outlive their reason."""
    assert set(KNOWN_CYCLES) - set(_cycles()) == set()
    assert set(KNOWN_WRONG_WAY) - set(_wrong_way()) == set()
    assert set(KNOWN_LONG) - set(_long()) == set()


def test_the_checks_catch_a_planted_cycle_and_wrong_way_imports() -> None:
    back = Edge("engram_core.core.model", "engram_core.usecases.engine", 1)
    planted = [*EDGES, back]
    assert any({back.source, back.target} <= set(c) for c in cycles(graph_of(planted)))
    assert wrong_way(back) == "core -> usecases"
    assert wrong_way(Edge("engram_core.cli.main", "engram_bench.cli", 1)) == "cli -> bench"
    assert wrong_way(Edge("engram_core.usecases.engine", "functions.app", 1)) == "usecases -> functions"
    reach = Edge("functions.memories", "engram_core.adapters.sqlite_store", 1)
    assert wrong_way(reach) == "functions reaches past the Engine"
