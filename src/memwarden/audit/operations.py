"""``@audited``: how each service operation becomes one audit row, passed along as a value.

The decorator wraps a method of a service part (``Memories``, ``Searcher``, ``Operations``).
Before the call it builds an ``AuditCall``: who is calling, the action, the project (redacted,
as any stored text) and the query the call names. Then either:

- the method is a read given a *summarizer*: once it returns, the summarizer turns its result
  into memory ids, a result count, the degraded flag and details, and the row is written in its
  own transaction before the result leaves (a read whose row cannot be written fails closed);
- or the method records its own row (``summarize=None``: writes, and searches, whose row commits
  with the hit counts): it receives the ``AuditCall`` as its ``audit`` argument, turns it into
  the ``WriteAudit`` its store call appends inside the write's transaction
  (``audit/write_audit.py``), with the redaction count its intake returned, or records the row
  itself when it wrote nothing (``AuditCall.record``).

When the method raises a memwarden error, the row records the error code as its outcome (a
probe for another tenant's ids shows up as ``not_found``) and the error goes on unchanged.
No state travels beside the call: everything a row holds is in these values.
"""

# No ``from __future__ import annotations``: typing.NamedTuple compiles every string annotation
# into a ForwardRef, a visible share of a cold search's imports (docs/performance.md#cold-start).

import functools
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, TypeVar

# Imported, not only for type checking: AuditCall's fields name them, and a quoted name there
# is a ForwardRef (see above). The service loads both anyway while auditing is on (the default).
from memwarden.audit.auditor import Auditor
from memwarden.errors import MemwardenError, StorageError
from memwarden.logs import get_logger
from memwarden.models import Caller
from memwarden.validation import check_id

if TYPE_CHECKING:  # pragma: no cover
    from memwarden.audit.write_audit import WriteAudit

logger = get_logger(__name__)
F = TypeVar("F", bound=Callable[..., Any])
Summary = dict[str, Any]


class Redacts(Protocol):
    def redact_text(self, text: str) -> str: ...


class AuditedPart(Protocol):
    """What ``@audited`` needs of the object whose methods it wraps."""

    auditor: "Auditor | None"
    default_caller: "Caller"
    intake: Redacts


# Operations that change stored memories: a row that cannot be written refuses them, whatever
# MEMWARDEN_AUDIT_READS_FAIL_OPEN says.
WRITES = ("add", "update", "delete", "import")


class AuditCall(NamedTuple):
    """One call of an audited service method: what its row holds before the method ran."""

    auditor: Auditor
    action: str
    caller: Caller
    project: str | None = None
    query: str | None = None
    detail: Mapping[str, Any] = MappingProxyType({})

    def for_write(
        self, *, redaction_count: int = 0, degraded: bool = False, detail: Mapping[str, Any] | None = None
    ) -> "WriteAudit":
        """The row the store call appends in its own transaction (it adds the ids it wrote)."""
        return self.auditor.for_write(
            self.action,
            self.caller,
            project=self.project,
            query=self.query,
            redaction_count=redaction_count,
            degraded=degraded,
            detail={**self.detail, **(detail or {})},
        )

    def record(self, summary: Summary, *, redaction_count: int = 0, after_rows: bool = False) -> None:
        """Write the row of a call that returned, in its own transaction, before its result
        leaves. When it cannot be written the call is refused (``StorageError``), unless it is a
        read and the auditor lets reads fail open (logged), or ``after_rows``: rows of the
        operation already committed with its writes (an import's batches), so only the summary
        is lost (logged)."""
        fields = {**summary, "detail": {**summary.get("detail", {}), **self.detail}}
        try:
            self.auditor.record(
                self.action,
                self.caller,
                project=self.project,
                query=self.query,
                redaction_count=redaction_count,
                **fields,
            )
        except MemwardenError as exc:
            if after_rows:
                logger.error("the summary row of %s could not be written: %s", self.action, exc.message)
                return
            if self.action in WRITES or not self.auditor.reads_fail_open:
                raise refused_read(self.action, exc, read=self.action not in WRITES) from exc
            logger.error(
                "%s served without its audit row (MEMWARDEN_AUDIT_READS_FAIL_OPEN): %s",
                self.action,
                exc.message,
            )

    def record_failure(self, exc: MemwardenError, memory_ids: list[str]) -> None:
        """The row of a call that raised ``exc`` (its code as the outcome); a failure to write
        it is logged, never raised: the original error matters more."""
        try:
            self.auditor.record(
                self.action,
                self.caller,
                outcome=exc.code,
                memory_ids=memory_ids,
                project=self.project,
                query=self.query,
                **({"detail": dict(self.detail)} if self.detail else {}),
            )
        except MemwardenError as failed:
            # The call failed on the database (read-only, full, damaged): its row fails for the
            # same reason, which the caller's error already says; one more line would repeat it.
            if isinstance(exc, StorageError):
                logger.debug("a failed %s not recorded in the audit log: %s", self.action, failed.message)
                return
            logger.error("could not record a failed %s in the audit log: %s", self.action, failed.message)


