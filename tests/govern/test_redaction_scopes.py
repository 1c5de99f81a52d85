"""Scoped search (govern.scopes) finds exactly what searching every rule over the whole text finds.

The scopes are a speed-up only: each built-in rule searches just the windows of a text that can
hold one of its values. These tests compare the redactor with scopes on against the same rules
searching the whole text, on every corpus memwarden has and on generated text where numbers,
separators, addresses and letters meet.
"""

from __future__ import annotations

import re

import pytest
from evasion_cases import build_cases
from govern_vectors import NEGATIVE, POSITIVE
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.govern_corpora import benign_corpus, hostile_corpus, precision_corpus
from memwarden.govern import OPTIONAL_RULES, Redactor
from memwarden.govern.builtin_rules import BUILTIN_RULES
from memwarden.govern.scopes import NUMBER_SCOPES, Scopes, fold

SCOPED = Redactor()
WHOLE = Redactor(scoped=False)


def _same(text: str) -> None:
    assert SCOPED.find(text) == WHOLE.find(text), text
    assert SCOPED.redact(text) == WHOLE.redact(text), text


def test_every_builtin_number_and_address_rule_has_a_scope() -> None:
    scoped = {rule.name for rule in BUILTIN_RULES if rule.scope != "text"}
    assert {"payment_card", "iban", "email", "ipv4", "ipv6", "us_ssn", "phone_us", "tr_identity"} <= scoped
    assert all(rule.scope == "text" for rule in OPTIONAL_RULES)


def test_scoped_search_equals_whole_text_search_on_every_corpus() -> None:
    texts = [case.text for case in build_cases()]
    texts += [text for _, text in precision_corpus() + hostile_corpus() + benign_corpus()]
    texts += [text for _, text, _ in POSITIVE] + [text for _, text in NEGATIVE]
    assert len(texts) > 3500
    for text in texts:
        _same(text)


NUMBERISH = st.text(
    st.sampled_from(list("0123456789 .-()+xX:@abcdefDE/\n_") + ["４", "٣", "\u200b"]), max_size=60
)
PIECES = st.sampled_from(
    [
        "4111 1111 1111 1111",
        "4111.1111.1111.1111",
        "+90 (532) 123 45 67",
        "(415) 555-2671",
        "+1 415 555 2671",
        "13800138000",
        "+86 138 0013 8000",
        "10000000146",
        "11010519491231002X",
        "123-45-6789",
        "DE89 3704 0044 0532 0130 00",
        "GB82 WEST 1234 5698 7654 32",
        "10.0.0.12",
        "version 1.2.3.4",
        "fe80::1ff:fe23:4567:890a",
        "::ffff:10.0.0.1",
        "jane.doe@example.org",
        "mailto:ops@acme.io",
        "PASSWORD=hunter22",
        "Api_Key: sk_live_abc",
        "İ",
        "ı",
        "我的手机号是",
    ]
)
MIXED = st.lists(st.one_of(PIECES, NUMBERISH), max_size=10).map("".join)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(MIXED, st.text(max_size=80)))
def test_scoped_search_equals_whole_text_search_on_generated_text(text: str) -> None:
    _same(text)


@pytest.mark.parametrize(
    "text",
    [
        "00100000000000 0@0.AA",  # a number joined to an address: a second pass judges it alone
        "call 0612345678 0@0.AA and 1@1.BB",
        "call at 1530 hours, room 4021, order 20231",
        "call me on 1387 or at 0945",
    ],
)
def test_scoped_and_whole_text_search_agree_where_a_pass_changes_the_next(text: str) -> None:
    _same(text)
    once = SCOPED.redact(text)
    assert SCOPED.redact(once.text).text == once.text == WHOLE.redact(once.text).text


def test_fold_keeps_offsets_and_equates_what_a_case_insensitive_search_equates() -> None:
    for text in ("İSTANBUL PASSWORD", "parola ıı ſecret", "KEY", "Straße ΣΑΣ", "plain ascii"):
        assert len(fold(text)) == len(text)
    assert fold("İSTANBUL PAſſWORD K") == "istanbul password k"


