"""The vendor token table (govern/secret_tokens.py): a token of every row, drawn from the row's own
prefix and body shape, is redacted whole wherever it stands; glued to a word, or cut short, it stays."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from memwarden.govern import Redactor
from memwarden.govern.rules import Rule
from memwarden.govern.secret_tokens import TOKEN_FORMATS, TOKEN_RULES, bounded

REDACTOR = Redactor()
ROWS = [(name, prefix, body) for name, prefix, body, _ in TOKEN_FORMATS]
AROUND = st.sampled_from(["{t}", "key {t} here", "token: {t}\n", "'{t}'", "url?k={t}&x=1", "({t})"])


def _row_rule(prefix: str, body: str) -> Rule:
    return next(
        rule for row, rule in zip(TOKEN_FORMATS, TOKEN_RULES, strict=True) if row[1:3] == (prefix, body)
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


GLUE = st.sampled_from(["", " ", "a", "Z", "_", "9", "-", ".", "\n", "|", "x_", "(", "=", "é", "中"])


@pytest.mark.parametrize(("name", "prefix", "body"), ROWS, ids=[f"{n}:{p}" for n, p, _ in ROWS])
def test_a_row_finds_what_its_pattern_with_a_leading_lookbehind_finds(
    name: str, prefix: str, body: str
) -> None:
    # ``bounded`` tests the boundary after the first character (so ``re`` can skip to the places
    # holding it); the plain form tests it before the match.
    plain = re.compile(f"(?<![0-9A-Za-z_])(?:{prefix}){body}(?![0-9A-Za-z_])", re.DOTALL)
    moved = re.compile(f"{bounded(prefix, body)}(?![0-9A-Za-z_])", re.DOTALL)

    @settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.lists(st.one_of(st.from_regex(f"(?:{prefix}){body}", fullmatch=True), GLUE), max_size=5))
    def check(pieces: list[str]) -> None:
        text = "".join(pieces)
        for pos in range(min(len(text), 3)):
            assert [m.span() for m in moved.finditer(text, pos)] == [
                m.span() for m in plain.finditer(text, pos)
            ]

    check()


def test_bounded_moves_the_boundary_after_a_first_character_of_every_shape() -> None:
    assert bounded("hf_", "[a-z]{3}") == "(?:h(?<![0-9A-Za-z_].)f_)[a-z]{3}"
    assert bounded("", r"\d{5,16}:A") == r"\d(?<![0-9A-Za-z_].)\d{4,15}:A"
    assert bounded("(?:SK|AC)", "x").startswith("(?:(?:S(?<![0-9A-Za-z_].)K|A(?<![0-9A-Za-z_].)C))")
    # An optional first character keeps the leading lookbehind.
    assert bounded("", "a?b") == "(?<![0-9A-Za-z_])a?b"
    assert bounded("", r"\d{0,3}x") == r"(?<![0-9A-Za-z_])\d{0,3}x"