def _ids_from_call(
    part: AuditedPart, ids_arg: str, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> list[str]:
    """The ids a failed call asked for (a probe for another tenant's ids is recorded).

    Only the method's own ids argument (``ids_arg``, also its first positional one) is read; a
    value that is not a well-formed id is whatever the caller sent, so it goes into the row the
    way stored text does: redacted first, then cut to the length of an id and a little more."""
    raw = args[0] if args else kwargs.get(ids_arg)
    values = raw if isinstance(raw, (list, tuple)) else [raw]
    ids = []
    for value in values[:100]:
        if not isinstance(value, str):
            continue
        try:
            ids.append(check_id(value))
        except MemwardenError:
            ids.append(part.intake.redact_text(value)[:40])
    return ids


def refused_read(action: str, exc: MemwardenError, *, read: bool = True) -> StorageError:
    """The error of an operation refused because its audit row could not be written.

    A read-only or full database is the place, not the data: its own cause and fix are said
    once (``cause``, from the store), since ``memwarden health`` cannot help with either."""
    condition = exc.fields.get("condition")
    if condition in ("readonly", "full"):
        cause = exc.fields.get("cause") or exc.message
        also = (
            "; to serve reads from a read-only copy, set MEMWARDEN_AUDIT_READS_FAIL_OPEN=true (those reads "
            "go unaudited)"
            if read and condition == "readonly"
            else ""
        )
        return StorageError(
            f"the {action} was refused because its audit row could not be written: {cause}{also}",
            audit_failed=True,
            condition=condition,
        )
    fail_open = (
        ", or set MEMWARDEN_AUDIT_READS_FAIL_OPEN=true to serve reads while their audit rows cannot be written"
        if read
        else ""
    )
    return StorageError(
        f"the {action} was refused because its audit row could not be written ({exc.message}); nothing was "
        f"returned. Fix the database (memwarden health){fail_open}",
        audit_failed=True,
    )


def _named(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The call's arguments, a request object's fields (``memwarden.requests``) counted as named."""
    given = getattr(args[0], "given", None) if args else None
    return ((), {**given(), **kwargs}) if callable(given) else (args, kwargs)


def _projects_of(kwargs: dict[str, Any]) -> tuple[object, list[str]]:
    """The project an audit row names, and every project of a search of several.

    A search of several projects (``Searcher.recall``'s ``projects``) is recorded under the
    first one named, all of them in its detail; under none when it covered every project.
    """
    raw = kwargs.get("projects")
    if not isinstance(raw, (list, tuple)):
        return kwargs.get("project"), []
    named = [p for p in raw if isinstance(p, str)]
    return (None if None in raw or not named else named[0]), named


def audit_call(
    part: AuditedPart, action: str, args: tuple[Any, ...], kwargs: dict[str, Any], *, query_arg: bool
) -> AuditCall | None:
    """The ``AuditCall`` of one call of a method of ``part``; None when auditing is off."""
    auditor = part.auditor
    if auditor is None:
        return None
    call_args, call_kwargs = _named(args, kwargs)
    project, named = _projects_of(call_kwargs)
    query = (call_args[0] if call_args else call_kwargs.get("query")) if query_arg else None
    redact = part.intake.redact_text
    return AuditCall(
        auditor,
        action,
        kwargs.get("caller") or part.default_caller,
        # The project argument as the caller sent it may hold what a rule protects (the write is
        # then refused); the audit row gets it redacted like any stored text.
        project=redact(project) if isinstance(project, str) else None,
        query=query if isinstance(query, str) else None,
        detail={"projects": [redact(p) for p in named]} if len(named) > 1 else MappingProxyType({}),
    )


def audited(
    action: str,
    summarize: Callable[[Any], Summary] | None,
    *,
    query_arg: bool = False,
    ids_arg: str | None = None,
) -> Callable[[F], F]:
    """Record one audit row per call of the decorated service method.

    ``summarize``: a read's summarizer; its row is written once it returns. ``None``: the
    method records its own row through the ``AuditCall`` it gets as ``audit`` (None when
    auditing is off). ``ids_arg``: the name of the method's argument that holds memory ids (its
    first positional one); a failed call records the ids it asked for. A method without one
    records none: the first argument of ``add`` or ``import`` is the caller's text, never an id.
    """

    def wrap(method: F) -> F:
        @functools.wraps(method)
        def run(self: AuditedPart, *args: Any, **kwargs: Any) -> Any:
            call = audit_call(self, action, args, kwargs, query_arg=query_arg)
            if call is None:
                return method(self, *args, **kwargs)
            try:
                if summarize is None:
                    return method(self, *args, audit=call, **kwargs)
                result = method(self, *args, **kwargs)
            except MemwardenError as exc:
                if not exc.fields.get("audit_failed"):  # a refused read was not a failed call
                    ids = _ids_from_call(self, ids_arg, *_named(args, kwargs)) if ids_arg else []
                    call.record_failure(exc, ids)
                raise
            call.record(summarize(result))
            return result

        return run  # type: ignore[return-value]

    return wrap


# -- summarizers: result of the service method → audit fields ---------------------------------


def delete_summary(result: Any) -> Summary:
    return {
        "memory_ids": [result.id],
        "result_count": 0 if result.already_deleted else 1,
        "detail": {"already_deleted": result.already_deleted},
    }


def get_summary(result: Any) -> Summary:
    found, missing = result
    return {
        "memory_ids": [m.id for m in found],
        "result_count": len(found),
        "detail": {"missing": list(missing)} if missing else {},
    }


def list_summary(memories: Any) -> Summary:
    return {"memory_ids": [m.id for m in memories], "result_count": len(memories)}


def search_summary(result: Any) -> Summary:
    detail = {"degrade_reason": result.degrade_reason} if result.degraded else {}
    return {
        "memory_ids": [h.memory.id for h in result.hits],
        "result_count": len(result.hits),
        "degraded": bool(result.degraded),
        "detail": detail,
    }


def stats_summary(stats: Any) -> Summary:
    return {"result_count": int(stats.get("memories", 0))}


def count_summary(count: Any) -> Summary:
    return {"result_count": int(count)}


def export_summary(document: Any) -> Summary:
    return {"result_count": int(document.get("count", 0))}


def import_summary(report: Any) -> Summary:
    return {
        "result_count": int(report.get("inserted", 0)),
        "detail": {
            k: report[k]
            for k in ("records", "skipped_same_id", "skipped_duplicate", "redacted")
            if k in report
        },
    }
