"""Build FTS5 MATCH expressions from analyzed terms: every term quoted, nothing else leaks.

Kept apart from running the query (sqlite-utils' ``search_sql`` habit) so a property test can
prove that no input produces an FTS5 syntax error.

The index holds text the analyzer already produced (terms separated by spaces), so the FTS5
tokenizer only has to split on white space: ``unicode61`` with every category but separators
and controls as token characters does exactly that, and its own case folding is a no-op on
folded terms. Prefix indexes on 2-4 characters keep prefix queries (a lone CJK character) fast.
"""

from __future__ import annotations

from memwarden.digests import sha256
from memwarden.models import KeywordQuery

# The FTS5 table the keyword index lives in (migration 0005_scoped_index). ``scope`` holds one
# token naming the memory's tenant and project (``scope_token``), so a project-scoped search is
# answered inside the index (``scope : "s…" AND …``) without reading every matching memory row;
# its bm25 weight is 0, so it never changes the score. ``context`` (migration 0009) holds the
# analyzed context of a memory, a low-weight field (``keyword_methods.BM25_WEIGHTS``).
FTS_TABLE_SQL = (
    "CREATE VIRTUAL TABLE memories_fts USING fts5("
    "title, tags, body, context, scope, "
    "tokenize = \"unicode61 remove_diacritics 0 categories 'L* M* N* P* S* Co Cn Cs'\", "
    "prefix = '2 3 4')"
)
# A query is cut to this many terms: more only slows the index down.
MAX_TERMS = 128


def quote_term(term: str) -> str:
    """An FTS5 string literal: double quotes doubled, the whole term in quotes."""
    return '"' + term.replace('"', '""') + '"'


def _usable(term: str) -> bool:
    if not term or "\x00" in term or term.isspace():
        return False
    try:
        term.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate cannot reach SQLite
        return False
    return True


def _quoted(term: str, query: KeywordQuery, *, widen: bool) -> str:
    """A term: ``"t" *`` for a prefix term; widened, ``"t" OR "t" *`` for a ``prefix_if_rare``
    term, so an exact match scores twice (bm25 adds both) and ranks above words that merely
    start the same way."""
    if term in query.prefix:
        return quote_term(term) + " *"
    if widen and term in query.prefix_if_rare:
        return f"{quote_term(term)} OR {quote_term(term)} *"
    return quote_term(term)


def word_expressions(query: KeywordQuery) -> list[tuple[str, str | None]]:
    """For each query word: its alternative terms OR-ed, in parentheses, and the same with its
    ``prefix_if_rare`` terms also matched as prefixes (None when it has none).

    Words without a usable term are left out; at most MAX_TERMS terms in all.
    """
    groups = query.groups or tuple((t,) for t in dict.fromkeys(query.terms))
    out: list[tuple[str, str | None]] = []
    budget = MAX_TERMS
    for group in groups:
        terms = [t for t in dict.fromkeys(group) if _usable(t)][:budget]
        if not terms:
            continue
        budget -= len(terms)
        exact = "(" + " OR ".join(_quoted(t, query, widen=False) for t in terms) + ")"
        wide = None
        if any(t in query.prefix_if_rare for t in terms):
            wide = "(" + " OR ".join(_quoted(t, query, widen=True) for t in terms) + ")"
        out.append((exact, wide))
        if budget <= 0:
            break
    return out


def scope_token(tenant: str | None, project: str | None) -> str | None:
    """The index token of one tenant+project: ``s`` and 24 hex digits of their SHA-256.

    Computed here and written with the index row as a plain value (``keyword_methods.index_row``
    says why it is not computed by SQL in an ``INSERT … SELECT``).
    """
    if tenant is None or project is None:
        return None
    return "s" + sha256(f"{tenant}\x00{project}".encode("utf-8", "surrogatepass")).hexdigest()[:24]


def scoped_expression(expression: str, scope: str | None) -> str:
    """Restrict the terms to the text columns and, with a scope, to one tenant+project."""
    terms = "{title tags body context} : (" + expression + ")"
    return terms if scope is None else f'scope : "{scope}" AND ' + terms
