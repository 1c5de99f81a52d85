"""The order in which `make test` hands files to pytest-xdist's workers (tests/conftest.py)."""

from __future__ import annotations

#: The files whose tests take longest (`pytest --durations`, summed per file), longest first:
#: pytest-xdist's `--dist loadfile` hands files to workers in collection order (see
#: pytest_configure in tests/conftest.py), and one of these started last would leave a single
#: worker running long after the others are done.
LONGEST_FIRST = (
    "project/test_readme.py",
    "ops/test_crash_points.py",
    "ops/test_durability.py",
    "daemon/test_soak_short.py",
    "store/test_postgres_migrate.py",
    "mcp/test_clients_doc.py",
    "ops/test_interrupted_operations.py",
    "cli/test_progress_terminal.py",
    "ops/test_wal_damage.py",
    "store/test_postgres_replicas.py",
    "hooks/test_hooks_server.py",
    "ops/test_ops_exchange.py",
    "mcp/test_bundle.py",
    "project/test_packaging.py",
    "http/test_http_limits.py",
    "store/test_wal_switch.py",
    "cli/test_start_checks.py",
    "test_nothing_leaves.py",
    "ui/test_ui_hostile_values.py",
    "govern/test_tenant_export_folders.py",
    "daemon/test_daemon_serve.py",
    "test_fuzz.py",
    "ui/test_ui_daemon_hostile_values.py",
)
