"""The triggers, rules, views and policies of a PostgreSQL database that memwarden did not create.

What memwarden creates is read from the text of its migrations (those the database recorded as
applied): each trigger's table, its definition as ``pg_get_triggerdef`` prints it, and the body
of the function it runs. The catalog is then compared with that, for every table of memwarden's
schema: a trigger not among them, a trigger whose definition or function body differs, or one
switched off (``DISABLE TRIGGER``, or firing only for replicas) is reported, as is any rule,
any policy, row-level security, and any view reading one of the tables (memwarden creates none
of those). A trigger's ``WHEN`` condition is compared only for being there or not: the server
prints it rewritten (``IN (…)`` becomes ``= ANY (ARRAY[…])``); the append-only guards have none.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

from memwarden.audit.guards import AUDIT_TABLES, GuardFinding

if TYPE_CHECKING:  # pragma: no cover
    import psycopg


class _Trigger(NamedTuple):
    table: str
    definition: str  # whitespace folded, WHEN condition replaced by "WHEN (…)", schema dropped
    function: str
    body: str


_EXPECTED: dict[int, dict[str, _Trigger]] = {}
_FUNCTION = re.compile(
    r"CREATE (?:OR REPLACE )?FUNCTION (\w+)\([^)]*\)\s+RETURNS trigger\s.*?AS \$\$(.*?)\$\$;", re.S
)
_TRIGGER = re.compile(r"(CREATE TRIGGER (\w+)\s.*?\sON (\w+)\s.*?EXECUTE FUNCTION (\w+)\(\));", re.S)


def _fold(text: str) -> str:
    return " ".join(text.split())


def _without_when(definition: str) -> str:
    """The definition with its WHEN condition (balanced parentheses) replaced by ``WHEN (…)``."""
    start = definition.find(" WHEN (")
    if start < 0:
        return definition
    depth, index = 0, start + len(" WHEN ")
    for index in range(start + len(" WHEN "), len(definition)):
        depth += {"(": 1, ")": -1}.get(definition[index], 0)
        if depth == 0:
            break
    return f"{definition[:start]} WHEN (…){definition[index + 1 :]}"


def expected_triggers(version: int) -> dict[str, _Trigger]:
    """Trigger name → what memwarden's first ``version`` migrations create."""
    if version not in _EXPECTED:
        from memwarden.store.postgres.migrations import MIGRATIONS

        bodies: dict[str, str] = {}
        triggers: dict[str, _Trigger] = {}
        for _, script in MIGRATIONS[:version]:
            bodies.update({name: _fold(body) for name, body in _FUNCTION.findall(script)})
            for statement, name, table, function in _TRIGGER.findall(script):
                triggers[name] = _Trigger(table, _without_when(_fold(statement)), function, "")
            for name in re.findall(r"DROP TRIGGER (?:IF EXISTS )?(\w+)", script):
                triggers.pop(name, None)
        _EXPECTED[version] = {n: t._replace(body=bodies.get(t.function, "")) for n, t in triggers.items()}
    return _EXPECTED[version]


_SCHEMA_TABLES = "SELECT c.oid FROM pg_class c WHERE c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema()) AND c.relkind IN ('r', 'p')"


def schema_findings(conn: psycopg.Connection) -> list[GuardFinding]:
    """Memwarden's triggers that are missing (audit tables), disabled or changed, then every
    trigger, rule, policy, row-level security and view that memwarden did not create."""
    row = conn.execute(
        "SELECT current_schema(), current_setting('session_replication_role'),"
        " (SELECT COALESCE(MAX(version), 0) FROM schema_migrations)"
    ).fetchone()
    assert row is not None
    schema, role, version = str(row[0]), str(row[1]), int(row[2])
    expected = expected_triggers(version)
    findings: list[GuardFinding] = []
    if role != "origin":
        findings.append(GuardFinding(role, "replica_role", "setting", "every table"))
    stored = {
        str(name): (
            str(table),
            str(enabled),
            _without_when(_fold(str(definition)).replace(f" ON {schema}.", " ON ")),
            str(function),
            _fold(str(body)),
        )
        for name, table, enabled, definition, function, body in conn.execute(
            "SELECT t.tgname, c.relname, t.tgenabled, pg_get_triggerdef(t.oid), p.proname, p.prosrc"
            " FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_proc p ON p.oid = t.tgfoid"
            f" WHERE NOT t.tgisinternal AND t.tgrelid IN ({_SCHEMA_TABLES})"
        ).fetchall()
    }
    for name, want in expected.items():
        found = stored.get(name)
        if found is None:
            if want.table in AUDIT_TABLES:
                findings.append(GuardFinding(name, "missing", "trigger", want.table))
        elif found[1] in ("D", "R"):
            findings.append(GuardFinding(name, "disabled", "trigger", found[0]))
        elif (found[0], found[2], found[3], found[4]) != (
            want.table,
            want.definition,
            want.function,
            want.body,
        ):
            findings.append(GuardFinding(name, "changed", "trigger", found[0]))
    findings.extend(
        GuardFinding(n, "foreign", "trigger", s[0]) for n, s in sorted(stored.items()) if n not in expected
    )
    findings.extend(_other_objects(conn))
    return findings


def _other_objects(conn: psycopg.Connection) -> list[GuardFinding]:
    """Rules, policies, row-level security and views on memwarden's tables: it creates none."""
    findings = [
        GuardFinding(str(name), "foreign", "rule", str(table))
        for name, table in conn.execute(
            "SELECT rulename, tablename FROM pg_rules WHERE schemaname = current_schema() ORDER BY 2, 1"
        ).fetchall()
    ]
    findings.extend(
        GuardFinding(str(name), "foreign", "policy", str(table))
        for name, table in conn.execute(
            "SELECT p.polname, c.relname FROM pg_policy p JOIN pg_class c ON c.oid = p.polrelid"
            f" WHERE p.polrelid IN ({_SCHEMA_TABLES}) ORDER BY 2, 1"
        ).fetchall()
    )
    findings.extend(
        GuardFinding(str(table), "row_security", "table", str(table))
        for (table,) in conn.execute(
            f"SELECT c.relname FROM pg_class c WHERE c.oid IN ({_SCHEMA_TABLES}) AND c.relrowsecurity ORDER BY 1"
        ).fetchall()
    )
    findings.extend(
        GuardFinding(str(view), "foreign", "view", str(tables))
        for view, tables in conn.execute(
            "SELECT v.relname, string_agg(DISTINCT c.relname, ', ') FROM pg_depend d"
            " JOIN pg_rewrite r ON r.oid = d.objid JOIN pg_class v ON v.oid = r.ev_class"
            " JOIN pg_class c ON c.oid = d.refobjid"
            " WHERE d.classid = 'pg_rewrite'::regclass AND d.refclassid = 'pg_class'::regclass"
            f" AND v.oid <> c.oid AND c.oid IN ({_SCHEMA_TABLES}) GROUP BY v.relname ORDER BY 1"
        ).fetchall()
    )
    return findings
