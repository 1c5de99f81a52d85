"""Identity, tax and passport numbers after a word naming them (govern/pii_national_ids.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memwarden.govern import Redactor
from memwarden.govern.pii_national_ids import (
    _DIGIT_LED_ID,
    _FORM_CHARACTERS,
    _LETTER_LED_ID,
)

REDACTOR = Redactor()


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("My ID number is AB123456C, thanks.", "AB123456C"),
        ("National Insurance QQ 12 34 56 C on the form.", "QQ 12 34 56 C"),
        ("Meine Ausweisnummer ist L01X00T47.", "L01X00T47"),
        ("Mi número de identificación es 12345678Z.", "12345678Z"),
        ("Número do passaporte FT123456, válido.", "FT123456"),
        ("Numer paszportu EA1234567, ważny do 2030.", "EA1234567"),
        ("Αριθμός ταυτότητας ΑΒ123456 στο αρχείο.", "ΑΒ123456"),
        ("Мой номер паспорта 4509 123456.", "4509 123456"),
        ("رقم جواز السفر A12345678 ينتهي قريبا.", "A12345678"),
        ("パスポート番号はTZ1234567です。", "TZ1234567"),
        ("제 주민등록번호는 900101-1234567입니다.", "900101-1234567"),
        ("护照号码E12345678，明年到期。", "E12345678"),
        ("Cédula V-12345678 registrada.", "V-12345678"),
    ],
)
def test_a_number_after_a_word_naming_an_identity_document_is_redacted(text: str, value: str) -> None:
    out = REDACTOR.redact(text)
    assert value not in out.text and out.redacted, out.text
    assert REDACTOR.redact(out.text).text == out.text


@pytest.mark.parametrize(
    "text",
    [
        "The passport office opens at 9, room 1204.",
        "Set uid 1000 and gid 1000 in the container.",
        "See RFC 4122 for UUID layouts.",
        "The ID number format changed in version 2.10.4.",
        "Passport valid until 2031-05-01.",
        "Sin 1000 euros no hay trato.",
        "Identity provider rotated keys at 14:30.",
    ],
)
def test_words_about_identity_next_to_ordinary_numbers_change_nothing(text: str) -> None:
    assert REDACTOR.redact(text).text == text


FORM_ALPHABET = st.sampled_from([*"0123456789", *"ABCDEHKLMPRSTXYZ", "Ñ", "&", *" ./+-", *"ax,_é\n"])


@settings(max_examples=400, deadline=None)
@given(st.lists(FORM_ALPHABET, min_size=1, max_size=40).map("".join), st.integers(0, 39))
def test_no_national_id_form_reaches_past_the_run_of_characters_forms_hold(text: str, start: int) -> None:
    # NationalIdRule skips a place whose run of form characters lies inside a covered span: that is
    # exact only if every form's match is such a run.
    start = min(start, len(text) - 1)
    run = _FORM_CHARACTERS.match(text, start)
    assert run is not None
    for form in (_DIGIT_LED_ID, _LETTER_LED_ID):
        found = form.match(text, start)
        assert found is None or found.end() <= run.end()


def test_national_id_forms_hold_only_digits_capitals_and_separators_written_in_the_table() -> None:
    for value in (
        "RSSMRA85T10A562S",
        "GODE561231GR8",
        "X-1234567-L",
        "123.456.789-09",
        "1 85 05 78 006 084 36",
    ):
        run = _FORM_CHARACTERS.match(value)
        assert run is not None and run.end() == len(value)
