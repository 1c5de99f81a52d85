"""SQLite migration steps from 0013 on (``migrations.py`` lists them; it had grown past 550 lines).

- ``0013_provenance``: memories gain ``source`` (the route that wrote them: ``models.SOURCES``)
  and ``actor``. Rows already stored get the best value the database itself can vouch for: the
  first ``add`` or ``import`` audit row naming the memory gives the actor, and ``import`` as the
  source when that row was an import; the audit log never recorded the route of an add, so
  those stay ``unknown``. Rows with no such audit row (auditing off, rows pruned) keep
  ``unknown`` and an empty actor.
- ``0014_safe_identifiers``: projects, kinds, tags and threads the character policy refuses are
  rewritten (``store/identifier_rewrite.py``); the keyword index is rebuilt at the next start
  (its scope token holds the project), and a rewritten project drops the memory's vector (the
  existing trigger), which the backfill embeds again.
"""

from __future__ import annotations

import json
import sqlite3

from memwarden.store.identifier_rewrite import IdentifierRow, log_report, plan_rewrites


def provenance(conn: sqlite3.Connection) -> None:
    conn.execute("ALTER TABLE memories ADD COLUMN source TEXT NOT NULL DEFAULT 'unknown'")
    conn.execute("ALTER TABLE memories ADD COLUMN actor TEXT NOT NULL DEFAULT ''")
    conn.execute(
        """
        UPDATE memories SET
            source = CASE w.action WHEN 'import' THEN 'import' ELSE 'unknown' END,
            actor = w.actor
        FROM (
            SELECT amw.memory_id AS memory_id, a.action AS action, a.actor AS actor, a.tenant AS tenant,
                   ROW_NUMBER() OVER (PARTITION BY amw.memory_id ORDER BY a.seq) AS n
            FROM audit_memory_writes amw JOIN audit_log a ON a.seq = amw.seq
            WHERE a.action IN ('add', 'import') AND a.outcome = 'ok' AND typeof(a.actor) = 'text'
        ) AS w
        WHERE w.n = 1 AND w.memory_id = memories.id AND w.tenant = memories.tenant
        """
    )


# A value that may hold a refused character: anything outside printable ASCII, or markup. The
# tags column is JSON text, where a control character or a quote is written with a backslash.
_SUSPECT = "({c} GLOB '*[^ -~]*' OR {c} GLOB '*[<>&\"''`]*')"
_SUSPECT_TAGS = "(tags GLOB '*[^ -~]*' OR tags GLOB '*[<>&''`\\]*')"


def safe_identifiers(conn: sqlite3.Connection) -> None:
    suspect = " OR ".join([*(_SUSPECT.format(c=c) for c in ("project", "kind", "thread")), _SUSPECT_TAGS])
    rows = [
        IdentifierRow(rowid, tenant, project, kind, tuple(json.loads(tags)), thread)
        for rowid, tenant, project, kind, tags, thread in conn.execute(
            f"SELECT rowid, tenant, project, kind, tags, thread FROM memories WHERE {suspect}"
        )
    ]
    if not rows:
        return
    report = plan_rewrites(
        rows,
        projects=conn.execute("SELECT DISTINCT tenant, project FROM memories").fetchall(),
        threads=conn.execute("SELECT DISTINCT tenant, thread FROM memories").fetchall(),
    )
    if not report.rewrites:
        return
    conn.executemany(
        "UPDATE memories SET project = ?, kind = ?, tags = ?, thread = ? WHERE rowid = ?",
        [
            (r.project, r.kind, json.dumps(list(r.tags), ensure_ascii=False), r.thread, r.key)
            for r in report.rewrites
        ],
    )
    conn.execute("DELETE FROM index_state WHERE key = 'analyzer'")
    log_report("0014_safe_identifiers", report)
