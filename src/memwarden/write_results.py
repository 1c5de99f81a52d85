"""What the write side returns: an add (with its near-duplicates and redactions), a delete.

Apart from ``models`` because only writes create them: a cold ``memwarden search`` or prompt
hook does not build these classes (each class built costs a cold process CPU).
"""

from collections.abc import Sequence
from typing import Any, NamedTuple

from memwarden.models import Memory


class Similar(NamedTuple):
    id: str
    preview: str
    score: float


class AddResult(NamedTuple):
    memory: Memory
    duplicate: bool = False
    similar: Sequence[Similar] = ()
    redacted: bool = False
    redactions: tuple[str, ...] = ()
    embedding_failed: bool = False
    # enforce: ``redactions`` were applied; dry-run: they would have been (content stored as sent).
    redaction_mode: str = "enforce"
    embedding_error: str | None = None
    # Rules in dry-run (a pack's ``"mode": "dry-run"``, the optional high_entropy rule) that would
    # have matched: reported, never applied.
    redactions_dry_run: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.memory.id,
            "duplicate": self.duplicate,
            "version": self.memory.version,
            "similar": [{"id": s.id, "preview": s.preview, "score": round(s.score, 4)} for s in self.similar],
            "redacted": self.redacted,
            "redactions": list(self.redactions),
            "redaction_mode": self.redaction_mode,
            "redactions_dry_run": list(self.redactions_dry_run),
            "embedding_failed": self.embedding_failed,
            "embedding_error": self.embedding_error,
            "memory": self.memory.to_dict(),
        }


class DeleteResult(NamedTuple):
    id: str
    deleted: bool
    already_deleted: bool

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "deleted": self.deleted, "already_deleted": self.already_deleted}
