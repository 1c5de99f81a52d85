"""The vendor token table (govern/secret_tokens.py): a token of every row, drawn from the row's own
prefix and body shape, is redacted whole wherever it stands; glued to a word, or cut short, it stays."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from memwarden.govern import Redactor
from memwarden.govern.rules import Rule
from memwarden.govern.secret_tokens import TOKEN_FORMATS, TOKEN_RULES

REDACTOR = Redactor()
ROWS = [(name, prefix, body) for name, prefix, body, _ in TOKEN_FORMATS]
AROUND = st.sampled_from(["{t}", "key {t} here", "token: {t}\n", "'{t}'", "url?k={t}&x=1", "({t})"])


def _row_rule(prefix: str, body: str) -> Rule:
    return next(
        r
        for r in TOKEN_RULES
        if r.pattern.endswith(f"{prefix}){body}(?![0-9A-Za-z_])")
        or (not prefix and f"{body}(?!" in r.pattern)
    )


@pytest.mark.parametrize(("name", "prefix", "body"), ROWS, ids=[f"{n}:{p}" for n, p, _ in ROWS])
def test_a_token_of_every_table_row_is_redacted_whole(name: str, prefix: str, body: str) -> None:
    @settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.from_regex(f"(?:{prefix}){body}", fullmatch=True), AROUND)
    def check(token: str, around: str) -> None:
        # A row whose hints are 3 characters or fewer runs on a token holding a digit or "_"
        # (govern/redactor.py, _SHORT_HINT): random bodies do; prose words do not.
        rule = _row_rule(prefix, body)
        assume(any(len(h) > 3 for h in rule.hints) or any(c.isdigit() or c == "_" for c in token))
        text = around.format(t=token)
        out = REDACTOR.redact(text)
        assert token not in out.text, (text, out.text)
        assert out.redacted

    check()


@pytest.mark.parametrize(("name", "prefix", "body"), ROWS, ids=[f"{n}:{p}" for n, p, _ in ROWS])
def test_a_table_row_does_not_match_glued_to_a_word(name: str, prefix: str, body: str) -> None:
    rule = _row_rule(prefix, body)

    @settings(max_examples=5, deadline=None)
    @given(st.from_regex(f"(?:{prefix}){body}", fullmatch=True))
    def check(token: str) -> None:
        # Glued after a letter it is part of another word; a match may start only later inside it.
        assert all(start > 1 for start, _ in rule.spans(f"zq{token}"))

    check()


def test_every_row_runs_only_when_one_of_its_hints_is_in_the_text() -> None:
    for rule in TOKEN_RULES:
        assert rule.hints and all(h == h.lower() for h in rule.hints), rule.name
