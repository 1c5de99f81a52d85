"""The package's layers, bottom to top, and no import that runs back up one (issue 34).

A module may import its own layer and those below it. The layers, each named for what it holds:

- foundation: errors, models, settings, text analysis, small shared helpers, the words of each
  operation (``tool_text``), the network checks (``net``);
- content: what is done to a memory's text before it is kept (redaction, screening, embedding);
- requests: the typed request of each operation, checked with the content layer's normalisation;
- audit, then store: the tamper-evident log, then the backends that write memories and its rows;
- parts: the service's parts (intake, memories, search, operations, the vault mirror);
- assembly: the service built from settings, the Python library over it, and the SQLite to
  PostgreSQL copy (which builds a service on each side);
- adapters: MCP, HTTP, the daemon, the hooks, the dashboard; commands: the CLI.

Every import counts (module level, inside functions, under ``TYPE_CHECKING``), read with ``ast``
by the graph of ``tests/test_import_cycles.py``.
"""

from __future__ import annotations

from test_import_cycles import import_graph

LAYERS: tuple[tuple[str, frozenset[str]], ...] = (
    (
        "foundation",
        frozenset(
            {
                "errors", "models", "version", "digests", "identifiers", "json_limits", "logs",
                "progress", "peer", "hidden_paths", "settings_paths", "settings_table", "config",
                "config_hot", "vendor_env", "write_results", "browsing", "rate_limits", "text",
                "tool_text", "net",
            }
        ),
    ),
    ("content", frozenset({"govern", "screening", "embed"})),
    ("requests", frozenset({"validation", "requests"})),
    ("audit", frozenset({"audit"})),
    ("store", frozenset({"store"})),
    ("parts", frozenset({"intake", "memories", "search", "ops", "vault"})),
    ("assembly", frozenset({"service", "app", "library", "postgres_copy"})),
    ("adapters", frozenset({"mcp", "http", "daemon", "hooks", "ui"})),
    ("commands", frozenset({"cli", "__main__"})),
)  # fmt: skip


def layer_of(module: str) -> int | None:
    """The layer index of ``memwarden.<top>…``; None for the package itself."""
    parts = module.split(".")
    if len(parts) == 1:
        return None
    for index, (_, tops) in enumerate(LAYERS):
        if parts[1] in tops:
            return index
    raise AssertionError(f"{module} is in no layer: add its top-level name to LAYERS")


def upward_imports() -> list[str]:
    found = []
    for module, deps in import_graph().items():
        own = layer_of(module)
        if own is None:
            continue
        for dep in sorted(deps):
            target = layer_of(dep)
            if target is not None and target > own:
                found.append(f"{module} ({LAYERS[own][0]}) imports {dep} ({LAYERS[target][0]})")
    return sorted(found)


def test_every_module_has_a_layer() -> None:
    for module in import_graph():
        layer_of(module)


def test_no_import_runs_back_up_a_layer() -> None:
    assert upward_imports() == []
