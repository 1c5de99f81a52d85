"""The shortcuts that keep redaction fast answer exactly what the plain computation answers.

Each shortcut (the redactor's HintScan, the change-only scan of govern.normalization, the token runs of
the redactor, the digit-count pruning of a shrinking rule) is compared with the plain way of
computing the same thing, on generated text.
"""

from __future__ import annotations

import re
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from memwarden.govern import Redactor, normalize
from memwarden.govern.checksums import digits_of
from memwarden.govern.normalization import normalize_char
from memwarden.govern.redactor import HintScan
from memwarden.govern.scopes import fold

REDACTOR = Redactor()
HINTS = REDACTOR._hints.hints
# Pieces of hints and the characters that guard their buckets, so generated texts hold some
# hints whole, some cut, and the guards without the hints.
PIECES = st.sampled_from(
    [*HINTS, *(hint[: len(hint) // 2 + 1] for hint in HINTS), *'"$}{][><=_@/+)(:-. ', "x"]
)
texts_of_pieces = st.lists(st.one_of(PIECES, st.text(max_size=6)), max_size=30).map("".join)


@settings(max_examples=300, deadline=None)
@given(texts_of_pieces)
def test_hint_scan_finds_exactly_the_hints_a_plain_substring_test_finds(text: str) -> None:
    lower = fold(text)
    assert HintScan(HINTS).present(lower) == {hint for hint in HINTS if hint in lower}


def test_hint_scan_keeps_hints_without_punctuation_and_single_characters() -> None:
    scan = HintScan(("pass", ":", "://", "ghp_", "at]"))
    assert scan.present("the pass") == {"pass"}
    assert scan.present("see https://x") == {":", "://"}
    assert scan.present("ghp_ and jane [at] x") == {"ghp_", "at]"}
    assert scan.present("nothing here") == set()


CHANGING = st.sampled_from(
    ["\u200b", "\u00ad", "４", "＠", "\u2028", "\x0b", "–", "١", "\U000e0041", "é", "中", " "]
)


def _plain_normalize(text: str) -> tuple[str, list[tuple[int, int, int, int]]]:
    """Character by character: the text and the edit of each character that changes."""
    parts: list[str] = []
    edits: list[tuple[int, int, int, int]] = []
    length = 0
    for offset, ch in enumerate(text):
        out = ch if ch.isascii() and ch not in "\x0b\x0c\x1c\x1d\x1e\x1f" else normalize_char(ch)
        if out != ch:
            edits.append((length, length + len(out), offset, offset + 1))
        parts.append(out)
        length += len(out)
    return "".join(parts), edits


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(CHANGING, st.text(max_size=5)), max_size=40).map("".join))
def test_normalize_gives_the_text_and_edits_of_a_character_by_character_pass(text: str) -> None:
    norm = normalize(text)
    expected_text, expected_edits = _plain_normalize(text)
    assert norm.text == expected_text
    assert list(norm.edits) == expected_edits


def test_normalize_of_text_whose_characters_all_stay_is_the_text_itself() -> None:
    text = "Müşteri toplantısı 会议改到周四 Встреча"
    assert all(unicodedata.normalize("NFKC", ch) == ch for ch in text)
    norm = normalize(text)
    assert norm.text == text and not norm.changed


def test_a_token_at_the_very_start_of_a_text_is_redacted() -> None:
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    assert REDACTOR.redact(f"{token} is the CI token").text.startswith("[REDACTED:")
    assert REDACTOR.redact(f"CI token {token}").text.endswith("]")


def test_quoted_printable_runs_are_decoded_anywhere_in_a_long_text() -> None:
    prose = "renewal terms stay at net 45, a=b and x=y. " * 20
    red = REDACTOR.redact(f"{prose}mail jane.doe=40example.org today")
    assert "jane.doe" not in red.text and red.rules == ("email",)


def test_a_card_followed_by_more_digit_groups_is_still_found_by_its_pieces() -> None:
    red = REDACTOR.redact("card 4111 1111 1111 1111 0044 0532 on file")
    assert "4111" not in red.text and "payment_card" in red.rules
    # No piece of 12+ digits passes Luhn: no card (the phone rule reads "0044 …" as a number).
    assert "payment_card" not in REDACTOR.redact("order 3704 0044 0532 0130 00 shipped").rules


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from([*"0123456789 .-/()+x·", "٣", "７", "\t", "é"]), max_size=40))
def test_digits_of_keeps_exactly_the_decimal_digits_a_regex_keeps(text: str) -> None:
    assert digits_of(text) == re.sub(r"\D", "", text)
    assert digits_of("4111 1111-1111.1111") == "4111111111111111"


