"""The schema upgrade that makes identifiers stored before the character policy allowed ones.

Projects, kinds, tags and threads written before ``memwarden.identifiers`` refused control
characters, line breaks and markup (or written by a foreign writer) can still hold them, and a
project name could then close a recall block. The upgrade rewrites each such value with
``escape_identifier``; both backends run it as a migration step (``plan_rewrites`` decides, the
backend applies the changed rows in the migration's transaction).

Two different projects (or threads) of one tenant are never merged by the rewrite: the escape
is not injective, and merging would put two live copies of one content in one project (the
exact-dedup index refuses that) and mix groups the user kept apart. When an escaped name is
already taken in the tenant, ``~`` and 8 hex digits of the original's SHA-256 are appended.
Tags are a set on each memory, so two tags that escape alike simply become one.

What was rewritten is logged (a warning per distinct value, the values shown escaped with
``repr``, capped) and returned, so the upgrade leaves a note on stderr and in the log file.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from memwarden.digests import sha256
from memwarden.identifiers import (
    MAX_PROJECT_CHARS,
    MAX_TAG_CHARS,
    MAX_THREAD_CHARS,
    escape_identifier,
    first_refused,
)
from memwarden.logs import get_logger

logger = get_logger(__name__)
# Distinct rewritten values named one by one in the log; the rest are counted.
LOGGED_VALUES = 50


class IdentifierRow(NamedTuple):
    """The identifier columns of one stored memory (``key`` is the backend's row key)."""

    key: Any
    tenant: str
    project: str
    kind: str
    tags: tuple[str, ...]
    thread: str


class Rewrite(NamedTuple):
    """The new identifier values of one row (all four, changed or not)."""

    key: Any
    project: str
    kind: str
    tags: tuple[str, ...]
    thread: str


class RewriteReport(NamedTuple):
    rewrites: list[Rewrite]
    # (field, old value, new value, memories changed), one per distinct value
    values: list[tuple[str, str, str, int]]


def _unique(escaped: str, original: str, taken: set[str], limit: int) -> str:
    if escaped not in taken:
        return escaped
    suffix = "~" + sha256(original.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return escaped[: max(0, limit - len(suffix))].rstrip() + suffix


def _grouping_names(
    rows: Sequence[IdentifierRow], field: str, limit: int, known: Iterable[tuple[str, str]]
) -> dict[tuple[str, str], str]:
    """(tenant, old) → new for every refused project or thread value, kept apart from every
    other name of the tenant (see the module docstring); ``known`` adds (tenant, name) of rows
    the backend did not pass."""
    names: dict[str, set[str]] = {}
    for row in rows:
        names.setdefault(row.tenant, set()).add(getattr(row, field))
    for tenant, name in known:
        names.setdefault(tenant, set()).add(name)
    mapping: dict[tuple[str, str], str] = {}
    for tenant, values in names.items():
        taken = {value for value in values if first_refused(value) is None}
        for value in sorted(values - taken):
            new = _unique(escape_identifier(value, max_chars=limit), value, taken, limit)
            taken.add(new)
            mapping[(tenant, value)] = new
    return mapping


def plan_rewrites(
    rows: Iterable[IdentifierRow],
    *,
    projects: Iterable[tuple[str, str]] = (),
    threads: Iterable[tuple[str, str]] = (),
) -> RewriteReport:
    """The rows whose identifiers the policy refuses, with their allowed values.

    A backend may pass only the rows that can hold a refused value (its SQL finds those far
    faster than Python reads every row); it then passes every stored (tenant, project) and
    (tenant, thread) as ``projects`` and ``threads``, so a new name never takes one in use."""
    every = list(rows)
    project_names = _grouping_names(every, "project", MAX_PROJECT_CHARS, projects)
    thread_names = _grouping_names(every, "thread", MAX_THREAD_CHARS, threads)
    counts: dict[tuple[str, str, str], int] = {}
    rewrites: list[Rewrite] = []
    for row in every:
        project = project_names.get((row.tenant, row.project), row.project)
        thread = thread_names.get((row.tenant, row.thread), row.thread)
        kind = escape_identifier(row.kind)
        tags = tuple(dict.fromkeys(escape_identifier(tag, max_chars=MAX_TAG_CHARS) for tag in row.tags))
        if (project, kind, tags, thread) == (row.project, row.kind, row.tags, row.thread):
            continue
        rewrites.append(Rewrite(row.key, project, kind, tags, thread))
        changed = [
            ("project", row.project, project),
            ("kind", row.kind, kind),
            ("thread", row.thread, thread),
        ]
        changed += [("tag", tag, escape_identifier(tag, max_chars=MAX_TAG_CHARS)) for tag in row.tags]
        for field, old, new in changed:
            if old != new:
                counts[(field, old, new)] = counts.get((field, old, new), 0) + 1
    values = [(field, old, new, n) for (field, old, new), n in sorted(counts.items())]
    return RewriteReport(rewrites, values)


def log_report(step: str, report: RewriteReport) -> None:
    """The upgrade's note: what was rewritten, value by value (escaped with ``repr``)."""
    if not report.rewrites:
        return
    logger.warning(
        "schema upgrade %s: %d memories held identifiers with control characters, line breaks or "
        "markup, now refused; they were rewritten to allowed values (nothing else changed):",
        step,
        len(report.rewrites),
    )
    for field, old, new, n in report.values[:LOGGED_VALUES]:
        logger.warning("  %s %r -> %r (%d memor%s)", field, old, new, n, "y" if n == 1 else "ies")
    if len(report.values) > LOGGED_VALUES:
        logger.warning("  … and %d more values", len(report.values) - LOGGED_VALUES)
