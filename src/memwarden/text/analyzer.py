"""One analyzer for documents and queries, so both sides of a match see the same terms.

This first version normalizes (NFKC, case folding) and splits on word characters; the
multilingual pipeline (Turkish I, accents, CJK bigrams, stemming, stopwords) replaces
``terms`` without changing its callers.
"""

from __future__ import annotations

import re
import unicodedata

_WORD = re.compile(r"\w+", re.UNICODE)


class Analyzer:
    def __init__(self, languages: tuple[str, ...] = ("english",)) -> None:
        self.languages = languages

    def terms(self, text: str) -> list[str]:
        """Index/query terms of ``text``, in order, duplicates kept."""
        folded = unicodedata.normalize("NFKC", text).casefold()
        return _WORD.findall(folded)

    def index_text(self, text: str) -> str:
        return " ".join(self.terms(text))
