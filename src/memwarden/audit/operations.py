"""``@audited``: how each service operation becomes one audit row.

The decorator wraps a method of a service part (``Memories``, ``Searcher``, ``Operations``)
without touching its body. A method that changes memories gets its row written by the store
inside the write's own transaction (``audit/in_write.py``); for any other, after the method
returns, a *summarizer* turns its result into memory ids, a result count, the degraded flag
and details; when it raises a memwarden error, the row records the error code as its outcome
(a probe for another tenant's ids shows up as ``not_found``) and the error goes on unchanged.
Redaction counts come from ``note_redactions``, which the service's content path calls.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from memwarden.audit import in_write
from memwarden.errors import MemwardenError, StorageError
from memwarden.logs import get_logger
from memwarden.validation import check_id

if TYPE_CHECKING:  # pragma: no cover
    from memwarden.audit.auditor import Auditor
    from memwarden.models import Caller

logger = get_logger(__name__)
F = TypeVar("F", bound=Callable[..., Any])
Summary = dict[str, Any]
_redactions: ContextVar[int] = ContextVar("memwarden_redactions", default=0)
_after_row: ContextVar[list[Callable[[], None]] | None] = ContextVar("memwarden_after_row", default=None)


class Redacts(Protocol):
    def redact_text(self, text: str) -> str: ...


class AuditedPart(Protocol):
    """What ``@audited`` needs of the object whose methods it wraps."""

    auditor: Auditor | None
    default_caller: Caller
    intake: Redacts


def note_redactions(count: int) -> None:
    """Add ``count`` matches to the redaction count of the operation being audited."""
    if count:
        _redactions.set(_redactions.get() + count)


def after_row(effect: Callable[[], None]) -> None:
    """Run ``effect`` once the audit row of the operation being audited is written: a read's side
    effect (counting a use of each hit) must not happen when the read is refused because its row
    could not be written. Outside an audited call (auditing off), it runs at once."""
    pending = _after_row.get()
    if pending is None:
        effect()
    else:
        pending.append(effect)


def _run_after_row(action: str, effects: list[Callable[[], None]]) -> None:
    for effect in effects:
        try:
            effect()
        except MemwardenError as exc:  # the read was served and recorded; only its count is lost
            logger.error("%s: a use could not be counted: %s", action, exc.message)


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


# Operations that change stored memories: their row is written in the store's own write
# transaction (``audit/in_write.py``); every other operation is recorded after it returns.
WRITES = ("add", "update", "delete", "import")


def _refused_read(action: str, exc: MemwardenError) -> StorageError:
    return StorageError(
        f"the {action} was refused because its audit row could not be written ({exc.message}); nothing was "
        "returned. Fix the database (memwarden health), or set MEMWARDEN_AUDIT_READS_FAIL_OPEN=true to "
        "serve reads while their audit rows cannot be written",
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


def audited(
    action: str, summarize: Callable[[Any], Summary], *, query_arg: bool = False, ids_arg: str | None = None
) -> Callable[[F], F]:
    """Record one audit row per call of the decorated service method.

    ``ids_arg``: the name of the method's argument that holds memory ids (its first positional
    one); a failed call records the ids it asked for. A method without one records none: the
    first argument of ``add`` or ``import`` is the caller's text, never an id.

    A write's row commits with the write (the store appends it inside its transaction); when it
    cannot be written the write is refused. A read whose row cannot be written fails closed
    (``StorageError``) unless the auditor allows reads to fail open, which is logged.
    """

    def wrap(method: F) -> F:
        @functools.wraps(method)
        def run(self: AuditedPart, *args: Any, **kwargs: Any) -> Any:
            auditor = self.auditor
            if auditor is None:
                return method(self, *args, **kwargs)
            token = _redactions.set(0)
            effects: list[Callable[[], None]] = []
            effects_token = _after_row.set(effects)
            who = kwargs.get("caller") or self.default_caller
            call_args, call_kwargs = _named(args, kwargs)
            project, named = _projects_of(call_kwargs)
            query = (call_args[0] if call_args else call_kwargs.get("query")) if query_arg else None
            fields: dict[str, Any] = {
                # The project argument as the caller sent it may hold what a rule protects (the
                # write is then refused); the audit row gets it redacted like any stored text.
                "project": self.intake.redact_text(project) if isinstance(project, str) else None,
                "query": query if isinstance(query, str) else None,
            }
            also = {"projects": [self.intake.redact_text(p) for p in named]} if len(named) > 1 else {}
            try:
                with in_write.expect_row(
                    auditor, action, who, project=fields["project"], redactions=_redactions.get
                ) as pending:
                    result = method(self, *args, **kwargs)
            except MemwardenError as exc:
                ids = _ids_from_call(self, ids_arg, call_args, call_kwargs) if ids_arg else []
                try:
                    auditor.record(
                        action,
                        who,
                        outcome=exc.code,
                        memory_ids=ids,
                        redaction_count=_redactions.get(),
                        **fields,
                        **({"detail": also} if also else {}),
                    )
                except MemwardenError:  # the original error matters more; the failure is logged
                    logger.error("could not record a failed %s in the audit log", action)
                raise
            finally:
                count = _redactions.get()
                _redactions.reset(token)
                _after_row.reset(effects_token)
            in_write.committed(pending)
            if pending.rows and action != "import":
                _run_after_row(action, effects)
                return result  # the row committed with the write
            summary = summarize(result)
            if also:
                summary["detail"] = {**summary.get("detail", {}), **also}
            try:
                auditor.record(action, who, redaction_count=count, **fields, **summary)
            except MemwardenError as exc:
                if pending.rows:  # an import's summary: its batches committed with their own rows
                    logger.error("the summary row of an import could not be written: %s", exc.message)
                    return result
                if action in WRITES or not auditor.reads_fail_open:
                    raise _refused_read(action, exc) from exc
                logger.error(
                    "%s served without its audit row (MEMWARDEN_AUDIT_READS_FAIL_OPEN): %s",
                    action,
                    exc.message,
                )
            _run_after_row(action, effects)
            return result

        return run  # type: ignore[return-value]

    return wrap


# -- summarizers: result of the service method → audit fields ---------------------------------


def add_summary(result: Any) -> Summary:
    return {"memory_ids": [result.memory.id], "result_count": 1, "detail": {"duplicate": result.duplicate}}


def memory_summary(memory: Any) -> Summary:
    return {"memory_ids": [memory.id], "result_count": 1}


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
