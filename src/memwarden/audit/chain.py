"""Verify an audit log's hash chain and say where it breaks.

Walks the rows in seq order and checks, for each: its seq follows the previous one; its
``prev_hash`` is the previous row's hash (or the prune checkpoint's / ``GENESIS`` for the first
row); its own hash matches its content. At the end the newest row must be the head the database
recorded, which catches a truncated tail. Works on any ``AuditLog`` (live database or backup).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from memwarden.audit.base import GENESIS, AuditLog, AuditRecord, ChainHead, Checkpoint, chain_hash
from memwarden.audit.guards import describe, problem_kind
from memwarden.audit.keys import key_id_of
from memwarden.errors import InvalidInput, StorageError

if TYPE_CHECKING:  # pragma: no cover
    from memwarden.audit.keys import AuditKey

# A row stamped this much before the row ahead of it means the clock went back (replicas on
# several hosts may disagree by a little; stamps are taken under the chain lock).
CLOCK_BACK_TOLERANCE = timedelta(seconds=5)
# A row stamped this far ahead of the verifier's clock means a clock was (or is) set forward.
CLOCK_AHEAD_TOLERANCE = timedelta(minutes=10)


@dataclass(frozen=True, slots=True)
class ChainProblem:
    """One break: ``position`` is the 1-based place of the row in seq order (0: after the end)."""

    position: int
    seq: Any
    # edited | broken_link | missing_rows | bad_seq | missing_start | truncated | beyond_head | anchor
    # | rolled_back | forged_checkpoint | downgrade | wrong_key | unkeyed | unreadable
    # (clock_back | clock_ahead: clock_jumps; unguarded | foreign | index_edited: guards)
    kind: str
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
    mode: str = "empty"  # empty | sha256 | hmac-sha256 | mixed (plain rows, then keyed ones) | unknown
    keyed_from: int | None = None
    key_ids: list[str] = field(default_factory=list)
    unchecked_keyed_rows: int = 0
    clock_jumps: list[ChainProblem] = field(default_factory=list)
    # The database's append-only triggers that are missing, disabled or changed (kind
    # ``unguarded``), and triggers, rules, views or policies memwarden did not create (kind
    # ``foreign``); seq: the object's name. Kept apart from ``problems`` (no row is shown wrong
    # by them) but not from ``ok``: rows dropped or hidden by them leave no trace in the chain.
    guards: list[ChainProblem] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "rows": self.rows,
            "first_seq": self.first_seq,
            "last_seq": self.last_seq,
            "head": {"seq": self.head.seq, "hash": self.head.hash},
            "checkpoints": self.checkpoints,
            "problems": [p.to_dict() for p in self.problems],
            "mode": self.mode,
            "keyed_from": self.keyed_from,
            "key_ids": self.key_ids,
            "unchecked_keyed_rows": self.unchecked_keyed_rows,
            "clock_jumps": [p.to_dict() for p in self.clock_jumps],
            "guards": [p.to_dict() for p in self.guards],
            "verified": self.verified,
            "state": self.state,
        }

    def mode_line(self) -> str:
        if self.mode in ("empty", "sha256", "unknown"):
            return f"mode {self.mode}"
        return f"mode {self.mode} (keyed from seq {self.keyed_from}, key id {', '.join(self.key_ids)})"

    @property
    def verified(self) -> bool:
        """Intact, and every row's content checked (no keyed row left unchecked for want of the key)."""
        return self.ok and not self.unchecked_keyed_rows

    @property
    def state(self) -> str:
        """``intact``, ``broken`` (a row or link is wrong) or ``not_verified`` (the rows that are
        there link up, but the database's guards are not memwarden's, or keyed rows were not
        checked for want of the key)."""
        return "broken" if self.problems else "intact" if self.verified else "not_verified"

    def summary(self) -> str:
        span = f"seq {self.first_seq}..{self.last_seq}" if self.rows else "no rows"
        if self.problems:
            first = self.problems[0]
            return (
                f"audit chain BROKEN: {len(self.problems)} problem(s); first at position {first.position}: "
                f"{first.message}"
            )
        jumps = f"; {len(self.clock_jumps)} clock jump(s)" if self.clock_jumps else ""
        if self.state == "intact":
            return (
                f"audit chain intact: {self.rows} rows ({span}), head {self.head.hash[:16]}…, "
                f"{self.mode_line()}{jumps}"
            )
        why = []
        guards = [g for g in self.guards if g.kind != "index_edited"]
        if guards:
            why.append(
                f"{len(guards)} append-only guard(s) of the database are gone, changed or not "
                "memwarden's (a foreign trigger, rule, view or policy can drop or hide rows without a trace)"
            )
        if len(guards) < len(self.guards):
            why.append(
                "the index of each memory's audited writes (audit_memory_writes) was edited: memory "
                "pages show a history with writes hidden or added"
            )
        if self.unchecked_keyed_rows:
            why.append(
                f"the content of {self.unchecked_keyed_rows} keyed rows was NOT checked: give the key "
                "(MEMWARDEN_AUDIT_KEY_FILE)"
            )
        return (
            f"audit chain NOT VERIFIED: {'; and '.join(why)}. The {self.rows} rows present ({span}) link "
            f"up, head {self.head.hash[:16]}…, {self.mode_line()}{jumps}"
        )


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
    return ChainProblem(
        position,
        row.seq,
        "anchor",
        f"row seq {anchor[0]} has hash {str(row.hash)[:16]}…, not the anchor {anchor[1][:16]}… "
        "recorded earlier: the chain was rewritten from here or before",
    )


