"""tsvector / tsquery literals built from analyzed terms: every lexeme quoted, nothing re-parsed.

The service hands the store text that ``text/`` has already analyzed (folded, stemmed, CJK
bigrams). PostgreSQL must index exactly those terms, so we never run ``to_tsvector`` (its
parser would split and its configuration could re-stem): we write the tsvector literal
ourselves, with positions and weights (A title, B tags, C body), and cast it. The query side
is the same: each term a quoted lexeme, prefix terms marked ``:*``, all OR-ed. Kept apart from
running SQL so a property test can prove no input yields a syntax error.
"""

from __future__ import annotations

from memwarden.models import IndexText, KeywordQuery

# PostgreSQL limits: a lexeme under 2 KiB, positions 1..16383, at most 256 positions per lexeme.
MAX_LEXEME_BYTES = 2046
MAX_POSITION = 16383
MAX_POSITIONS_PER_LEXEME = 256
# ts_rank weights in {D, C, B, A} order: body (C) 1, tags (B) 2, title (A) 4, as SQLite's bm25.
RANK_WEIGHTS = "{0.1, 0.25, 0.5, 1.0}"


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
    for weight, text in (("A", index.title), ("B", index.tags), ("C", index.body)):
        for term in text.split():
            position = min(position + 1, MAX_POSITION)
            if not usable(term):
                continue
            slots = positions.setdefault(term, [])
            if len(slots) < MAX_POSITIONS_PER_LEXEME:
                slots.append(f"{position}{weight}")
    return " ".join(f"{quote_lexeme(term)}:{','.join(dict.fromkeys(slots))}" for term, slots in positions.items())


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


_FIELD_OF_WEIGHT = {"A": 0, "B": 1, "C": 2, "D": 2}


def parse_tsvector(text: str) -> IndexText:
    """The analyzed fields back from a tsvector's text output (the inverse of ``tsvector_literal``).

    Terms come back in position order within their field (weight A title, B tags, C body), so
    the ranking can measure query coverage exactly as on SQLite, whose FTS table keeps the text.
    """
    fields: list[list[tuple[int, str]]] = [[], [], []]
    i, n = 0, len(text)
    while i < n:
        if text[i] == " ":
            i += 1
            continue
        if text[i] != "'":
            raise ValueError(f"not a tsvector at {i}: {text[i:i + 20]!r}")
        i += 1
        lexeme: list[str] = []
        while i < n:
            ch = text[i]
            if ch == "\\" and i + 1 < n:
                lexeme.append(text[i + 1])
                i += 2
            elif ch == "'" and i + 1 < n and text[i + 1] == "'":
                lexeme.append("'")
                i += 2
            elif ch == "'":
                i += 1
                break
            else:
                lexeme.append(ch)
                i += 1
        term = "".join(lexeme)
        if i < n and text[i] == ":":
            i += 1
            end = text.find(" ", i)
            end = n if end < 0 else end
            for slot in text[i:end].split(","):
                weight = slot[-1] if slot[-1].isalpha() else "D"
                position = int(slot.rstrip("ABCD"))
                fields[_FIELD_OF_WEIGHT[weight]].append((position, term))
            i = end
        else:
            fields[2].append((0, term))
    title, tags, body = (" ".join(term for _, term in sorted(f, key=lambda p: p[0])) for f in fields)
    return IndexText(title=title, tags=tags, body=body)
