"""The triggers and views of a SQLite database that memwarden did not create.

What memwarden creates is known exactly: the migrations, run once on an in-memory database up to
the schema version the file records, leave the triggers and views it should hold, with their
SQL text. Any trigger or view in the file that is not among them (by name), or whose text
differs, is reported; so is a trigger of the audit tables that is gone. SQLite has no rules or
policies; TEMP triggers live only in the connection that made them, never in the file.
"""

from __future__ import annotations

import sqlite3

from memwarden.audit.base import WRITE_ACTIONS
from memwarden.audit.guards import AUDIT_TABLES, INDEX_MISMATCH_SQL, GuardFinding, index_finding

# Schema version → {name: (type, table, SQL with whitespace folded)}, in creation order.
_EXPECTED: dict[int, dict[str, tuple[str, str, str]]] = {}


def _normal(sql: object) -> str:
    return " ".join(str(sql).split())


def expected_objects(version: int) -> dict[str, tuple[str, str, str]]:
    """The triggers and views memwarden's first ``version`` migrations create."""
    if version not in _EXPECTED:
        from memwarden.store.sqlite.migrations import MIGRATIONS, migrate

        conn = sqlite3.connect(":memory:", isolation_level=None)
        try:
            migrate(conn, MIGRATIONS[:version])
            rows = conn.execute(
                "SELECT name, type, tbl_name, sql FROM sqlite_master WHERE type IN ('trigger', 'view') ORDER BY rowid"
            ).fetchall()
        finally:
            conn.close()
        _EXPECTED[version] = {str(n): (str(t), str(tbl), _normal(sql)) for n, t, tbl, sql in rows}
    return _EXPECTED[version]


def schema_findings(conn: sqlite3.Connection) -> list[GuardFinding]:
    """Memwarden's audit-table triggers that are missing or changed (in creation order), then
    every trigger or view memwarden did not create."""
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    expected = expected_objects(version)
    stored = {
        str(name): (str(kind), str(table), _normal(sql))
        for name, kind, table, sql in conn.execute(
            "SELECT name, type, tbl_name, sql FROM sqlite_master WHERE type IN ('trigger', 'view')"
        )
    }
    findings: list[GuardFinding] = []
    for name, (kind, table, sql) in expected.items():
        found = stored.get(name)
        if found is None:
            if kind == "trigger" and table in AUDIT_TABLES:
                findings.append(GuardFinding(name, "missing", kind, table))
        elif found != (kind, table, sql):
            findings.append(GuardFinding(name, "changed", found[0], found[1]))
    tables = {str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    for name, (kind, table, sql) in sorted(stored.items(), key=lambda item: (item[1][0], item[0])):
        if name not in expected:
            findings.append(
                GuardFinding(name, "foreign", kind, _reads(sql, tables) if kind == "view" else table)
            )
    return findings


def _reads(sql: str, tables: set[str]) -> str:
    """The tables a view's SQL names (a view's ``tbl_name`` is the view itself)."""
    import re

    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", sql))
    named = sorted(words & tables)
    return ", ".join(named) if named else "no memwarden table"


_WRITES = (
    "SELECT j.value, a.seq FROM audit_log a, json_each(a.memory_ids) j WHERE a.action IN ("
    + ", ".join(f"'{a}'" for a in WRITE_ACTIONS)
    + ") AND json_valid(a.memory_ids) AND j.type = 'text'"
)


def index_findings(conn: sqlite3.Connection) -> list[GuardFinding]:
    """``audit_memory_writes`` against what the log says it must hold (a full scan of the log:
    verify reads every row anyway; health leaves it out)."""
    if (
        conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'audit_memory_writes'"
        ).fetchone()
        is None
    ):
        return []
    missing, extra = conn.execute(INDEX_MISMATCH_SQL.format(writes=_WRITES)).fetchone()
    found = index_finding(int(missing), int(extra))
    return [] if found is None else [found]