def test_number_windows_hold_only_runs_with_enough_digits_and_merge_close_runs() -> None:
    text = "net 45 on 2026, call +1 415 555 2671 or 13800138000; far away " + "x" * 80 + " 10.0.0.12"
    scopes = Scopes(text)
    [(lo, hi, endpos)] = scopes.windows("numbers", 10)
    assert text[lo:hi] == "+1 415 555 2671 or 13800138000"
    assert endpos == hi + 2
    [(lo, hi, _)] = scopes.windows("dotted_numbers", 4)
    assert text[lo:hi] == "10.0.0.12"
    assert scopes.windows("digit_block", 17) == []


_NUMBER_KEYS = (
    ("numbers", 3),
    ("numbers", 9),
    ("digit_block", 11),
    ("plus_numbers", 7),
    ("dotted_numbers", 4),
)


def _plain_number_windows(text: str, scope: str, need: int) -> list[tuple[int, int, int]]:
    """The windows of one number family the plain way: every run read, tested and merged alone."""
    windows: list[tuple[int, int, int]] = []
    for match in re.finditer(r"[0-9][0-9 .()+\-\t\r\n/·]*", text):
        lo, hi = match.span()
        if hi - lo < 3:
            continue
        while lo > 0 and text[lo - 1] in "+(":
            lo -= 1
        if hi < len(text) and text[hi] in "Xx":
            hi += 1
        blocks = [len(block) for block in re.findall("[0-9]+", text[lo:hi])]
        if (
            sum(blocks) < need
            or (scope == "digit_block" and max(blocks) < need)
            or (scope == "dotted_numbers" and text.count(".", lo, hi) < 3)
            or (scope == "plus_numbers" and "+" not in text[lo:hi])
        ):
            continue
        if windows and lo - windows[-1][1] < 48:
            windows[-1] = (windows[-1][0], hi, min(len(text), hi + 2))
        else:
            windows.append((lo, hi, min(len(text), hi + 2)))
    return windows


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet="0123456789 .-()+xX/·\t\nab", max_size=160))
def test_one_walk_builds_the_windows_a_walk_per_number_family_builds(text: str) -> None:
    together = Scopes(text, _NUMBER_KEYS)
    for scope, digits in _NUMBER_KEYS:
        assert together.windows(scope, digits) == _plain_number_windows(text, scope, digits), (scope, digits)
    # A family nobody announced still gets its windows, and the IBAN windows read the same starts.
    assert together.windows("numbers", 12) == _plain_number_windows(text, "numbers", 12)
    assert together.windows("iban") == Scopes(text).windows("iban")


def test_the_redactor_announces_every_number_family_its_rules_ask_for() -> None:
    asked = {(rule.scope, digits) for rule, digits in zip(SCOPED.rules, SCOPED._window_digits, strict=True)}
    assert {key for key in asked if key[0] in NUMBER_SCOPES} == set(SCOPED._number_keys)


SECRET_NAMES = [
    "password", "passwd", "passphrase", "db_pass", "pwd", "my_pw", "conf.pw", "x-pw", "private_key",
    "private-key", "secret", "client_secret", "token", "access_token", "credentials", "consumer_key",
    "api_key", "apikey", "access-key", "account_key", "license_key", "encryption_key", "encryption-key",
    "master_key", "webhook_key", "signing_key", "shared-key", "sas_key", "?sig", "&signature",
    "?x-amz-signature", "&x-goog-signature",
]  # fmt: skip
FORMS = ["{n}=S3cr3t!value", "{n}: 'S3cr3t!value'", "{n} => 'S3cr3t!value'", "config['{n}'] = 'S3cr3t!v1'",
         "define('{n}', 'S3cr3t!value')", "os.Setenv(\"{n}\", \"S3cr3t!value\")",
         "System.setProperty( \"{n}\", \"S3cr3t!value\")", "{n} := \"S3cr3t!value\""]  # fmt: skip


@pytest.mark.parametrize("form", FORMS)
def test_secret_assignment_searched_near_its_hints_finds_every_word(form: str) -> None:
    # The rule is searched only from the stretches near its hints and anchors (``Rule.near``):
    # every word it starts with, in every form, is found as the whole text's search finds it.
    rule = next(rule for rule in BUILTIN_RULES if rule.name == "secret_assignment")
    assert rule.lead is not None
    for name in SECRET_NAMES:
        for case in (name, name.upper()):
            text = "Notes " + "x" * 30 + " then " + form.format(n=case) + " and a long tail of words " * 3
            _same(text)
            folded = fold(text)
            near = rule.near(folded, set(rule.hints))
            for match in rule.regex.finditer(folded):
                assert any(lo <= match.start() <= hi for lo, hi in near), (text, match)