@dataclass
class _Modes:
    """What kind of hashes the rows carry, and what could be checked."""

    key: AuditKey | None
    plain: int = 0
    keyed_from: int | None = None
    key_ids: list[str] = field(default_factory=list)
    unchecked: int = 0

    def check(self, row: AuditRecord, position: int) -> ChainProblem | None:
        kid = key_id_of(row.hash)
        if kid is None:
            self.plain += 1
            if self.keyed_from is not None:
                return ChainProblem(
                    position,
                    row.seq,
                    "downgrade",
                    f"row seq {row.seq} has a plain SHA-256 hash after keyed rows: it was "
                    "written (or rewritten) by someone without the chain key",
                )
            if chain_hash(row.prev_hash, row.hashed_fields()) != row.hash:
                return _edited(row, position)
            return None
        if self.keyed_from is None:
            self.keyed_from = row.seq
        if kid not in self.key_ids:
            self.key_ids.append(kid)
        if self.key is None:
            self.unchecked += 1
            return None
        if kid != self.key.key_id:
            return ChainProblem(
                position,
                row.seq,
                "wrong_key",
                f"row seq {row.seq} was signed with key id {kid}, not the given key "
                f"({self.key.key_id}): give the key that signed it",
            )
        if chain_hash(row.prev_hash, row.hashed_fields(), self.key) != row.hash:
            return _edited(row, position)
        return None

    def unkeyed(self, rows: int) -> ChainProblem | None:
        """With a key, a chain that holds rows must hold a keyed one: its HMAC covers its seq and
        ``prev_hash``, so it vouches for every plain row before it, and nobody without the key
        can move where the keyed rows begin. Without any, the plain rows vouch for nothing."""
        if self.key is None or rows == 0 or self.keyed_from is not None:
            return None
        return ChainProblem(
            0,
            None,
            "unkeyed",
            f"a chain key is given (key id {self.key.key_id}), but none of its {rows} rows is keyed: "
            "plain SHA-256 rows can be computed by anyone, so the chain may have been rewritten without "
            "the key (every keyed row replaced by a plain one). If the key was configured after the "
            "last write, this is expected: the next write starts the keyed part; check with "
            "`--anchor-file` or an older `--anchor SEQ:HASH` that the chain was not rewritten before "
            "trusting it",
        )

    @property
    def mode(self) -> str:
        if self.keyed_from is None:
            return "sha256" if self.plain else "empty"
        return "mixed" if self.plain else "hmac-sha256"


