"""The phone rule leaves unjudged the candidates an earlier rule already found whole
(``Rule.skips_covered``): that drops only numbers lying inside those findings, which change no
finding, so the redactor's output is what judging every candidate gives."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memwarden.govern import Redactor
from memwarden.govern.pii_phones import PhoneRule

PHONE = PhoneRule()
SCOPED = Redactor()
WHOLE = Redactor(scoped=False)  # gives no rule what earlier rules found


def test_phone_rule_skips_only_candidates_inside_a_finding() -> None:
    text = "call 06 12 34 56 78 or card 4111 1111 1111 1111, ssn 123-45-6789 0958"
    everything = PHONE.spans(text)
    card = (text.index("4111"), text.index("1111,") + 4)
    ssn = (text.index("123-45"), text.index("6789") + 4)
    with_covered = PHONE.spans(text, None, [card, ssn])
    assert set(with_covered) <= set(everything)
    # The number after the SSN makes a candidate reaching past the SSN: it is still judged.
    dropped = set(everything) - set(with_covered)
    assert dropped  # a piece of the card reads as a phone number in groups
    assert all(any(lo <= s and e <= hi for lo, hi in (card, ssn)) for s, e in dropped)
    assert (text.index("06"), text.index("78") + 2) in with_covered


def test_values_inside_other_findings_keep_their_names() -> None:
    text = "card 4111 1111 1111 1111, IBAN DE89 3704 0044 0532 0130 00, tel +44 20 7946 0958."
    assert SCOPED.find(text) == WHOLE.find(text)
    assert SCOPED.redact(text) == WHOLE.redact(text)
    assert set(SCOPED.redact(text).rules) == {"payment_card", "iban", "phone_e164"}


groups = st.lists(st.from_regex(r"\+?\(?[0-9]{1,5}\)?", fullmatch=True), min_size=1, max_size=8)
numbers = st.tuples(groups, st.sampled_from([" ", "-", ".", "/", ""])).map(lambda g: g[1].join(g[0]))
texts = st.lists(
    st.one_of(numbers, st.sampled_from([" ", ", ", " call ", " tel: ", " card ", "\n", "x", "-"])),
    max_size=12,
).map("".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts, st.lists(st.tuples(st.integers(0, 80), st.integers(1, 30)), max_size=4))
def test_covered_spans_drop_only_numbers_inside_them(text: str, raw: list[tuple[int, int]]) -> None:
    covered = [(start, min(len(text), start + size)) for start, size in raw if start < len(text)]
    everything = PHONE.spans(text)
    with_covered = PHONE.spans(text, None, covered)
    assert set(with_covered) <= set(everything)
    for start, end in set(everything) - set(with_covered):
        assert any(lo <= start and end <= hi for lo, hi in covered)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts)
def test_redactor_output_equals_judging_every_candidate(text: str) -> None:
    assert SCOPED.redact(text) == WHOLE.redact(text)
