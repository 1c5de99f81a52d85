"""The package's layers, bottom to top, and no import that runs back up one (issue 34).

A module may import its own layer and those below it. The layers, each named for what it holds:

- foundation: errors, models, settings, text analysis, small shared helpers, the words of each
  operation (``tool_text``), the network checks and socket line reads (``net``);
- content: what is done to a memory's text before it is kept (redaction, screening, embedding);
- requests: the typed request of each operation, checked with the content layer's normalisation;
- audit, then store: the tamper-evident log, then the backends that write memories and its rows;
- parts: the service's parts (intake, memories, search, operations, the vault mirror);
- assembly: the service built from settings, the Python library over it, and the SQLite to
  PostgreSQL copy (which builds a service on each side);
- hook domain: what a prompt hook is, whichever way it is served (the hook's input, its answer
  to a prompt, the rendering of memories for a model, the routes a server answers it on);
- transports: MCP, HTTP, the daemon, the dashboard, each serving the parts and the hook domain;
- hook clients: the hook commands and the ways they reach a transport (the quick path, the
  recall clients, the loopback HTTP client, session state, ``install claude-code``);
- commands: the CLI.

A layer names top-level modules or packages (``hooks``), or a module of one (``hooks.render``):
the longest name the table holds decides.

Every import counts (module level, inside functions, under ``TYPE_CHECKING``), read with ``ast``
by the graph of ``tests/project/test_import_cycles.py``.
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
                "settings_reader", "vendor_env", "write_results", "browsing", "rate_limits", "token_guesses", "clean_identifiers", "text",
                "tool_text", "net", "os_error_words",
            }
        ),
    ),
    ("content", frozenset({"govern", "screening", "embed"})),
    ("requests", frozenset({"validation", "requests"})),
    ("audit", frozenset({"audit"})),
    ("store", frozenset({"store"})),
    ("parts", frozenset({"intake", "memories", "search", "ops", "vault"})),
    ("assembly", frozenset({"service", "app", "library", "postgres_copy"})),
    (
        "hook domain",
        frozenset(
            {
                "hooks.payload", "hooks.projects", "hooks.prompt", "hooks.prompt_request",
                "hooks.render", "hooks.paths",
            }
        ),
    ),
    ("transports", frozenset({"mcp", "http", "daemon", "ui"})),
    ("hook clients", frozenset({"hooks"})),
    ("commands", frozenset({"cli", "__main__"})),
)  # fmt: skip


def layer_of(module: str) -> int | None:
    """The layer index of ``memwarden.<name>…``; None for the package itself.

    The longest name the table holds wins: ``hooks.render`` is in the hook domain, every other
    module of ``hooks`` with the hook clients."""
    parts = module.split(".")
    if len(parts) == 1:
        return None
    for length in range(len(parts) - 1, 0, -1):
        name = ".".join(parts[1 : 1 + length])
        for index, (_, names) in enumerate(LAYERS):
            if name in names:
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


def test_every_name_in_the_table_is_a_module_or_package_of_the_source() -> None:
    modules = set(import_graph())
    packages = {module.rpartition(".")[0] for module in modules}  # ui/ has no __init__.py
    stale = sorted(
        name for _, names in LAYERS for name in names if f"memwarden.{name}" not in modules | packages
    )
    assert stale == [], f"LAYERS names modules that no longer exist: {stale}"


def test_the_hook_domain_sits_below_the_transports_and_the_hook_clients_above() -> None:
    domain = layer_of("memwarden.hooks.render")
    transport = layer_of("memwarden.daemon.client")
    client = layer_of("memwarden.hooks.commands")
    assert domain is not None and transport is not None and client is not None
    assert domain < transport < client
