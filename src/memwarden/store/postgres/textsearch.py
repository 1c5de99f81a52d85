"""tsvector / tsquery literals built from analyzed terms: every lexeme quoted, nothing re-parsed.

The service hands the store text that ``text/`` has already analyzed (folded, stemmed, CJK
bigrams). PostgreSQL must index exactly those terms, so we never run ``to_tsvector`` (its
parser would split and its configuration could re-stem): we write the tsvector literal
ourselves, with positions and weights (A title, B tags, C body), and cast it. The query side
is the same: each term a quoted lexeme, prefix terms marked ``:*``, all OR-ed. Kept apart from
running SQL so a property test can prove no input yields a syntax error.
"""

from __future__ import annotations

import re

from memwarden.models import IndexText, KeywordQuery

# PostgreSQL limits: a lexeme under 2 KiB, positions 1..16383, at most 256 positions per lexeme.
MAX_LEXEME_BYTES = 2046
MAX_POSITION = 16383
MAX_POSITIONS_PER_LEXEME = 256
# ts_rank weights in {D, C, B, A} order: body (C) 1, tags (B) 2, title (A) 4, as SQLite's bm25;
# context (D) 0.35 of body, as SQLite's CONTEXT_WEIGHT.
RANK_WEIGHTS = "{0.0875, 0.25, 0.5, 1.0}"


def quote_lexeme(term: str) -> str:
    """A tsvector/tsquery lexeme literal: backslashes and quotes escaped, the whole in quotes."""
    return "'" + term.replace("\\", "\\\\").replace("'", "''") + "'"


# A query is cut to this many terms, as on SQLite: more only slows the index down.
MAX_TERMS = 128


def usable(term: str) -> bool:
    if not term or "\x00" in term or term.isspace():
        return False
    try:
        return len(term.encode("utf-8")) <= MAX_LEXEME_BYTES
    except UnicodeEncodeError:  # a lone surrogate cannot reach PostgreSQL
        return False


def tsvector_literal(index: IndexText) -> str:
    """The tsvector of one memory's analyzed fields (space-separated terms), as a literal."""
    positions: dict[str, list[str]] = {}
    position = 0
    for weight, text in (("A", index.title), ("B", index.tags), ("C", index.body), ("D", index.context)):
        for term in text.split():
            position = min(position + 1, MAX_POSITION)
            if not usable(term):
                continue
            slots = positions.setdefault(term, [])
            if len(slots) < MAX_POSITIONS_PER_LEXEME:
                slots.append(f"{position}{weight}")
    return " ".join(
        f"{quote_lexeme(term)}:{','.join(dict.fromkeys(slots))}" for term, slots in positions.items()
    )


def tsquery_literal(query: KeywordQuery) -> str:
    """Terms OR-ed; a term in ``query.prefix`` matches as a prefix (``'term':*``)."""
    parts = []
    for term in dict.fromkeys(query.terms):
        if not usable(term):
            continue
        parts.append(quote_lexeme(term) + (":*" if term in query.prefix else ""))
        if len(parts) >= MAX_TERMS:
            break
    return " | ".join(parts)


def tsquery_all_literal(query: KeywordQuery) -> str | None:
    """Every query word required (a word matches through any of its alternatives); None for one word.

    The keyword search runs this narrow query first: documents holding all the words are the
    best matches, and there are few of them even when each word is common.
    """
    groups = query.groups or tuple((term,) for term in dict.fromkeys(query.terms))
    parts = []
    for group in groups:
        alternatives = [
            quote_lexeme(t) + (":*" if t in query.prefix else "") for t in dict.fromkeys(group) if usable(t)
        ]
        if alternatives:
            parts.append("(" + " | ".join(alternatives) + ")")
    return " & ".join(parts[:MAX_TERMS]) if len(parts) > 1 else None


_FIELD_OF_WEIGHT = {"A": 0, "B": 1, "C": 2, "D": 3}
# One lexeme of tsvector output: quoted (quotes doubled, backslashes escaped), then positions.
_ENTRY = re.compile(r"'((?:[^'\\]|''|\\.)*)'(?::([0-9A-D,]+))?", re.DOTALL)
_ESCAPE = re.compile(r"''|\\(.)", re.DOTALL)


def parse_tsvector(text: str) -> IndexText:
    """The analyzed fields back from a tsvector's text output (the inverse of ``tsvector_literal``).

    Terms come back in position order within their field (weight A title, B tags, C body), so
    the ranking can measure query coverage exactly as on SQLite, whose FTS table keeps the text.
    """
    fields: list[list[tuple[int, str]]] = [[], [], [], []]
    if "''" not in text and "\\" not in text:
        _split_plain(text, fields)
        return _index_text(fields)
    for match in _ENTRY.finditer(text):
        term, slots = match.group(1), match.group(2)
        if "'" in term or "\\" in term:
            term = _ESCAPE.sub(lambda m: m.group(1) or "'", term)
        if not slots:
            fields[2].append((0, term))
            continue
        for slot in slots.split(","):
            last = slot[-1]
            if last.isdigit():  # PostgreSQL prints weight D (context) as a bare position
                fields[3].append((int(slot), term))
            else:
                fields[_FIELD_OF_WEIGHT[last]].append((int(slot[:-1]), term))
    return _index_text(fields)


def _split_plain(text: str, fields: list[list[tuple[int, str]]]) -> None:
    """``parse_tsvector`` when no lexeme holds a quote or a backslash (nearly always): every
    quote then opens or closes a lexeme, so splitting on quotes gives lexemes and positions
    without the regular expression (half the time; the search path parses 50 per query)."""
    parts = text.split("'")
    for i in range(1, len(parts) - 1, 2):
        term, slots = parts[i], parts[i + 1]
        if not slots.startswith(":"):
            fields[2].append((0, term))
            continue
        for slot in slots[1:].rstrip().split(","):
            last = slot[-1]
            if last.isdigit():  # weight D (context) prints as a bare position
                fields[3].append((int(slot), term))
            else:
                fields[_FIELD_OF_WEIGHT[last]].append((int(slot[:-1]), term))


def _index_text(fields: list[list[tuple[int, str]]]) -> IndexText:
    title, tags, body, context = (" ".join(term for _, term in sorted(f)) for f in fields)
    return IndexText(title=title, tags=tags, body=body, context=context)
