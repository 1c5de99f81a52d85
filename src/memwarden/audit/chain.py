"""Verify an audit log's hash chain and say where it breaks.

Walks the rows in seq order and checks, for each: its seq follows the previous one; its
``prev_hash`` is the previous row's hash (or the prune checkpoint's / ``GENESIS`` for the first
row); its own hash matches its content. At the end the newest row must be the head the database
recorded, which catches a truncated tail. Works on any ``AuditLog`` (live database or backup).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from memwarden.audit.base import GENESIS, AuditLog, AuditRecord, ChainHead, Checkpoint, chain_hash


@dataclass(frozen=True, slots=True)
class ChainProblem:
    """One break: ``position`` is the 1-based place of the row in seq order (0: after the end)."""

    position: int
    seq: Any
    kind: str  # edited | broken_link | missing_rows | bad_seq | missing_start | truncated | beyond_head | anchor
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {"position": self.position, "seq": self.seq, "kind": self.kind, "message": self.message}


@dataclass(frozen=True, slots=True)
class VerifyReport:
    ok: bool
    rows: int
    first_seq: int | None
    last_seq: int | None
    head: ChainHead
    checkpoints: int
    problems: list[ChainProblem] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok, "rows": self.rows, "first_seq": self.first_seq, "last_seq": self.last_seq,
            "head": {"seq": self.head.seq, "hash": self.head.hash}, "checkpoints": self.checkpoints,
            "problems": [p.to_dict() for p in self.problems],
        }

    def summary(self) -> str:
        if self.ok:
            span = f"seq {self.first_seq}..{self.last_seq}" if self.rows else "no rows"
            return f"audit chain intact: {self.rows} rows ({span}), head {self.head.hash[:16]}…"
        first = self.problems[0]
        return f"audit chain BROKEN: {len(self.problems)} problem(s); first at position {first.position}: {first.message}"


def _start_anchor(first: AuditRecord, checkpoints: list[Checkpoint]) -> tuple[str | None, str | None]:
    """The hash the first stored row must link to, or a problem message when none exists."""
    if first.seq == 1:
        return GENESIS, None
    for cp in checkpoints:
        if isinstance(first.seq, int) and cp.upto_seq == first.seq - 1:
            return cp.upto_hash, None
    return None, (
        f"the log starts at seq {first.seq}, but no prune checkpoint covers the rows before it: "
        "rows were deleted from the start"
    )


def _check_anchor(anchor: tuple[int, str], row: AuditRecord, position: int) -> ChainProblem | None:
    if row.hash == anchor[1]:
        return None
    return ChainProblem(position, row.seq, "anchor",
                        f"row seq {anchor[0]} has hash {str(row.hash)[:16]}…, not the anchor {anchor[1][:16]}… "
                        "recorded earlier: the chain was rewritten from here or before")


def verify_records(records: Iterable[AuditRecord], head: ChainHead, checkpoints: list[Checkpoint],
                   anchor: tuple[int, str] | None = None) -> VerifyReport:
    """``anchor`` is a (seq, hash) pair noted earlier (e.g. from a past verify): the chain must
    still hold that row with that hash, which catches a chain rewritten whole."""
    problems: list[ChainProblem] = []
    anchor_seen = anchor is None
    previous: AuditRecord | None = None
    first_seq: int | None = None
    position = 0
    for row in records:
        position += 1
        expected: str | None
        if previous is None:
            first_seq = row.seq
            expected, missing = _start_anchor(row, checkpoints)
            if missing:
                problems.append(ChainProblem(position, row.seq, "missing_start", missing))
        else:
            expected = previous.hash
            if not isinstance(row.seq, int) or not isinstance(previous.seq, int) or row.seq <= previous.seq:
                problems.append(ChainProblem(position, row.seq, "bad_seq",
                                             f"seq {row.seq!r} does not follow seq {previous.seq!r}: a row was inserted"))
                expected = None
            elif row.seq != previous.seq + 1:
                problems.append(ChainProblem(
                    position, row.seq, "missing_rows",
                    f"rows seq {previous.seq + 1}..{row.seq - 1} are missing between positions "
                    f"{position - 1} and {position}: they were deleted",
                ))
                expected = None
        if expected is not None and row.prev_hash != expected:
            problems.append(ChainProblem(
                position, row.seq, "broken_link",
                f"row seq {row.seq} does not link to the row before it (prev_hash differs): "
                "a row was inserted, replaced or moved here",
            ))
        if anchor is not None and row.seq == anchor[0]:
            anchor_seen = True
            mismatch = _check_anchor(anchor, row, position)
            if mismatch is not None:
                problems.append(mismatch)
        if chain_hash(row.prev_hash, row.hashed_fields()) != row.hash:
            problems.append(ChainProblem(
                position, row.seq, "edited",
                f"row seq {row.seq} does not match its own hash: its content was edited",
            ))
        previous = row
    if not anchor_seen and anchor is not None:
        pruned = next((cp for cp in checkpoints if cp.upto_seq == anchor[0]), None)
        if pruned is not None and pruned.upto_hash != anchor[1]:
            problems.append(ChainProblem(0, anchor[0], "anchor", f"the checkpoint at seq {anchor[0]} does not "
                                                                  "hold the anchor hash: the chain was rewritten"))
        elif pruned is None and not any(cp.upto_seq > anchor[0] for cp in checkpoints):
            problems.append(ChainProblem(0, anchor[0], "anchor",
                                         f"the anchor row seq {anchor[0]} is not in the log: rows were removed"))
    base_seq = max((cp.upto_seq for cp in checkpoints), default=0)
    last_seq = previous.seq if previous is not None else None
    if previous is None:
        if head.seq > base_seq:
            problems.append(ChainProblem(
                0, None, "truncated",
                f"the log is empty but the head records seq {head.seq}: rows {base_seq + 1}..{head.seq} were removed",
            ))
    elif isinstance(previous.seq, int) and previous.seq < head.seq:
        problems.append(ChainProblem(
            position + 1, previous.seq + 1, "truncated",
            f"the log ends at seq {previous.seq} but the head records seq {head.seq}: "
            f"rows {previous.seq + 1}..{head.seq} were cut from the end",
        ))
    elif previous.seq != head.seq or previous.hash != head.hash:
        problems.append(ChainProblem(
            position, previous.seq, "beyond_head",
            f"the newest row (seq {previous.seq}) is not the head the database recorded (seq {head.seq}): "
            "rows were added or changed outside memwarden",
        ))
    return VerifyReport(
        ok=not problems, rows=position, first_seq=first_seq, last_seq=last_seq, head=head,
        checkpoints=len(checkpoints), problems=problems,
    )


def verify_log(log: AuditLog, anchor: tuple[int, str] | None = None) -> VerifyReport:
    """Verify every row of ``log`` against its chain, checkpoints, head (and an optional anchor)."""
    with log.snapshot():
        return verify_records(log.records(), log.head(), log.checkpoints(), anchor)