def test_a_group_of_hints_reports_the_hints_inside_its_matches_and_past_the_matches_it_reads() -> None:
    scan = HintScan(("abcd", "abc", "abx", "aby", "bc"))
    assert scan.present("xx abcd xx") == {"abcd", "abc", "bc"}
    assert scan.present("abx " * 10 + "aby") == {"abx", "aby"}
    assert scan.present("a b c d") == set()


# The phone rules as they were written with a leading lookbehind; the built-in ones test the
# boundary after a number's first character, so ``re`` skips to the places a number can start.
_B = "0-9A-Za-z_"
LEADING_LOOKBEHIND = {
    "phone_cn": rf"(?<![{_B}+])(?:(?:\+|00)86[ -]?)?(?:1[3-9]\d|\(1[3-9]\d\))(?:[ -]?\d{{4}}){{2}}(?!\d)",
    "phone_us": rf"(?<![{_B}+])(?:(?:\+|00)?1[ .-]?)?(?:\([2-9]\d{{2}}\)|[2-9]\d{{2}})[ .-]?[2-9]\d{{2}}"
    rf"[ .-]\d{{4}}(?![{_B}-])",
    "phone_tr": rf"(?<![{_B}+])(?:(?:\+|00)90[ -]?\(?|0[ -]?\(?|\((?=5))[2-58]\d{{2}}\)?[ -]?\d{{3}}[ -]?\d{{2}}"
    rf"[ -]?\d{{2}}(?!\d)",
}
PHONE_PIECES = st.sampled_from(
    [
        *"0123456789012345678901234567890123456789",
        *" -.()+a_\n",
        "+86 ",
        "0086",
        "+1 ",
        "001",
        "+90 ",
        "0090",
        "(5",
    ]
)


@settings(max_examples=500, deadline=None)
@given(st.lists(PHONE_PIECES, max_size=30).map("".join), st.integers(0, 3))
def test_the_phone_rules_find_what_their_leading_lookbehind_forms_find(text: str, pos: int) -> None:
    rules = {rule.name: rule for rule in REDACTOR.rules}
    for name, pattern in LEADING_LOOKBEHIND.items():
        plain = re.compile(pattern, re.DOTALL)
        assert [m.span() for m in rules[name].regex.finditer(text, pos)] == [
            m.span() for m in plain.finditer(text, pos)
        ], name


def _env_secret_with_leading_lookbehind() -> str:
    """``env_secret`` as it was written before its alternatives started with a character."""
    from memwarden.govern import secret_assignment as sa

    name = sa._NOT_VALUE_NAME.upper()
    return (
        r"(?<![^\n])[ \t]*(?:export[ \t]+)?[A-Z][A-Z0-9_]*?(?:PASS|PWD|SECRET|TOKEN|KEY|CREDENTIALS?)[A-Z0-9_]*"
        + name
        + r"[ \t]*=[ \t]*(?P<secret_line>(?![\"'$%])(?!"
        + sa._PLACEHOLDER
        + r")[^\s][^\r\n]*?)[ \t]*(?=\r?\n|$)"
        rf"|(?:(?i:export|setx?|env|\$env:)(?<![{_B}]export)(?<![{_B}]set)(?<![{_B}]setx)(?<![{_B}]env)"
        rf"[ \t]*(?<=[ \t:])(?i:{sa._ENV_NAME})"
        rf"|[A-Z](?<![{_B}][A-Z])[A-Z0-9_-]*?(?:PASS|PWD|SECRET|TOKEN|KEY|CREDENTIALS?)[A-Z0-9_]*"
        + name
        + ")"
        r"[\"']?[ \t]*[=:][ \t]*(?P<secret>" + sa.QUOTED + "|" + sa.UNQUOTED + ")"
    )


ENV_PIECES = st.sampled_from(
    [
        "export ",
        "EXPORT ",
        "set ",
        "SETX ",
        "env ",
        "$env:",
        "$ENV:",
        "DB_PASS",
        "API_KEY",
        "api_key",
        "SECRET",
    ]
    + ["TOKEN_URL", "=", ": ", "\n", " ", "\t", "hunter2", "'q w'", '"a b"', "$VAR", "[PW]", "ſet ", "a", "Z"]
    + ["_", "e", "s", "é", "9", "=value with space\n", ",", "&user=x"]
)


@settings(max_examples=500, deadline=None)
@given(st.lists(ENV_PIECES, max_size=12).map("".join), st.integers(0, 4))
def test_env_secret_finds_what_its_leading_lookbehind_form_finds(text: str, pos: int) -> None:
    from memwarden.govern.secret_assignment import ENV_SECRET

    plain = re.compile(_env_secret_with_leading_lookbehind(), re.DOTALL)
    moved = re.compile(ENV_SECRET, re.DOTALL)
    assert [(m.span(), m.groupdict()) for m in moved.finditer(text, pos)] == [
        (m.span(), m.groupdict()) for m in plain.finditer(text, pos)
    ]
