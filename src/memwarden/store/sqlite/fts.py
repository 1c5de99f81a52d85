"""Build FTS5 MATCH expressions from analyzed terms: every term quoted, nothing else leaks.

Kept apart from running the query (sqlite-utils' ``search_sql`` habit) so a property test can
prove that no input produces an FTS5 syntax error.
"""

from __future__ import annotations

from memwarden.models import KeywordQuery


def quote_term(term: str) -> str:
    """An FTS5 string literal: double quotes doubled, the whole term in quotes."""
    return '"' + term.replace('"', '""') + '"'


def match_expression(query: KeywordQuery) -> str:
    """Terms OR-ed; a term in ``query.prefix`` matches as a prefix (``"term" *``)."""
    parts = []
    for term in dict.fromkeys(query.terms):
        if not term or "\x00" in term:
            continue
        parts.append(quote_term(term) + (" *" if term in query.prefix else ""))
    return " OR ".join(parts)
