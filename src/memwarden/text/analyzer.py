"""One analyzer for documents and queries, so both sides of a match see the same terms.

Pipeline for every piece of text (content, title, tags, query):

1. Unicode NFKC (full-width letters, ligatures and compatibility forms become plain).
2. Split into words, CJK runs and runs of the other scripts written without spaces (Thai, Lao,
   Khmer, Myanmar; ``tokenize.py``); CJK runs become overlapping character bigrams, the others
   overlapping bigrams of character clusters.
3. Each word's languages: the configured ones written in its script, else its script's own
   language (Arabic, Greek, Russian, Hindi…), plus for Latin words the language a text's
   stopwords point at clearly (``language_guess.py``): no configuration is needed for a
   language, and the configured ones are always kept, so a short query guessed wrong still
   meets its memory on their terms.
4. For each word: stopwords of the configured and script languages are dropped (not those of a
   guessed one, and not when the text is made of nothing else), then each language contributes its stem, computed on that language's lower case
   (Turkish I/İ rules for Turkish) and accent-folded afterwards. A word thus has one term per
   language, usually the same one ("deploy"), sometimes two ("sunucular" → English
   "sunucular", Turkish "sunuc"). Documents are indexed under all of them; a query word
   matches a memory through any of its terms.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from memwarden.models import KeywordQuery
from memwarden.text.language_guess import LATIN, SCRIPT_LANGUAGE, LanguageGuesser, script_of, scripts_of
from memwarden.text.languages import make_stemmer, parse_languages, turkish_stem
from memwarden.text.normalize import fold, fold_accents, fold_case, fold_case_turkish, nfkc
from memwarden.text.stopwords import CJK_QUESTION_WORDS, VIETNAMESE, as_compared, stopwords_for
from memwarden.text.tokenize import CJK, UNSPACED, WORD, bigrams, cluster_bigrams, clusters, split_words

# Bump when analysis changes in a way that changes index terms: stores re-index on a mismatch.
ANALYZER_VERSION = 9  # 4: Thai, Lao, Khmer, Myanmar bigrams; 5: stemmers by script and evidence;
# 6: Arabic, Greek, Hindi and Vietnamese stopwords; 7: Chinese question words cut CJK runs,
# more Hindi stopwords; 8: words with combining marks (Devanagari) stemmed, Vietnamese
# words keep their tones; 9: Vietnamese syllable pairs
# Alphabetic query terms at least this long also match as prefixes (see _prefix_helps).
PREFIX_MIN_CHARS = 4
# A query is cut to this many words/bigrams; longer queries gain nothing but cost time.
MAX_QUERY_GROUPS = 64
_CACHE_LIMIT = 200_000
# Chinese question words cut a CJK run (stopwords.CJK_QUESTION_WORDS), longest first.
_CJK_QUESTION = re.compile("|".join(sorted(CJK_QUESTION_WORDS, key=len, reverse=True)))


class Analyzer:
    """Turns text into index terms, and queries into ``KeywordQuery`` values.

    ``languages`` are Snowball names (``parse_languages`` validates them); the default is
    English and Turkish. Instances are safe to share between threads (the word cache is a
    plain dict: concurrent fills compute the same value).
    """

    def __init__(self, languages: str | Iterable[str] = ("english", "turkish")) -> None:
        self.languages = parse_languages(languages if isinstance(languages, str) else list(languages))
        self._stemmers: dict[str, Any] = {lang: make_stemmer(lang) for lang in self.languages}
        # The configured languages written in each script (language_guess.LANGUAGE_SCRIPTS).
        self._by_script: dict[str, tuple[str, ...]] = {}
        for lang in self.languages:
            for script in scripts_of(lang):
                self._by_script[script] = (*self._by_script.get(script, ()), lang)
        self._guesser = LanguageGuesser(self.languages)
        self._cache: dict[tuple[str, tuple[str, ...]], tuple[str, ...]] = {}

    @property
    def fingerprint(self) -> str:
        """Identifies the index terms this analyzer produces (version and languages)."""
        return f"v{ANALYZER_VERSION}:{','.join(self.languages) or '-'}"

    # -- words -------------------------------------------------------------------------------

    def _stemmer(self, language: str) -> Any:
        stemmer = self._stemmers.get(language)
        if stemmer is None:  # a guessed or script language: made once, on first use
            stemmer = self._stemmers[language] = make_stemmer(language)
        return stemmer

    def _word_terms(self, word: str, languages: tuple[str, ...]) -> tuple[str, ...]:
        """The index terms of one word (one per language, duplicates merged)."""
        key = (word, languages)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        neutral = fold_case(word)
        if not languages or not _is_letters(neutral):
            plain = fold_accents(neutral)
            terms: tuple[str, ...] = (plain,) if plain else ()
        else:
            found: list[str] = []
            for language in languages:
                stemmer = self._stemmer(language)
                if language == "turkish":
                    term = fold_accents(turkish_stem(stemmer, fold_case_turkish(word)))
                else:
                    term = fold_accents(stemmer.stemWord(neutral))
                if term and term not in found:
                    found.append(term)
            terms = tuple(found)
        if len(self._cache) >= _CACHE_LIMIT:
            self._cache.clear()
        self._cache[key] = terms
        return terms

    def _languages_by_script(
        self, text: str, words: list[str], folded: list[str]
    ) -> tuple[dict[str, tuple[str, ...]], frozenset[str]]:
        """For each script among ``words``, the Snowball languages its words are stemmed in; and
        the languages whose stopwords are dropped: all of them but a guessed one.

        A guess only adds stems. Its stopwords stay: a query too short to be guessed keeps
        words such as "die" that a guessed memory would have lost, and such a memory would
        then lose to the few memories not guessed, which still hold them.
        """
        out: dict[str, tuple[str, ...]] = {}
        stop: set[str] = set(self.languages)
        for script in dict.fromkeys(script_of(w) for w in words):
            languages = self._by_script.get(script, ())
            if script == LATIN:
                guess = self._guesser.latin_language(folded, text)
                if guess is not None:
                    languages = (*languages, guess)
                if LanguageGuesser.is_vietnamese(text):  # no stemmer, but function words
                    stop.add(VIETNAMESE)
            elif not languages and script in SCRIPT_LANGUAGE:
                own = SCRIPT_LANGUAGE[script]
                languages = (LanguageGuesser.arabic_script_language(text) if own == "arabic" else own,)
                stop.update(languages)
            out[script] = languages
        return out, frozenset(stop)

    def groups(self, text: str, *, query: bool = False) -> list[tuple[str, ...]]:
        """For each word or bigram of ``text``, in order, its alternative index terms."""
        pieces = list(split_words(nfkc(text)))
        words = [p for kind, p in pieces if kind == WORD]
        folded = [fold(w) for w in words]
        by_script, stop_languages = self._languages_by_script(text, words, folded)
        vietnamese = VIETNAMESE in stop_languages
        if vietnamese:
            # Tones tell Vietnamese words apart (năm "year", nam "south"; độ "degree" is no
            # English "do"), so its words are compared with their marks.
            stop = _toned_stopwords_of(stop_languages)
            folded = [fold_case(w) for w in words]
        else:
            stop = _stopwords_of(stop_languages)
        drop = bool(stop) and any(f not in stop for f in folded)
        out: list[tuple[str, ...]] = []
        pairs: list[tuple[str, ...]] = []  # a Vietnamese text's syllable pairs (_syllable_pair)
        previous: tuple[str, ...] | None = None
        index = 0
        for kind, piece in pieces:
            if kind != WORD:
                previous = None
            if kind == CJK:
                # A run of nothing but question words keeps them, as a text of stopwords does.
                for part in [p for p in _CJK_QUESTION.split(piece) if p] or [piece]:
                    out.extend((gram,) for gram in bigrams(part))
            elif kind == UNSPACED:
                out.extend((gram,) for gram in cluster_bigrams(piece))
            else:
                index += 1
                if not (drop and folded[index - 1] in stop):
                    terms = self._word_terms(piece, by_script[script_of(piece)])
                    if vietnamese and not piece.isascii() and script_of(piece) == LATIN:
                        terms = _vietnamese_terms(piece, terms, query=query)
                    if terms:  # a lone combining mark folds to nothing
                        out.append(terms)
                        if vietnamese and previous is not None:
                            pairs.append((_syllable_pair(previous, terms),))
                        previous = terms
        return out + pairs

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
        groups = list(dict.fromkeys(self.groups(text, query=True)))[:MAX_QUERY_GROUPS]
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


def _vietnamese_terms(word: str, terms: tuple[str, ...], *, query: bool) -> tuple[str, ...]:
    """A word of a Vietnamese text: its marked form (tones tell words apart: năm "year", nam
    "south"), and in memories also its folded terms, so a query typed without marks (not seen as
    Vietnamese, so folded) still finds them. A Vietnamese query asks for the marked form only:
    the folded one matches every word of the same letters."""
    toned = fold_case(word)
    return (toned,) if query else (toned, *[t for t in terms if t != toned])


def _syllable_pair(first: tuple[str, ...], second: tuple[str, ...]) -> str:
    """One term for two neighbouring words of a Vietnamese text (stopwords between them left
    out): its words are single syllables, and most of its content words are two of them
    ("lưu vực" basin, "diện tích" area), which one syllable alone ("tích") does not tell apart.
    Index and query both get the pairs, so a memory holding the query's compound in order
    outranks one holding its syllables apart. Joined by an underscore, which no word holds."""
    return f"{first[0]}_{second[0]}"


def _is_letters(word: str) -> bool:
    """Letters only, combining marks allowed: a Devanagari or Tamil word holds vowel signs
    (``str.isalpha`` is False for them), and a word of letters is what a stemmer takes."""
    return word.isalpha() or all(ch.isalpha() or unicodedata.category(ch)[0] == "M" for ch in word)


@lru_cache(maxsize=64)
def _stopwords_of(languages: frozenset[str]) -> frozenset[str]:
    """The union of the (already folded) stopword lists of ``languages``."""
    return frozenset(as_compared(w) for lang in languages for w in stopwords_for(lang))


@lru_cache(maxsize=16)
def _toned_stopwords_of(languages: frozenset[str]) -> frozenset[str]:
    """Stopwords compared with their marks (a Vietnamese text's): Vietnamese as written, the
    other lists as stored (their folded words only meet unmarked words)."""
    return frozenset(
        fold_case(w) if lang == VIETNAMESE else w for lang in languages for w in stopwords_for(lang)
    )


def _run_kind(term: str) -> str:
    """CJK or UNSPACED when a term came from such a run (it holds one), else WORD."""
    for kind, _ in split_words(term):
        if kind != WORD:
            return kind
    return WORD
