"""Snowball languages: validating MEMWARDEN_LANGUAGES and stemming words in each of them.

Stemming uses PyStemmer (Snowball in C, millions of words per second). Turkish gets one more
step: the Snowball stem is cut to its first five letters. Turkish piles suffixes onto a root
(sunucu, sunucusu, sunucusunun, sunucular) and the Snowball stemmer strips them unevenly
(sunuç, sunucus, sunucu, sunucu); five-letter prefixes are the standard fix in Turkish
retrieval (Can et al., "Information retrieval on Turkish texts", JASIST 2008: F5 truncation
matched or beat real stemmers) and make all of these meet on "sunuc".
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from memwarden.errors import ConfigError

TURKISH_PREFIX = 5
# Below this length a Turkish Snowball stem is more likely an over-stripped root ("sunum" → "s")
# than a real one, so the word itself is truncated instead.
_MIN_TURKISH_STEM = 3


@lru_cache(maxsize=1)
def snowball_languages() -> tuple[str, ...]:
    import Stemmer

    return tuple(sorted(Stemmer.algorithms()))


def parse_languages(value: str | Iterable[str]) -> tuple[str, ...]:
    """Snowball language names from a comma-separated setting, lower-cased, duplicates dropped.

    An empty value means no stemming and no stopwords. An unknown name raises ConfigError
    listing every valid one.
    """
    parts = value.split(",") if isinstance(value, str) else list(value)
    names = tuple(dict.fromkeys(p.strip().lower() for p in parts if p.strip()))
    valid = snowball_languages()
    unknown = [n for n in names if n not in valid]
    if unknown:
        raise ConfigError(
            f"MEMWARDEN_LANGUAGES: unknown language {', '.join(map(repr, unknown))}; "
            f"valid Snowball languages are: {', '.join(valid)}",
            unknown=unknown,
            valid=list(valid),
        )
    return names


def make_stemmer(language: str) -> Any:
    import Stemmer

    return Stemmer.Stemmer(language)


def turkish_stem(stemmer: Any, word: str) -> str:
    """The five-letter Turkish stem of a Turkish-lower-cased word (see the module docstring)."""
    stem: str = stemmer.stemWord(word)
    if len(stem) < _MIN_TURKISH_STEM:
        stem = word
    return stem[:TURKISH_PREFIX]