def _edited(row: AuditRecord, position: int) -> ChainProblem:
    return ChainProblem(
        position, row.seq, "edited", f"row seq {row.seq} does not match its own hash: its content was edited"
    )


def _prune_detail(row: AuditRecord) -> dict[str, Any] | None:
    """The checkpoint a ``prune`` row vouches for (None for other rows or one that pruned nothing)."""
    if row.action != "prune":
        return None
    try:
        detail = json.loads(row.detail) if isinstance(row.detail, str) else row.detail
    except json.JSONDecodeError:
        return None
    if not isinstance(detail, dict) or not isinstance(detail.get("upto_seq"), int):
        return None
    return detail


def _checkpoint_problems(
    checkpoints: list[Checkpoint], prunes: dict[int, dict[str, Any]]
) -> list[ChainProblem]:
    """Each checkpoint must be vouched for: by its own ``prune`` row, or (once that row was
    pruned in turn) by the ``previous_upto_seq`` of the next checkpoint's vouched prune row. A
    prune row written before memwarden recorded ``previous_upto_seq`` vouches for every older
    checkpoint (it cannot say which)."""
    problems: list[ChainProblem] = []
    vouched_back: int | None = None  # the checkpoint the newer vouched prune row names
    legacy = False
    for index, cp in enumerate(reversed(checkpoints)):
        detail = prunes.get(cp.upto_seq)
        if detail is not None and detail.get("upto_hash", cp.upto_hash) != cp.upto_hash:
            problems.append(
                ChainProblem(
                    0,
                    cp.upto_seq,
                    "forged_checkpoint",
                    f"the checkpoint at seq {cp.upto_seq} does not hold the hash its prune "
                    "row recorded: it was replaced",
                )
            )
            continue
        vouched = detail is not None or legacy or (index > 0 and vouched_back == cp.upto_seq)
        if not vouched:
            problems.append(
                ChainProblem(
                    0,
                    cp.upto_seq,
                    "forged_checkpoint",
                    f"the checkpoint up to seq {cp.upto_seq} has no prune row in the chain: rows up to seq "
                    f"{cp.upto_seq} were deleted outside `memwarden audit prune` and the checkpoint forged",
                )
            )
            vouched_back = None
            continue
        if detail is not None:
            legacy = "previous_upto_seq" not in detail
            vouched_back = detail.get("previous_upto_seq")
    return problems


def _parse_at(value: Any) -> datetime | None:
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _clock_jump(
    row: AuditRecord, previous_at: datetime | None, now: datetime, position: int
) -> ChainProblem | None:
    at = _parse_at(row.at)
    if at is None:
        return None
    if previous_at is not None and at < previous_at - CLOCK_BACK_TOLERANCE:
        return ChainProblem(
            position,
            row.seq,
            "clock_back",
            f"row seq {row.seq} is stamped {row.at}, {(previous_at - at).total_seconds():.0f} s "
            "before the row ahead of it: the clock went back",
        )
    if at > now + CLOCK_AHEAD_TOLERANCE:
        return ChainProblem(
            position,
            row.seq,
            "clock_ahead",
            f"row seq {row.seq} is stamped {row.at}, {(at - now).total_seconds():.0f} s ahead of "
            "this machine's clock: a clock was set forward",
        )
    return None


