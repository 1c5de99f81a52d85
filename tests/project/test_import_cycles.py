"""No import cycles in src/ (issue 12): the module import graph, read with ``ast``, is acyclic.

Every import counts: module level, inside functions, and under ``TYPE_CHECKING`` (a cycle of
type-only imports is still two modules that cannot be understood apart).
"""

from __future__ import annotations

import ast
from pathlib import Path

import memwarden

SRC = Path(memwarden.__file__).parent
PACKAGE = SRC.name


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in sorted(SRC.rglob("*.py"))}


def import_graph() -> dict[str, set[str]]:
    """Module -> the memwarden modules it imports (``from pkg import submodule`` names the submodule)."""
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                deps.update(alias.name for alias in node.names if alias.name in modules)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    source = ".".join([*base, *([node.module] if node.module else [])])
                else:
                    source = node.module or ""
                if source not in modules:
                    continue
                submodules = {f"{source}.{alias.name}" for alias in node.names} & modules.keys()
                deps.update(submodules)
                if len(submodules) < len(node.names):  # a name defined in the module itself
                    deps.add(source)
        graph[name] = deps - {name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), each as one cycle path."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
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
                found.append(_path_within(graph, set(component)))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _path_within(graph: dict[str, set[str]], component: set[str]) -> list[str]:
    """One concrete cycle inside a strongly connected component, for the failure message."""
    start = min(component)
    path, seen = [start], {start}
    while True:
        nxt = min(n for n in graph[path[-1]] if n in component)
        if nxt in seen:
            return [*path[path.index(nxt) :], nxt]
        path.append(nxt)
        seen.add(nxt)


def test_the_source_has_no_import_cycles() -> None:
    found = cycles(import_graph())
    assert found == [], "import cycles:\n" + "\n".join(" -> ".join(c) for c in found)


def test_the_cycle_finder_reports_a_cycle_with_its_path() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_graph_sees_imports_inside_functions_and_type_checking_blocks() -> None:
    graph = import_graph()
    assert f"{PACKAGE}.ops.operations" in graph[f"{PACKAGE}.service"]
    assert f"{PACKAGE}.search.vector_path" in graph[f"{PACKAGE}.service"]  # a TYPE_CHECKING import
