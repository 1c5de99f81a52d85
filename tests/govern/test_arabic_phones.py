"""Phone numbers of Arab countries in Arabic text: national and international forms, Arabic-Indic
digits, and the short service numbers written after a verb of calling; ordinary numbers stay.

Every number is generated from libphonenumber's own example numbers (``phonenumbers``), never
copied from a corpus.
"""

from __future__ import annotations

import phonenumbers
import pytest
from phonenumbers import PhoneNumberFormat, PhoneNumberType
from phonenumbers.phonemetadata import PhoneMetadata

from memwarden.govern import Redactor
from memwarden.govern.markers import MARKER

REDACTOR = Redactor()
ARAB_REGIONS = ("JO", "AE", "SA", "EG", "KW", "QA", "BH", "OM", "MA", "DZ", "TN", "IQ", "LB", "PS")
ARABIC_INDIC = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")
CALL_ME_ON = "اتصل بي على {n} بعد الخامسة."  # "call me on {n} after five"
MY_NUMBER = "رقمي {n} شكرا"  # "my number is {n}, thanks"


def _digits_left(text: str) -> bool:
    return any(ch.isdigit() for ch in MARKER.sub("", text))


def _examples() -> list[tuple[str, str]]:
    out = []
    for region in ARAB_REGIONS:
        for kind in (PhoneNumberType.MOBILE, PhoneNumberType.FIXED_LINE):
            example = phonenumbers.example_number_for_type(region, kind)
            if example is None:
                continue
            for form in (PhoneNumberFormat.NATIONAL, PhoneNumberFormat.INTERNATIONAL):
                out.append((region, phonenumbers.format_number(example, form)))
    return out


@pytest.mark.parametrize(("region", "number"), _examples())
@pytest.mark.parametrize("sentence", [CALL_ME_ON, MY_NUMBER])
@pytest.mark.parametrize("digits", ["ascii", "arabic-indic"])
def test_mobile_and_fixed_numbers_of_arab_countries_are_redacted_in_arabic_text(
    region: str, number: str, sentence: str, digits: str
) -> None:
    written = number.translate(ARABIC_INDIC) if digits == "arabic-indic" else number
    red = REDACTOR.redact(sentence.format(n=written))
    assert not _digits_left(red.text), (region, red.text)


def _service_numbers() -> list[tuple[str, str]]:
    """Each region's example short number and emergency number of 3-5 digits."""
    out = set()
    for region in ARAB_REGIONS:
        meta = PhoneMetadata.short_metadata_for_region(region)
        if meta is None:
            continue
        for desc in (meta.general_desc, meta.emergency, meta.toll_free):
            example = desc.example_number if desc is not None else None
            if example and 3 <= len(example) <= 5:
                out.add((region, example))
    return sorted(out)


@pytest.mark.parametrize(("region", "number"), _service_numbers())
@pytest.mark.parametrize("digits", ["ascii", "arabic-indic"])
def test_a_short_service_number_after_a_verb_of_calling_is_redacted(
    region: str, number: str, digits: str
) -> None:
    written = number.translate(ARABIC_INDIC) if digits == "arabic-indic" else number
    red = REDACTOR.redact(CALL_ME_ON.format(n=written))
    assert red.rules == ("phone",) and not _digits_left(red.text), (region, red.text)


@pytest.mark.parametrize(
    "text",
    [
        "Call me back on {n} after five.",
        "llámame al {n} por favor",
        "appelle-moi au {n} demain",
    ],
)
def test_a_short_number_after_calling_is_redacted_in_other_languages_too(text: str) -> None:
    assert REDACTOR.redact(text.format(n="1387")).rules == ("phone",)


@pytest.mark.parametrize(
    "text",
    [
        "رقم الغرفة 214 في الطابق الثاني",  # room number 214 on the second floor
        "السعر 250 دينار فقط",  # the price is only 250 dinars
        "اتصل بي في عام 2026",  # call me in (the year) 2026
        "الهاتف بسعة 256 جيجابايت",  # the phone with 256 GB
        "الطلب رقم 4521 وصل اليوم",  # order number 4521 arrived today
        "call 100 users before Friday",  # the verb right before the number: a count
        "The call lasted 1500 seconds",
        "phone with 256 GB of storage",
        "string to 922 characters",
        "Bring me 300 chairs",
    ],
)
def test_ordinary_short_numbers_stay_even_near_words_about_phones(text: str) -> None:
    assert REDACTOR.redact(text).matches == 0, text


def test_a_marker_before_a_short_number_is_not_read_as_a_verb() -> None:
    text = "[REDACTED:phone] 214"
    assert REDACTOR.redact(text).text == text
