"""The dashboard's and the insights queries' values: a browse filter, its cursor and page, the
store overview.

Apart from ``models`` because only browsing creates them (see ``write_results``).
"""

from datetime import datetime
from typing import NamedTuple

from memwarden.models import Memory


class MemoryQuery(NamedTuple):
    """Filters for browsing memories page by page (the dashboard's table); None means any."""

    project: str | None = None
    kind: str | None = None
    tag: str | None = None
    pinned: bool | None = None
    flagged: bool | None = None  # injection screening flagged it (``injection_flags`` not empty)
    created_since: datetime | None = None
    created_until: datetime | None = None  # exclusive


class BrowseCursor(NamedTuple):
    """A place in the browse order (most recently updated first, then by id, descending): the
    ``updated_at`` and ``id`` of the memory a page starts or ends at. Pages read from it with an
    indexed range (keyset paging), so the thousandth page costs what the first does."""

    updated_at: datetime
    id: str

    @classmethod
    def of(cls, memory: Memory) -> "BrowseCursor":
        return cls(memory.updated_at, memory.id)


class MemoryPage(NamedTuple):
    """One page of a browse: the memories, how many match (counted up to ``count_limit``), and
    whether there are matches newer than its first row and older than its last."""

    memories: list[Memory]
    total: int
    total_is_lower_bound: bool = False
    newer: bool = False
    older: bool = False


class StoreOverview(NamedTuple):
    """Aggregates of one tenant's live memories for the dashboard's overview."""

    counts: list[tuple[str, str, int]]  # (project, kind, live memories)
    added_per_week: list[tuple[str, str, int]]  # (ISO date of the week's Monday, project, added)
    most_recalled: list[Memory]
    redactions_per_rule: dict[str, int]  # rule name -> live memories it redacted something in
