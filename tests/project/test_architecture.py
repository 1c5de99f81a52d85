"""The import rules of CONVENTIONS.md (habit 11), checked on the source with ``ast``."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import memwarden

SRC = Path(memwarden.__file__).parent


def modules() -> Iterator[tuple[str, ast.Module]]:
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        yield rel, ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def imported(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def reads_environment(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in {"environ", "getenv", "environb", "putenv"}:
            if isinstance(node.value, ast.Name) and node.value.id == "os":
                return True
        if isinstance(node, ast.ImportFrom) and node.module == "os":
            if any(a.name in {"environ", "getenv", "environb"} for a in node.names):
                return True
    return False


def test_only_config_reads_the_environment() -> None:
    # settings_reader.py is the one settings reader (config.Settings takes its values from it);
    # settings_paths.py reads the XDG folders the default paths derive from.
    # vendor_env.py only sets third-party switches (onnxruntime telemetry off) before their import;
    # it reads nothing of memwarden's settings.
    allowed = {"settings_reader.py", "settings_paths.py", "vendor_env.py"}
    offenders = [rel for rel, tree in modules() if rel not in allowed and reads_environment(tree)]
    assert offenders == []


def test_only_the_mcp_adapter_imports_the_mcp_sdk() -> None:
    offenders = [
        rel
        for rel, tree in modules()
        if not rel.startswith("mcp/")
        and any(n == "mcp" or n.startswith("mcp.") or n.startswith("mcp_types") for n in imported(tree))
    ]
    assert offenders == []


def test_store_base_imports_no_backend() -> None:
    tree = ast.parse((SRC / "store" / "base.py").read_text(encoding="utf-8"))
    backends = [
        n
        for n in imported(tree)
        if n.startswith(("memwarden.store.sqlite", "memwarden.store.postgres", "sqlite3", "psycopg"))
    ]
    assert backends == []


def test_nothing_imports_the_cli() -> None:
    offenders = [
        rel
        for rel, tree in modules()
        if not rel.startswith("cli/")
        and rel != "__main__.py"
        and any(n.startswith("memwarden.cli") for n in imported(tree))
    ]
    assert offenders == []


def test_heavy_libraries_are_imported_inside_functions_only() -> None:
    heavy = ("numpy", "onnxruntime", "psycopg", "usearch", "tokenizers")
    offenders = []
    for rel, tree in modules():
        for node in tree.body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                offenders += [f"{rel}: {n}" for n in names if n.split(".")[0] in heavy]
    assert offenders == []


def test_no_module_is_past_1000_lines() -> None:
    long = [rel for rel, _ in modules() if len((SRC / rel).read_text(encoding="utf-8").splitlines()) > 1000]
    assert long == []
