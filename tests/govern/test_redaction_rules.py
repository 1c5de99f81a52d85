"""Every rule family redacts its values and leaves look-alikes alone."""

from __future__ import annotations

import pytest
from govern_vectors import NEGATIVE as RULE_NEGATIVE
from govern_vectors import POSITIVE as RULE_POSITIVE
from secret_vectors import SECRET_NEGATIVE, SECRET_POSITIVE

from memwarden.govern import BUILTIN_RULES, Redactor
from memwarden.govern.checksums import cn_resident_id_valid, iban_valid, luhn_valid, tr_identity_valid
from memwarden.govern.secret_tokens import TOKEN_FORMATS

REDACTOR = Redactor()
POSITIVE = RULE_POSITIVE + SECRET_POSITIVE
NEGATIVE = RULE_NEGATIVE + SECRET_NEGATIVE


@pytest.mark.parametrize(("rule", "text", "value"), POSITIVE, ids=[f"{r}:{t[:30]}" for r, t, _ in POSITIVE])
def test_each_rule_redacts_its_positive_vectors(rule: str, text: str, value: str) -> None:
    outcome = REDACTOR.redact(text)
    assert rule in outcome.rules, outcome.text
    assert value not in outcome.text
    assert f"[REDACTED:{rule}]" in outcome.text
    assert outcome.redacted and outcome.matches >= 1


@pytest.mark.parametrize(("rule", "text"), NEGATIVE, ids=[f"{r}:{t[:30]}" for r, t in NEGATIVE])
def test_each_rule_leaves_its_negative_vectors_alone(rule: str, text: str) -> None:
    assert rule not in REDACTOR.redact(text).rules


def test_every_builtin_rule_has_positive_and_negative_vectors() -> None:
    """Every rule here, or (the vendor token table) in tests/govern/test_secret_tokens.py, which
    draws tokens of every table row from its own pattern."""
    names = {rule.name for rule in BUILTIN_RULES}
    tokens = {row[0] for row in TOKEN_FORMATS}
    assert names == {r for r, _, _ in POSITIVE} | tokens
    assert names == {r for r, _ in NEGATIVE} | tokens


def test_every_secret_rule_has_its_own_name() -> None:
    """Packs address rules by name (override, disable): two rules of one name would leave one."""
    from memwarden.govern.pii_rules import PII_RULES

    names = [rule.name for rule in BUILTIN_RULES if rule not in PII_RULES]
    assert len(names) == len(set(names)), sorted(n for n in set(names) if names.count(n) > 1)


def test_business_words_around_a_match_survive() -> None:
    outcome = REDACTOR.redact("The Acme renewal contact is jane@acme.io, call +44 20 7946 0958 before Friday")
    assert (
        outcome.text
        == "The Acme renewal contact is [REDACTED:email], call [REDACTED:phone_e164] before Friday"
    )


def test_url_password_keeps_user_and_host() -> None:
    text = REDACTOR.redact("postgres://app:s3cretPass@db.internal:5432/app").text
    assert text == "postgres://app:[REDACTED:url_password]@db.internal:5432/app"


def test_dry_run_reports_without_changing_and_off_does_nothing() -> None:
    text = "mail jane@acme.io"
    dry = Redactor(mode="dry-run").redact(text)
    assert (dry.text, dry.rules, dry.redacted) == (text, ("email",), False)
    off = Redactor(mode="off").redact(text)
    assert (off.text, off.rules, off.matches) == (text, (), 0)


def test_an_unknown_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="enforce, dry-run, off"):
        Redactor(mode="sometimes")


def test_checksums_accept_known_good_values_and_reject_one_digit_off() -> None:
    assert luhn_valid("4111111111111111") and not luhn_valid("4111111111111112")
    assert iban_valid("DE89370400440532013000") and not iban_valid("DE89370400440532013001")
    assert cn_resident_id_valid("11010519491231002X") and not cn_resident_id_valid("110105194912310021")
    assert tr_identity_valid("10000000146") and not tr_identity_valid("10000000147")


def test_markers_are_never_redacted_again() -> None:
    text = "password=[REDACTED:secret_assignment] and [REDACTED:email]"
    assert REDACTOR.redact(text).text == text
    assert REDACTOR.redact(text).matches == 0


def test_a_rejected_match_does_not_hide_a_valid_value_inside_it() -> None:
    assert (
        REDACTOR.redact("+2000000 411111111111 1111").text == "[REDACTED:phone_e164] [REDACTED:payment_card]"
    )
    assert REDACTOR.redact("cards 4111 1111 1111 1111 5500 0000 0000 0004 end").text == (
        "cards [REDACTED:payment_card] [REDACTED:payment_card] end"
    )


def test_builtin_rules_compile_on_first_use_with_the_secret_groups_of_their_pattern() -> None:
    """Built-in rules compile lazily (a cold search must not pay for every pattern); the secret
    groups read from the pattern's text are the compiled pattern's."""
    from memwarden.govern import OPTIONAL_RULES
    from memwarden.govern.rules import Rule

    fresh = Rule(name="fresh", pattern=r"pw=(?P<secret>\w+)")
    assert "regex" not in vars(fresh)
    assert fresh.secret_groups == ("secret",)
    assert fresh.spans("pw=hunter2") == [(3, 10)]
    assert "regex" in vars(fresh)
    for rule in (*BUILTIN_RULES, *OPTIONAL_RULES):
        compiled = rule.regex.groupindex
        assert rule.secret_groups == tuple(g for g in compiled if g.startswith("secret")), rule.name


def test_scripts_without_spaces_are_matched_by_code_point() -> None:
    from memwarden.govern.builtin_rules import NOSPACE_CHARS

    assert all(c in NOSPACE_CHARS for c in "手机号ใบ한글カナ１")
    assert not any(c in NOSPACE_CHARS for c in ("a", "1", " ", "é", "", "手机", None))
