"""Adding a memory and acting on a selection of memories from the dashboard.

Every write goes through the service exactly as an MCP or CLI write does (validated, redacted,
screened, audited, in the session's tenant): the service has no bulk verbs, so a bulk action is
one service call per memory, each with its own audit row. Everything the form says is checked
before the first write (ids known in this tenant, the tag or project valid), so a refused form
changes nothing. Writes that fail part-way (another writer changed a memory meanwhile) are
reported per memory.

Undo: memwarden keeps the current text only, not earlier versions, so an undo can restore
only what the page itself knew before the change (tags, project, pinned state); a delete is
final from the dashboard (``memwarden restore`` from a backup is the way back).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from memwarden import validation as v
from memwarden.errors import InvalidInput, MemwardenError
from memwarden.models import KINDS, Memory
from memwarden.service import MemoryService
from memwarden.ui.sessions import Session
from memwarden.write_results import AddResult

MAX_SELECTED = 100
# action -> (what the confirmation says, whether it needs a value, whether it can be undone)
ACTIONS: dict[str, tuple[str, str | None, bool]] = {
    "delete": ("Delete", None, False),
    "tag": ("Add the tag", "tag", True),
    "untag": ("Remove the tag", "tag", True),
    "move": ("Move to the project", "project", True),
    "pin": ("Pin", None, True),
    "unpin": ("Unpin", None, True),
    "clear-flags": ("Clear the injection flags of", None, False),
    "restore": ("Undo the last change of", None, False),
}
UNDO_FIELDS = ("tags", "project", "pinned")


@dataclass(frozen=True)
class BulkRequest:
    action: str
    ids: list[str]
    value: str | None  # the tag or the project
    prior: dict[str, dict[str, Any]] = field(default_factory=dict)  # restore: id -> fields


@dataclass
class BulkOutcome:
    request: BulkRequest
    done: list[Memory] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)  # (id, why)
    undo: dict[str, dict[str, Any]] = field(default_factory=dict)  # id -> fields before


def _prior(text: str) -> dict[str, dict[str, Any]]:
    """The undo form's record of the fields before a change, checked field by field."""
    try:
        decoded = json.loads(text)
    except ValueError:
        raise InvalidInput("the undo record is not valid: reload the page", field="prior") from None
    if not isinstance(decoded, dict) or len(decoded) > MAX_SELECTED:
        raise InvalidInput("the undo record is not valid: reload the page", field="prior")
    out: dict[str, dict[str, Any]] = {}
    for memory_id, fields in decoded.items():
        if not isinstance(fields, dict) or not set(fields) <= set(UNDO_FIELDS):
            raise InvalidInput("the undo record names fields it may not change", field="prior")
        checked: dict[str, Any] = {}
        if "tags" in fields:
            checked["tags"] = list(v.check_tags(fields["tags"]))
        if "project" in fields:
            checked["project"] = v.check_project(fields["project"])
        if "pinned" in fields:
            if not isinstance(fields["pinned"], bool):
                raise InvalidInput("the undo record's pinned must be true or false", field="prior")
            checked["pinned"] = fields["pinned"]
        out[v.check_id(memory_id).upper()] = checked
    return out


def parse_bulk(form: Mapping[str, Any], ids: Sequence[str]) -> BulkRequest:
    """The bulk form: the action, the selected ids, the tag or project it needs."""
    action = str(form.get("action", ""))
    if action not in ACTIONS:
        raise InvalidInput(
            f"pick an action: one of {', '.join(a for a in ACTIONS if a != 'restore')}", field="action"
        )
    if action == "restore":
        prior = _prior(str(form.get("prior", "")))
        return BulkRequest(action, list(prior), None, prior)
    if not ids:
        raise InvalidInput("select at least one memory (tick its box) first", field="id")
    if len(ids) > MAX_SELECTED:
        raise InvalidInput(f"select at most {MAX_SELECTED} memories at a time", field="id")
    checked = list(dict.fromkeys(v.check_id(i).upper() for i in ids))
    needs = ACTIONS[action][1]
    value = str(form.get(needs, "")).strip() if needs else None
    if needs == "tag":
        if not value:
            raise InvalidInput("type the tag to add or remove", field="tag")
        value = v.check_tags([value])[0]
    elif needs == "project":
        if not value:
            raise InvalidInput("type the project to move the memories to", field="project")
        value = v.check_project(value)
    return BulkRequest(action, checked, value)


