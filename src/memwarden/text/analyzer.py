"""One analyzer for documents and queries, so both sides of a match see the same terms.

Pipeline for every piece of text (content, title, tags, query):

1. Unicode NFKC (full-width letters, ligatures and compatibility forms become plain).
2. Split into words, CJK runs and runs of the other scripts written without spaces (Thai, Lao,
   Khmer, Myanmar; ``tokenize.py``); CJK runs become overlapping character bigrams, the others
   overlapping bigrams of character clusters.
3. For each word: stopwords of the configured languages are dropped (unless the text is made
   of nothing else), then each configured language contributes its stem, computed on that
   language's lower case (Turkish I/İ rules for Turkish) and accent-folded afterwards.
   A word thus has one term per language, usually the same one ("deploy"), sometimes two
   ("sunucular" → English "sunucular", Turkish "sunuc"). Documents are indexed under all of
   them; a query word matches a memory through any of its terms.

The languages are not guessed per text: guessing fails on short texts, and a memory that says
"sunucu yedekleri" must be found by "yedek" whatever the guess was.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from memwarden.models import KeywordQuery
from memwarden.text.languages import make_stemmer, parse_languages, turkish_stem
from memwarden.text.normalize import fold, fold_accents, fold_case, fold_case_turkish, nfkc
from memwarden.text.stopwords import stopwords_for
from memwarden.text.tokenize import CJK, UNSPACED, WORD, bigrams, cluster_bigrams, clusters, split_words

# Bump when analysis changes in a way that changes index terms: stores re-index on a mismatch.
ANALYZER_VERSION = 4  # 4: Thai, Lao, Khmer and Myanmar cluster bigrams
# Alphabetic query terms at least this long also match as prefixes (see _prefix_helps).
PREFIX_MIN_CHARS = 4
# A query is cut to this many words/bigrams; longer queries gain nothing but cost time.
MAX_QUERY_GROUPS = 64
_CACHE_LIMIT = 200_000


class Analyzer:
    """Turns text into index terms, and queries into ``KeywordQuery`` values.

    ``languages`` are Snowball names (``parse_languages`` validates them); the default is
    English and Turkish. Instances are safe to share between threads (the word cache is a
    plain dict: concurrent fills compute the same value).
    """

    def __init__(self, languages: str | Iterable[str] = ("english", "turkish")) -> None:
        self.languages = parse_languages(languages if isinstance(languages, str) else list(languages))
        self._stemmers: list[tuple[str, Any]] = [(lang, make_stemmer(lang)) for lang in self.languages]
        self._stopwords: frozenset[str] = frozenset().union(
            *(frozenset(fold(w) for w in stopwords_for(lang)) for lang in self.languages)
        )
        self._cache: dict[str, tuple[str, ...]] = {}

    @property
    def fingerprint(self) -> str:
        """Identifies the index terms this analyzer produces (version and languages)."""
        return f"v{ANALYZER_VERSION}:{','.join(self.languages) or '-'}"

    # -- words -------------------------------------------------------------------------------

    def _word_terms(self, word: str) -> tuple[str, ...]:
        """The index terms of one word (one per language, duplicates merged)."""
        cached = self._cache.get(word)
        if cached is not None:
            return cached
        neutral = fold_case(word)
        if not self._stemmers or not neutral.isalpha():
            plain = fold_accents(neutral)
            terms: tuple[str, ...] = (plain,) if plain else ()
        else:
            found: list[str] = []
            for language, stemmer in self._stemmers:
                if language == "turkish":
                    term = fold_accents(turkish_stem(stemmer, fold_case_turkish(word)))
                else:
                    term = fold_accents(stemmer.stemWord(neutral))
                if term and term not in found:
                    found.append(term)
            terms = tuple(found)
        if len(self._cache) >= _CACHE_LIMIT:
            self._cache.clear()
        self._cache[word] = terms
        return terms

    def groups(self, text: str) -> list[tuple[str, ...]]:
        """For each word or bigram of ``text``, in order, its alternative index terms."""
        pieces = list(split_words(nfkc(text)))
        words = [p for kind, p in pieces if kind == WORD]
        drop = self._stopwords and any(fold(w) not in self._stopwords for w in words)
        out: list[tuple[str, ...]] = []
        for kind, piece in pieces:
            if kind == CJK:
                out.extend((gram,) for gram in bigrams(piece))
            elif kind == UNSPACED:
                out.extend((gram,) for gram in cluster_bigrams(piece))
            elif not (drop and fold(piece) in self._stopwords):
                terms = self._word_terms(piece)
                if terms:  # a lone combining mark folds to nothing
                    out.append(terms)
        return out

    # -- documents ---------------------------------------------------------------------------

    def terms(self, text: str) -> list[str]:
        """Index terms of ``text``, in order, duplicates kept (for bm25's term frequencies)."""
        return [term for group in self.groups(text) for term in group]

    def index_text(self, text: str) -> str:
        """What a keyword index stores for ``text``: its terms separated by spaces."""
        return " ".join(self.terms(text))

    # -- queries -----------------------------------------------------------------------------

    def query(self, text: str) -> KeywordQuery:
        """The analyzed query: distinct terms, their word groups, and the terms to match as prefixes.

        A lone CJK character matches as a prefix, so "猫" still finds the bigram "猫粮"; so does
        a lone cluster of an unspaced script ("ไ" is no term of its own, "ไป" is).
        """
        groups = list(dict.fromkeys(self.groups(text)))[:MAX_QUERY_GROUPS]
        terms = tuple(dict.fromkeys(t for g in groups for t in g))
        kinds = {t: _run_kind(t) for t in terms}
        prefix = frozenset(
            t
            for t in terms
            if (kinds[t] == CJK and len(t) == 1) or (kinds[t] == UNSPACED and len(clusters(t)) == 1)
        )
        widen = frozenset(t for t in terms if len(t) >= PREFIX_MIN_CHARS and t.isalpha() and kinds[t] == WORD)
        return KeywordQuery(terms, prefix, tuple(groups), widen)


# Why these prefixes: a lone CJK character has no bigram of its own, so it always matches as a
# prefix. Alphabetic terms of PREFIX_MIN_CHARS or more may also find compounds and forms the
# stemmer leaves apart ("time" finds "timezone", "config" finds "configuration") when the exact
# term finds little (``prefix_if_rare``; the store decides). Shorter terms would match too many
# unrelated words. bench/quality measured the gain (docs/search.md).


def _run_kind(term: str) -> str:
    """CJK or UNSPACED when a term came from such a run (it holds one), else WORD."""
    for kind, _ in split_words(term):
        if kind != WORD:
            return kind
    return WORD
