"""The search settings a tuning fit may change (``memwarden eval --fit``, docs/search.md).

Its own module: every search builds one, and the evaluation module it is fitted by costs more
to import than a cold search may spend.
"""

from typing import NamedTuple


class Tuning(NamedTuple):
    """The search settings a fit may change (None: the model's own default vector weight)."""

    vector_weight: float | None
    thread_weight: float

    def settings(self) -> dict[str, str]:
        out = {"MEMWARDEN_SEARCH_THREAD_WEIGHT": f"{self.thread_weight:g}"}
        if self.vector_weight is not None:
            out["MEMWARDEN_SEARCH_VECTOR_WEIGHT"] = f"{self.vector_weight:g}"
        return out