def selected(service: MemoryService, session: Session, request: BulkRequest) -> list[Memory]:
    """The live memories the request names, in the session's tenant; ``InvalidInput`` naming
    any it does not know (deleted, another tenant's, never stored) before anything changes."""
    found, missing = service.memories.get(request.ids, caller=session.caller)
    live = {m.id: m for m in found if m.deleted_at is None}
    unknown = [i for i in request.ids if i not in live] + [i for i in missing if i not in request.ids]
    if unknown:
        raise InvalidInput(
            f"no memory {', '.join(unknown[:5])} in tenant {session.caller.tenant} (deleted, or never "
            "stored): reload the list and select again; nothing was changed",
            field="id",
        )
    return [live[i] for i in request.ids]


def _change(memory: Memory, request: BulkRequest) -> dict[str, Any] | None:
    """The fields one memory's update sets, None when it already is as asked."""
    if request.action == "tag":
        return None if request.value in memory.tags else {"tags": [*memory.tags, request.value]}
    if request.action == "untag":
        return (
            {"tags": [t for t in memory.tags if t != request.value]} if request.value in memory.tags else None
        )
    if request.action == "move":
        return None if memory.project == request.value else {"project": request.value}
    if request.action in ("pin", "unpin"):
        pinned = request.action == "pin"
        return None if memory.pinned == pinned else {"pinned": pinned}
    if request.action == "restore":
        return dict(request.prior.get(memory.id, {})) or None
    return None


def apply(service: MemoryService, session: Session, request: BulkRequest) -> BulkOutcome:
    """Run the action on each selected memory through the service (one audited call each)."""
    memories = selected(service, session, request)
    outcome = BulkOutcome(request)
    who = session.caller
    for memory in memories:
        try:
            if request.action == "delete":
                service.memories.delete(memory.id, caller=who)
                outcome.done.append(memory)
            elif request.action == "clear-flags":
                outcome.done.append(service.memories.clear_flags(memory.id, caller=who).memory)
            else:
                changes = _change(memory, request)
                if changes is None:
                    outcome.done.append(memory)  # already as asked: nothing to write
                    continue
                stored = service.memories.update(memory.id, caller=who, if_version=memory.version, **changes)
                outcome.done.append(stored)
                if ACTIONS[request.action][2]:
                    outcome.undo[memory.id] = {
                        "tags": list(memory.tags),
                        "project": memory.project,
                        "pinned": memory.pinned,
                    }
        except MemwardenError as exc:
            outcome.failed.append((memory.id, exc.message))
    return outcome


def parse_new(form: Mapping[str, Any]) -> dict[str, Any]:
    """The add form's fields as ``memories.add`` takes them; the service validates each."""
    content = str(form.get("content", ""))
    if not content.strip():
        raise InvalidInput("content is empty: write the memory to store", field="content")
    kind = str(form.get("kind", "fact"))
    if kind not in KINDS:
        raise InvalidInput(f"kind must be one of {', '.join(KINDS)}; got {kind[:40]!r}", field="kind")
    fields: dict[str, Any] = {"content": content, "kind": kind, "pinned": form.get("pinned") == "yes"}
    for name in ("title", "project", "context", "thread"):
        text = str(form.get(name, "")).strip()
        if text:
            fields[name] = text
    tags = [t.strip() for t in str(form.get("tags", "")).split(",") if t.strip()]
    if tags:
        fields["tags"] = tags
    ttl = str(form.get("ttl_hours", "")).strip()
    if ttl:
        if not (ttl.isascii() and ttl.isdigit()) or len(ttl) > 7:
            raise InvalidInput(
                f"expires after must be a whole number of hours; got {ttl[:20]!r}", field="ttl_hours"
            )
        fields["ttl_hours"] = int(ttl)
    return fields


def add(service: MemoryService, session: Session, fields: dict[str, Any]) -> AddResult:
    rest = dict(fields)
    return service.memories.add(rest.pop("content"), caller=session.caller, **rest)
