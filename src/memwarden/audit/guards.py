"""What stands between the audit log and someone with write access to its database.

memwarden's own triggers keep the audit tables append-only (``audit_log`` rows continue the
head; no UPDATE; DELETE only under a prune checkpoint). Anything else attached to the audit or
memory tables can undo that without a single row looking wrong: a foreign ``BEFORE INSERT …
RAISE(IGNORE)`` trigger drops chosen rows while the writes commit, a PostgreSQL rule ``DO
INSTEAD NOTHING`` does the same, a row-level security policy hides rows from memwarden's own
reads. Each backend lists what it finds as ``GuardFinding`` values (``guard_problems()`` on its
audit log, and ``schema_findings(conn)`` beside it); ``audit verify`` and health report them
with the words below. The append path checks for itself that its row landed and the head
advanced (``landed_problem``), so a row dropped this way fails the write instead of vanishing.
"""

# No ``from __future__ import annotations``: typing.NamedTuple compiles every string annotation
# into a ForwardRef, a visible share of a cold search's imports (docs/performance.md#cold-start).

from collections.abc import Sequence
from typing import Any, NamedTuple

# The tables whose memwarden triggers must all be present: the audit chain's.
AUDIT_TABLES = ("audit_log", "audit_head", "audit_checkpoints")


class GuardFinding(NamedTuple):
    """One object of the database that weakens the audit's guards.

    ``state``: ``missing`` (a memwarden trigger of an audit table is gone), ``disabled``
    (switched off), ``changed`` (same name, not what memwarden created), ``out_of_step`` (the
    index ``audit_memory_writes`` does not match the log), ``foreign`` (a trigger,
    view, rule or policy memwarden did not create), ``row_security`` (PostgreSQL row-level
    security is on for the table), ``replica_role`` (this session runs with
    ``session_replication_role`` other than ``origin``: ordinary triggers do not fire).
    ``kind``: trigger | view | rule | policy | table | setting; ``table``: what it is on (or
    reads)."""

    name: str
    state: str
    kind: str
    table: str


def problem_kind(finding: GuardFinding) -> str:
    """``unguarded`` for memwarden's own triggers gone or altered, ``index_edited`` for an index
    table out of step with the log; ``foreign`` for the rest."""
    if finding.state == "out_of_step":
        return "index_edited"
    return "unguarded" if finding.state in ("missing", "disabled", "changed") else "foreign"


# (memory id, seq) of every audit row that wrote a memory, as ``audit_memory_writes`` must hold
# them, and that table's rows whose audit row is still there (a prune leaves the others behind).
# {writes} is the backend's query of the pairs; the counts are of pairs on one side only.
# The index rows whose log row exists are found by the log's key, one lookup each: written as a
# join, SQLite scanned the whole index once per log row: time grew with the square of the log.
INDEX_MISMATCH_SQL = (
    "SELECT (SELECT COUNT(*) FROM ({writes} EXCEPT SELECT memory_id, seq FROM audit_memory_writes) AS m),"
    " (SELECT COUNT(*) FROM (SELECT w.memory_id, w.seq FROM audit_memory_writes w"
    " WHERE EXISTS (SELECT 1 FROM audit_log a WHERE a.seq = w.seq) EXCEPT {writes}) AS x)"
)


def index_finding(missing: int, extra: int) -> GuardFinding | None:
    """``audit_memory_writes`` (the index a memory's page lists its audited writes by) against the
    log: rows deleted from it hide a memory's history, rows added pin other writes on it."""
    if not missing and not extra:
        return None
    return GuardFinding("audit_memory_writes", "out_of_step", "table", f"{missing} missing, {extra} extra")


