"""IBANs of the whole registry and beyond, 12-digit Maestro cards, e-mail addresses with the at sign
spelled out."""

from __future__ import annotations

import pytest

from memwarden.govern import Redactor
from memwarden.govern.checksums import iban_valid, luhn_valid

REDACTOR = Redactor()


def _with_check_digits(country: str, bban: str) -> str:
    digits = "".join(str(int(ch, 36)) for ch in bban + country + "00")
    return f"{country}{98 - int(digits) % 97:02d}{bban}"


@pytest.mark.parametrize(
    ("country", "bban"),
    [
        ("RU", "04452560040702810412345678901"),  # registry countries added since 2020
        ("OM", "0180000001299123456"),
        ("SO", "1000001001000100141"),
        ("LY", "002048000020100120361"),
        ("TH", "0123456789"),  # outside the registry, written the IBAN way
        ("PH", "1234567890123456"),
    ],
)
def test_ibans_of_new_and_unregistered_countries_are_redacted(country: str, bban: str) -> None:
    iban = _with_check_digits(country, bban)
    assert iban_valid(iban)
    assert REDACTOR.redact(f"wire it to {iban} today").text == "wire it to [REDACTED:iban] today"


def test_an_iban_shaped_word_needs_capitals_digits_and_its_checksum() -> None:
    iban = _with_check_digits("PH", "1234567890123456")
    assert not iban_valid(iban.lower())  # outside the registry only capitals count
    assert not iban_valid(iban[:-1] + str((int(iban[-1]) + 1) % 10))
    assert not iban_valid("TH12ABCDEFGHIJKL")  # too few digits


def test_twelve_digit_maestro_numbers_pass_luhn_only_with_a_maestro_prefix() -> None:
    assert luhn_valid("501234567896") and luhn_valid("6304 1234 5674")
    assert not luhn_valid("401234567899")  # a Luhn-valid 12-digit number that is no Maestro card
    assert REDACTOR.redact("card 501234567896 ok").text == "card [REDACTED:payment_card] ok"


@pytest.mark.parametrize(
    "address",
    [
        "jane [at] example [dot] org",
        "jane(at)example(dot)org",
        "JANE [AT] EXAMPLE [DOT] ORG",
        "jane.doe {at} mail.example.co.uk",
        "jane [@] example [.] org",
    ],
)
def test_an_address_with_the_at_sign_spelled_out_in_brackets_is_redacted(address: str) -> None:
    assert REDACTOR.redact(f"write to {address} soon").text == "write to [REDACTED:email_spelled] soon"


def test_at_and_dot_as_plain_words_are_a_sentence() -> None:
    for text in ("write to jane at example dot com", "see [at] the top (dot) com"):
        assert REDACTOR.redact(text).text == text
