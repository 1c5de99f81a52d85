"""Short numbers next to words about calling: times, rooms and orders stay; phone numbers do not.

A number near "call", "phone" or "ring" is a phone number even in a shape ordinary numbers share,
unless the words right next to it name it something else (``govern.phone_context``): a record,
place or thing counted ("room 4021", "order 20231"), or a time of day ("1530 hours", "at 0945").
"""

from __future__ import annotations

import pytest

from memwarden.govern import Redactor
from memwarden.govern.phone_context import is_time_of_day, names_a_record

REDACTOR = Redactor()
WHOLE_TEXT = Redactor(scoped=False)


def _kept(text: str) -> bool:
    once = REDACTOR.redact(text)
    assert WHOLE_TEXT.redact(text) == once, text
    assert REDACTOR.redact(once.text).text == once.text, text
    return once.text == text


@pytest.mark.parametrize(
    "text",
    [
        "call at 1530 hours to confirm",
        "Please call me at 0945 tomorrow",
        "ring the office at 1715",
        "call me after 1800 hours",
        "call me at 930 am",
        "Ruf mich um 1430 an",
        "Ruf mich morgen gegen 1615 Uhr an",
        "appelle-moi à 1645",
        "call room 4021 for towels",
        "call me in room 3117 after lunch",
        "dial room 2208 from the lobby",
        "call about order 20231",
        "call me about order 202315 when it ships",
        "phone about ticket 774512 before noon",
        "Call me about invoice 2023-118",
        "call back re case 884213",
        "call the hotel, room number 5120",
        "call them about order no. 31877",
        "phone: room #6012",
        "rappelle-moi chambre 214 ce soir",
        "bel me over bestelling 552201",
        "call me at 15:30 tomorrow",
        "ring me at 9:45",
        "phone firmware version 3.2.1.4 is out",
        "call support about the 10.0.0.0/8 range",
        "the phone app listens on ::1 port 8000",
    ],
)
def test_times_rooms_and_orders_next_to_words_about_calling_stay(text: str) -> None:
    assert _kept(text), REDACTOR.redact(text).text


@pytest.mark.parametrize(
    "text",
    [
        "call me on 1387 after five",
        "call me at 1387",  # no minute 87: not a time
        "call me on 1530",  # "on" is no preposition of time
        "ring me at 2460",
        "call me on 922",
        "llámame al 4455 por favor",
        "call about order 0612345678",  # a phone number's own shape stays one
        "call me about it on 0131 496 0000",
        "call the front desk on 612 3456",
    ],
)
def test_phone_numbers_next_to_words_about_calling_are_still_redacted(text: str) -> None:
    once = REDACTOR.redact(text)
    assert once.rules == ("phone",), (text, once.text)
    assert WHOLE_TEXT.redact(text) == once


def test_a_record_noun_is_read_before_the_number_only() -> None:
    text = "call room 4021 or 0612345678"
    assert names_a_record(text, text.index("4021"))
    assert not names_a_record(text, text.index("0612"))
    assert not names_a_record("call myroom 4021", len("call myroom "))  # a word ending in a noun


def test_a_time_of_day_needs_a_valid_time_and_a_word_for_it() -> None:
    assert is_time_of_day("at 1530", 3, 7)
    assert is_time_of_day("930 hours", 0, 3)
    assert not is_time_of_day("at 930", 3, 6)  # three digits need a word for hours
    assert not is_time_of_day("at 1575", 3, 7)  # no minute 75
    assert not is_time_of_day("on 1530", 3, 7)
    assert not is_time_of_day("1530 horses", 0, 4)


def test_a_marker_before_a_number_is_no_noun() -> None:
    text = "call [REDACTED:room] 4021"  # a rule's name inside a marker names nothing
    assert not names_a_record(text, text.index("4021"))