def verify_records(
    records: Iterable[AuditRecord],
    head: ChainHead,
    checkpoints: list[Checkpoint],
    anchor: tuple[int, str] | None = None,
    *,
    key: AuditKey | None = None,
    now: datetime | None = None,
) -> VerifyReport:
    """``anchor`` is a (seq, hash) pair noted earlier (e.g. from a past verify): the chain must
    still hold that row with that hash, which catches a chain rewritten whole. ``key`` checks
    keyed rows; ``now`` is the wall clock rows are compared with (default: this machine's)."""
    problems: list[ChainProblem] = []
    modes = _Modes(key)
    prunes: dict[int, dict[str, Any]] = {}
    jumps: list[ChainProblem] = []
    wall = now or datetime.now(UTC)
    newest_at: datetime | None = None
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
                problems.append(
                    ChainProblem(
                        position,
                        row.seq,
                        "bad_seq",
                        f"seq {row.seq!r} does not follow seq {previous.seq!r}: a row was inserted",
                    )
                )
                expected = None
            elif row.seq != previous.seq + 1:
                problems.append(
                    ChainProblem(
                        position,
                        row.seq,
                        "missing_rows",
                        f"rows seq {previous.seq + 1}..{row.seq - 1} are missing between positions "
                        f"{position - 1} and {position}: they were deleted",
                    )
                )
                expected = None
        if expected is not None and row.prev_hash != expected:
            problems.append(
                ChainProblem(
                    position,
                    row.seq,
                    "broken_link",
                    f"row seq {row.seq} does not link to the row before it (prev_hash differs): "
                    "a row was inserted, replaced or moved here",
                )
            )
        if anchor is not None and row.seq == anchor[0]:
            anchor_seen = True
            mismatch = _check_anchor(anchor, row, position)
            if mismatch is not None:
                problems.append(mismatch)
        content = modes.check(row, position)
        if content is not None:
            problems.append(content)
        prune = _prune_detail(row)
        if prune is not None:
            prunes[prune["upto_seq"]] = prune
        jump = _clock_jump(row, newest_at, wall, position)
        if jump is not None:
            jumps.append(jump)
        stamped = _parse_at(row.at)
        if stamped is not None and (newest_at is None or stamped > newest_at):
            newest_at = stamped
        previous = row
    problems.extend(_checkpoint_problems(checkpoints, prunes))
    unkeyed = modes.unkeyed(position)
    if unkeyed is not None:
        problems.append(unkeyed)
    if not anchor_seen and anchor is not None:
        pruned = next((cp for cp in checkpoints if cp.upto_seq == anchor[0]), None)
        if pruned is not None and pruned.upto_hash != anchor[1]:
            problems.append(
                ChainProblem(
                    0,
                    anchor[0],
                    "anchor",
                    f"the checkpoint at seq {anchor[0]} does not "
                    "hold the anchor hash: the chain was rewritten",
                )
            )
        elif pruned is None and head.seq < anchor[0]:
            problems.append(
                ChainProblem(
                    0,
                    anchor[0],
                    "rolled_back",
                    f"the database's head is seq {head.seq}, but the anchor recorded seq {anchor[0]}: the newest "
                    f"{anchor[0] - head.seq} acknowledged rows are gone (a damaged or lost -wal file, a restored "
                    "backup or a rolled-back database); the memory writes of that time may be gone too",
                )
            )
        elif pruned is None and not any(cp.upto_seq > anchor[0] for cp in checkpoints):
            problems.append(
                ChainProblem(
                    0,
                    anchor[0],
                    "anchor",
                    f"the anchor row seq {anchor[0]} is not in the log: rows were removed",
                )
            )
    base_seq = max((cp.upto_seq for cp in checkpoints), default=0)
    last_seq = previous.seq if previous is not None else None
    if previous is None:
        if head.seq > base_seq:
            problems.append(
                ChainProblem(
                    0,
                    None,
                    "truncated",
                    f"the log is empty but the head records seq {head.seq}: rows {base_seq + 1}..{head.seq} were removed",
                )
            )
    elif isinstance(previous.seq, int) and previous.seq < head.seq:
        problems.append(
            ChainProblem(
                position + 1,
                previous.seq + 1,
                "truncated",
                f"the log ends at seq {previous.seq} but the head records seq {head.seq}: "
                f"rows {previous.seq + 1}..{head.seq} were cut from the end",
            )
        )
    elif previous.seq != head.seq or previous.hash != head.hash:
        problems.append(
            ChainProblem(
                position,
                previous.seq,
                "beyond_head",
                f"the newest row (seq {previous.seq}) is not the head the database recorded (seq {head.seq}): "
                "rows were added or changed outside memwarden",
            )
        )
    return VerifyReport(
        ok=not problems,
        rows=position,
        first_seq=first_seq,
        last_seq=last_seq,
        head=head,
        checkpoints=len(checkpoints),
        problems=problems,
        mode=modes.mode,
        keyed_from=modes.keyed_from,
        key_ids=modes.key_ids,
        unchecked_keyed_rows=modes.unchecked,
        clock_jumps=jumps,
    )


