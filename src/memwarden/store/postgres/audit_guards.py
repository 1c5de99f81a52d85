"""The triggers, rules, views and policies of a PostgreSQL database that memwarden did not create.

What memwarden creates is read from the text of its migrations (those the database recorded as
applied): each trigger's table, its definition as ``pg_get_triggerdef`` prints it, and the body
of the function it runs. The catalog is then compared with that, for every table of memwarden's
schema: a trigger not among them, a trigger whose definition or function body differs, or one
switched off (``DISABLE TRIGGER``, or firing only for replicas) is reported, as is any rule,
any policy, row-level security, and any view reading one of the tables (memwarden creates none
of those). A trigger's ``WHEN`` condition is compared as the server prints it (it rewrites
``IN (…)`` as ``= ANY (ARRAY[…])``, adds casts and parentheses): the migration's own trigger is
created once more on an empty TEMP copy of its table, in a transaction that is rolled back, and
its printed condition is the one expected (``_printed_conditions``). A condition rewritten to
never hold (``WHEN (NEW.action IN ('nothing'))``) would otherwise switch the trigger off unseen.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

from memwarden.audit.base import WRITE_ACTIONS
from memwarden.audit.guards import AUDIT_TABLES, INDEX_MISMATCH_SQL, GuardFinding, index_finding

if TYPE_CHECKING:  # pragma: no cover
    import psycopg


class _Trigger(NamedTuple):
    table: str
    definition: str  # whitespace folded, WHEN condition replaced by "WHEN (…)", schema dropped
    function: str
    body: str
    statement: str  # the migration's CREATE TRIGGER, whitespace folded


class _Rollback(Exception):
    """Ends the probe's transaction: nothing it created may stay."""


_EXPECTED: dict[int, dict[str, _Trigger]] = {}
_FUNCTION = re.compile(
    r"CREATE (?:OR REPLACE )?FUNCTION (\w+)\([^)]*\)\s+RETURNS trigger\s.*?AS \$\$(.*?)\$\$;", re.S
)
_TRIGGER = re.compile(r"(CREATE TRIGGER (\w+)\s.*?\sON (\w+)\s.*?EXECUTE FUNCTION (\w+)\(\));", re.S)


def _fold(text: str) -> str:
    return " ".join(text.split())


def _when_span(definition: str) -> tuple[int, int] | None:
    """Where the WHEN condition (balanced parentheses) is: from its " WHEN " to its last ")"."""
    start = definition.find(" WHEN (")
    if start < 0:
        return None
    depth, index = 0, start + len(" WHEN ")
    for index in range(start + len(" WHEN "), len(definition)):
        depth += {"(": 1, ")": -1}.get(definition[index], 0)
        if depth == 0:
            break
    return start, index + 1


def _without_when(definition: str) -> str:
    """The definition with its WHEN condition replaced by ``WHEN (…)``."""
    span = _when_span(definition)
    return definition if span is None else f"{definition[: span[0]]} WHEN (…){definition[span[1] :]}"


def _condition(definition: str) -> str:
    """The WHEN condition as printed (empty without one)."""
    span = _when_span(definition)
    return "" if span is None else definition[span[0] + len(" WHEN ") : span[1]]


def _printed_conditions(conn: psycopg.Connection, expected: dict[str, _Trigger]) -> dict[str, str] | None:
    """Trigger name → its WHEN condition as this server prints it, for memwarden's triggers that
    have one: each is created again on an empty TEMP copy of its table inside a transaction (or
    savepoint) that is always rolled back. None when the server refuses (a role without the
    TEMP privilege, a hot standby): the conditions are then compared for being there or not."""
    import psycopg

    wanted = {name: t for name, t in expected.items() if _when_span(t.statement) is not None}
    if not wanted:
        return {}
    printed: dict[str, str] = {}
    outermost = conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
    try:
        with conn.transaction():
            if outermost:  # a read-only verify: the probe writes only TEMP tables it rolls back
                conn.execute("SET TRANSACTION READ WRITE")
            for name, trigger in wanted.items():
                probe = f"memwarden_guard_probe_{trigger.table}"
                conn.execute(
                    f"CREATE TEMP TABLE IF NOT EXISTS {probe} (LIKE {trigger.table})"  # names from migrations
                )
                statement = trigger.statement.replace(f" ON {trigger.table} ", f" ON pg_temp.{probe} ", 1)
                conn.execute(statement.rstrip(";"))
                row = conn.execute(
                    "SELECT pg_get_triggerdef(t.oid) FROM pg_trigger t WHERE t.tgname = %s"
                    " AND t.tgrelid = %s::regclass",
                    (name, f"pg_temp.{probe}"),
                ).fetchone()
                if row is not None:
                    printed[name] = _condition(_fold(str(row[0])))
            raise _Rollback
    except _Rollback:
        pass
    except psycopg.Error:
        return None
    return printed if len(printed) == len(wanted) else None