def describe(finding: GuardFinding) -> str:
    """A sentence saying what was found, what it can do, and what to do about it."""
    name, table = finding.name, finding.table
    if finding.state == "missing":
        return (
            f"memwarden's trigger {name} on {table} is missing: the audit tables are no longer guarded "
            "as memwarden set them up (without the append-only triggers the database no longer refuses "
            "changes; rows changed since show up as other problems). Restore a backup, or recreate the "
            "trigger from memwarden's migrations"
        )
    if finding.state == "disabled":
        return (
            f"memwarden's trigger {name} on {table} is disabled (ALTER TABLE … DISABLE TRIGGER, or it "
            f"fires only for replicas): it no longer runs on writes to {table}. "
            f"Run ALTER TABLE {table} ENABLE TRIGGER {name}"
        )
    if finding.state == "changed":
        return (
            f"the {finding.kind} {name} on {table} was changed (it is not the one memwarden created): "
            "it may let rows be changed, dropped or skipped. Restore a backup, or recreate it from "
            "memwarden's migrations"
        )
    if finding.state == "out_of_step":
        return (
            f"the index audit_memory_writes is out of step with the audit log ({table} pairs of memory "
            "and audit row): it was edited directly, so memory pages show a history with writes hidden "
            "or added. The chain itself is not affected; restore a backup, or rebuild the index from "
            "audit_log (DELETE FROM audit_memory_writes, then the INSERT of its migration)"
        )
    if finding.state == "row_security":
        return (
            f"row-level security is enabled on {table}: policies can hide rows from memwarden's "
            f"reads (verify then sees a chain with holes) or refuse its writes. Run ALTER TABLE {table} "
            "DISABLE ROW LEVEL SECURITY unless it was set up on purpose"
        )
    if finding.state == "replica_role":
        return (
            f"this session runs with session_replication_role = {name}: no ordinary trigger fires, so "
            "the audit tables are not guarded for it (ALTER ROLE / ALTER DATABASE … SET "
            "session_replication_role). Reset it to origin"
        )
    what = {
        "trigger": "it can drop, change or add rows as they are written (a BEFORE INSERT trigger "
        "with RAISE(IGNORE) drops chosen rows while the write commits)",
        "view": "it shows the table's rows under another name, filtered or changed, and its "
        "INSTEAD OF triggers can send writes elsewhere",
        "rule": "a rule can rewrite writes to the table (DO INSTEAD NOTHING drops them)",
        "policy": "a policy can hide rows from memwarden's reads or refuse its writes",
    }.get(finding.kind, "memwarden does not know what it does")
    return (
        f"a {finding.kind} {name} on {table} that memwarden did not create: {what}. Remove it if "
        "nobody here added it on purpose, then verify again"
    )


def as_problems(findings: Sequence[GuardFinding]) -> list[dict[str, Any]]:
    """The findings as health reports them."""
    return [
        {"name": f.name, "state": f.state, "kind": f.kind, "table": f.table, "message": describe(f)}
        for f in findings
    ]


def landed_problem(
    expected: Sequence[Any], stored: Sequence[Any] | None, head: Sequence[Any] | None
) -> str | None:
    """Why an append did not land, or None when it did: the row read back in the append's own
    transaction must be the row written, and the head must name it. A trigger or rule memwarden
    did not create can skip the INSERT (``RAISE(IGNORE)``, ``DO INSTEAD NOTHING``) without any
    error; this check turns that into a failed write."""
    seq, digest = expected[0], expected[-1]
    if stored is None:
        return (
            f"the audit row seq {seq} was not stored although the INSERT reported no error: a trigger "
            "or rule memwarden did not create dropped it (run memwarden audit verify); the write is refused"
        )
    if tuple(stored) != tuple(expected):
        return (
            f"the audit row seq {seq} was stored with other values than written: a trigger or rule "
            "memwarden did not create changed it (run memwarden audit verify); the write is refused"
        )
    if head is None or tuple(head) != (seq, digest):
        return (
            f"the audit head did not move to row seq {seq}: its trigger did not run (disabled, "
            "replaced, or skipped; run memwarden audit verify); the write is refused"
        )
    return None
