"""The upgrade's identifier rewrite: every value it leaves is allowed, and it never merges two
projects or threads of one tenant (store/identifier_rewrite.py)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memwarden.identifiers import MAX_PROJECT_CHARS, MAX_TAG_CHARS, first_refused
from memwarden.store.identifier_rewrite import IdentifierRow, plan_rewrites

# Characters the policy refuses, mixed with ordinary ones and their look-alike stand-ins.
NAMES = st.text(
    alphabet=st.sampled_from("ab <>&\"'`\n\t\r\x1b\x85\u200b\u2028\u2039\u203a\uff1c-~"),
    min_size=1,
    max_size=8,
)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["t1", "t2"]), NAMES, st.lists(NAMES, max_size=3, unique=True), NAMES),
        max_size=12,
    )
)
def test_rewritten_identifiers_are_allowed_and_groups_stay_apart(
    rows: list[tuple[str, str, list[str], str]],
) -> None:
    stored = [
        IdentifierRow(i, tenant, project, "fact", tuple(tags), thread)
        for i, (tenant, project, tags, thread) in enumerate(rows)
    ]
    report = plan_rewrites(stored)
    rewritten = {r.key: r for r in report.rewrites}
    after = {}
    for row in stored:
        new = rewritten.get(row.key)
        project, tags, thread = (
            (new.project, new.tags, new.thread) if new else (row.project, row.tags, row.thread)
        )
        for value in (project, thread, *tags):
            assert first_refused(value) is None, value
        assert len(project) <= MAX_PROJECT_CHARS and all(len(t) <= MAX_TAG_CHARS for t in tags)
        after[row.key] = (project, thread)
    for a in stored:
        for b in stored:
            if a.tenant == b.tenant:
                assert (a.project == b.project) == (after[a.key][0] == after[b.key][0])
                assert (a.thread == b.thread) == (after[a.key][1] == after[b.key][1])
    # Rows whose values are all allowed are left alone, and a second pass finds nothing to do.
    for row in stored:
        if all(first_refused(v) is None for v in (row.project, row.kind, row.thread, *row.tags)):
            assert row.key not in rewritten
    again = [
        IdentifierRow(
            k,
            stored[k].tenant,
            project,
            "fact",
            rewritten[k].tags if k in rewritten else stored[k].tags,
            thread,
        )
        for k, (project, thread) in after.items()
    ]
    assert plan_rewrites(again).rewrites == []


def test_a_clean_database_needs_no_rewrite() -> None:
    rows = [
        IdentifierRow(1, "t", "crm", "fact", ("contact",), "chat-1"),
        IdentifierRow(2, "t", "ops", "note", (), ""),
    ]
    report = plan_rewrites(rows)
    assert report.rewrites == [] and report.values == []


def test_the_report_names_each_rewritten_value_once_with_its_count() -> None:
    rows = [IdentifierRow(i, "t", "a\nb", "fact", ("x<y",), "") for i in range(3)]
    report = plan_rewrites(rows)
    assert len(report.rewrites) == 3
    assert report.values == [("project", "a\nb", "a b", 3), ("tag", "x<y", "x\u2039y", 3)]