def expected_triggers(version: int) -> dict[str, _Trigger]:
    """Trigger name → what memwarden's first ``version`` migrations create."""
    if version not in _EXPECTED:
        from memwarden.store.postgres.migrations import MIGRATIONS

        bodies: dict[str, str] = {}
        triggers: dict[str, _Trigger] = {}
        for _, script in MIGRATIONS[:version]:
            bodies.update({name: _fold(body) for name, body in _FUNCTION.findall(script)})
            for statement, name, table, function in _TRIGGER.findall(script):
                folded = _fold(statement)
                triggers[name] = _Trigger(table, _without_when(folded), function, "", folded)
            for name in re.findall(r"DROP TRIGGER (?:IF EXISTS )?(\w+)", script):
                triggers.pop(name, None)
        _EXPECTED[version] = {n: t._replace(body=bodies.get(t.function, "")) for n, t in triggers.items()}
    return _EXPECTED[version]


_SCHEMA_TABLES = "SELECT c.oid FROM pg_class c WHERE c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema()) AND c.relkind IN ('r', 'p')"


def schema_findings(conn: psycopg.Connection) -> list[GuardFinding]:
    """Memwarden's triggers that are missing (audit tables), disabled or changed, then every
    trigger, rule, policy, row-level security and view that memwarden did not create."""
    import psycopg

    began = conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
    row = conn.execute(
        "SELECT current_schema(), current_setting('session_replication_role'),"
        " (SELECT COALESCE(MAX(version), 0) FROM schema_migrations)"
    ).fetchone()
    assert row is not None
    if began and conn.info.transaction_status == psycopg.pq.TransactionStatus.INTRANS:
        conn.rollback()  # only that read began it: the probe below opens its own transaction
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
            _condition(_fold(str(definition))),
            # Memwarden's trigger functions run as the caller with the caller's settings: SECURITY
            # DEFINER or a SET clause (search_path = a schema with look-alike tables) is not theirs.
            bool(definer) or config is not None,
        )
        for name, table, enabled, definition, function, body, definer, config in conn.execute(
            "SELECT t.tgname, c.relname, t.tgenabled, pg_get_triggerdef(t.oid), p.proname, p.prosrc,"
            " p.prosecdef, p.proconfig"
            " FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_proc p ON p.oid = t.tgfoid"
            f" WHERE NOT t.tgisinternal AND t.tgrelid IN ({_SCHEMA_TABLES})"
        ).fetchall()
    }
    conditions = _printed_conditions(conn, expected)
    for name, want in expected.items():
        found = stored.get(name)
        if found is None:
            if want.table in AUDIT_TABLES:
                findings.append(GuardFinding(name, "missing", "trigger", want.table))
        elif found[1] in ("D", "R"):
            findings.append(GuardFinding(name, "disabled", "trigger", found[0]))
        elif (
            (found[0], found[2], found[3], found[4])
            != (
                want.table,
                want.definition,
                want.function,
                want.body,
            )
            or (conditions is not None and found[5] != conditions.get(name, ""))
            or found[6]
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


_WRITES = (
    "SELECT DISTINCT audit_memory_ids(memory_ids), seq FROM audit_log WHERE action IN ("
    + ", ".join(f"'{a}'" for a in WRITE_ACTIONS)
    + ")"
)


def index_findings(conn: psycopg.Connection) -> list[GuardFinding]:
    """``audit_memory_writes`` against what the log says it must hold (a full scan of the log:
    verify reads every row anyway; health leaves it out)."""
    row = conn.execute("SELECT to_regclass('audit_memory_writes') IS NOT NULL").fetchone()
    if row is None or not row[0]:
        return []
    counts = conn.execute(INDEX_MISMATCH_SQL.format(writes=_WRITES)).fetchone()
    assert counts is not None
    found = index_finding(int(counts[0]), int(counts[1]))
    return [] if found is None else [found]