def verify_log(
    log: AuditLog,
    anchor: tuple[int, str] | None = None,
    *,
    key: AuditKey | None = None,
    now: datetime | None = None,
) -> VerifyReport:
    """Verify every row of ``log`` against its chain, checkpoints, head (and an optional anchor),
    and that the database's append-only guards are in place (``guard_problems``, when the
    backend has it). A log that cannot be read (a damaged page) is a failed verification with
    kind ``unreadable``, not an exception. Without ``key``, a log opened with one (the
    service's own) is checked with it; without ``anchor``, the anchor file its auditor keeps."""
    if key is None:
        key = getattr(log, "key", None)
    kept = getattr(log, "anchor_file", None) if anchor is None else None
    if kept is not None:  # the service's own log: its anchor file, as `audit verify` reads it
        try:
            anchor = kept.read()
        except InvalidInput as exc:
            return _unreadable(StorageError(exc.message), 0)
    read = 0

    def counted(rows: Iterable[AuditRecord]) -> Iterator[AuditRecord]:
        nonlocal read
        for row in rows:
            read += 1
            yield row

    try:
        with log.snapshot():
            report = verify_records(
                counted(log.records()), log.head(), log.checkpoints(), anchor, key=key, now=now
            )
        guards = _guards(log)
    except StorageError as exc:
        return _unreadable(exc, read)
    if not guards:
        return report
    return replace(report, ok=False, guards=guards)


def _guards(log: AuditLog) -> list[ChainProblem]:
    """What the backend finds around its tables (``audit/guards.py``), as problems."""
    check = getattr(log, "guard_problems", None)
    if not callable(check):
        return []
    return [ChainProblem(0, f.name, problem_kind(f), describe(f)) for f in check()]


def _unreadable(exc: StorageError, read: int) -> VerifyReport:
    return VerifyReport(
        ok=False,
        rows=read,
        first_seq=None,
        last_seq=None,
        head=ChainHead(0, ""),
        checkpoints=0,
        problems=[
            ChainProblem(
                read + 1 if read else 0,
                None,
                "unreadable",
                f"the audit log could not be verified{f' past row {read}' if read else ''}: {exc.message}",
            )
        ],
        mode="unknown",
    )


# A purge or vacuum refuses (without --force) when the clock reads more than this after the
# newest audit row: a clock set forward would purge memories before they really expired.
PURGE_CLOCK_JUMP = timedelta(days=1)


def recent_clock_jumps(
    log: AuditLog, now: datetime, window: timedelta = timedelta(days=1)
) -> list[ChainProblem]:
    """Clock jumps among the rows stamped within ``window`` of the newest one, and rows stamped
    ahead of ``now``: the cheap check health runs (``audit verify`` checks every row)."""
    latest = _parse_at(log.latest_stamp())
    if latest is None:
        return []
    jumps: list[ChainProblem] = []
    newest_at: datetime | None = None
    with log.snapshot():
        for position, row in enumerate(log.records(since=min(latest, now) - window), start=1):
            jump = _clock_jump(row, newest_at, now, position)
            if jump is not None:
                jumps.append(jump)
            stamped = _parse_at(row.at)
            if stamped is not None and (newest_at is None or stamped > newest_at):
                newest_at = stamped
    return jumps
