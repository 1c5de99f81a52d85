"""Properties of redaction, checked with hypothesis: it never raises, it is idempotent, and it
never leaves a piece of a matched value visible."""

from __future__ import annotations

from govern_vectors import POSITIVE
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from memwarden.govern import Redactor

REDACTOR = Redactor()
VALUES = [value for _, _, value in POSITIVE]
ALPHABET = st.characters(
    codec="utf-8",
    categories=("L", "N", "P", "S", "Zs"),
    include_characters="\n\t@:./+-=_[]()'\"",
)
noise = st.text(ALPHABET, max_size=40)
# Text made of real values, look-alike fragments and noise, so rules meet and overlap.
FRAGMENTS = st.sampled_from(
    VALUES
    + [
        "password=",
        "api_key: ",
        "://u:",
        "@",
        "+",
        "-----BEGIN RSA PRIVATE KEY-----",
        "[REDACTED:email]",
        "[REDACTED:",
        "4111",
        "::",
        "10.0.",
        " ",
    ]
)
mixed = st.lists(st.one_of(FRAGMENTS, noise), max_size=12).map("".join)
# Values glued to each other and to single joining characters: where a replacement changes
# what a neighbouring rule sees.
glued = st.lists(
    st.one_of(FRAGMENTS, st.sampled_from(list("()[]:=@.-+/%_,;'\"aAf0519 \n"))), max_size=12
).map("".join)
FAST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(st.one_of(st.text(), mixed))
def test_redaction_never_raises(text: str) -> None:
    for mode in ("enforce", "dry-run", "off"):
        assert isinstance(Redactor(mode=mode).redact(text).text, str)


@FAST
@given(st.one_of(st.text(), mixed, glued))
# A number joined by a space to an address starting with a digit: the number alone is a phone
# number once the address is a marker, so the first redaction must already see it alone.
@example("00100000000000 0@0.AA")
@example("call 0612345678 0@0.AA and 1@1.BB")
# A whole token after "1::": once it is a marker, "1::" stands alone as an IPv6 address.
@example("1::xoxa-0-00-00")
# A marker's letters must not complete a pattern around it (a .pgpass line's database name).
@example("0:00:(0@0.AA;:0")
# A decimal comma joins two numbers until one of them is a marker.
@example("01000000,02000000000")
# An address's local part may be in a script written without spaces.
@example("github_pat_" + "0" * 54 + "ゝ@0.AA")
# An id word's filler must not cross a marker to reach a value the address's dots kept it from.
@example("deploy:Wq8ztkV2身份证ayşe.yılmaz@örnek.com.trrfv'AB 12 34 56 Cbyw0ey35zpnsceugl\"ax.0\n_")
def test_redaction_is_idempotent(text: str) -> None:
    once = REDACTOR.redact(text)
    twice = REDACTOR.redact(once.text)
    assert twice.text == once.text
    assert twice.matches == 0


@FAST
@given(noise, st.sampled_from([(t, v) for _, t, v in POSITIVE]), noise)
def test_no_character_of_a_planted_value_stays_visible(
    left: str, vector: tuple[str, str], right: str
) -> None:
    context, value = vector
    text = f"{left} {context}\n{right}"
    start = len(left) + 1 + context.index(value)
    covered = set()
    for finding in REDACTOR.find(text):
        covered.update(range(finding.start, finding.end))
    assert set(range(start, start + len(value))) <= covered, (text, REDACTOR.find(text))
    assert value not in REDACTOR.redact(text).text


@FAST
@given(mixed)
def test_what_a_rule_matched_is_replaced_whole(text: str) -> None:
    findings = REDACTOR.find(text)
    output = REDACTOR.redact(text).text
    for finding in findings:
        matched = text[finding.start : finding.end]
        elsewhere = text[: finding.start] + "\x00" + text[finding.end :]
        if len(matched) >= 6 and matched not in elsewhere:
            assert matched not in output


def test_an_id_of_one_repeated_digit_is_a_placeholder_not_an_id() -> None:
    """'000000000000' passes the 12-digit INN check; it was redacted only once an address after
    it became a marker (the idempotence case Hypothesis found)."""
    for text in ("000000000000 0@0.AA", "000000000000 [REDACTED:email]", "ИНН 000000000000"):
        once = REDACTOR.redact(text)
        assert "national_id" not in once.text and REDACTOR.redact(once.text).text == once.text
