"""Phone numbers of every region, in national and international forms (govern/pii_phones.py)."""

from __future__ import annotations

import time

import pytest

from memwarden.govern import MARKER, Redactor
from memwarden.govern.pii_phones import international_possible

REDACTOR = Redactor()


@pytest.mark.parametrize(
    "text",
    [
        "Rappelle-moi au 06 12 34 56 78 demain.",
        "Office (+44) 20 7946 0958, ask for Sam.",
        "Dial 0044 20 7946 0958 from abroad.",
        "Mein Festnetz: 030 12345678.",
        "Handy 0171 2345678, abends.",
        "The Leeds desk is (01632) 960 123.",
        "Reach the vendor at 555.201.4477x12 any time.",
        "Riga line +(371) 2123 4567.",
        "Belgian desk +32(0)2 555 12 34.",
        "夜は090-1234-5678に電話してください。",
        "저녁에 02-312-3456로 전화 주세요.",
        "Call me back on 81234567 after five.",
        "اتصل بي على 0551234567 بعد الخامسة.",
    ],
)
def test_phone_numbers_written_the_national_or_international_way_are_redacted(text: str) -> None:
    out = REDACTOR.redact(text)
    digits = [ch for ch in MARKER.sub("", out.text) if ch.isdigit()]
    assert out.redacted and len(digits) <= 2, out.text  # only an extension's or a label's digits stay
    assert REDACTOR.redact(out.text).text == out.text


@pytest.mark.parametrize(
    "text",
    [
        "Order #48213977 shipped on 2024-01-15 at 14:30.",
        "Invoice INV-20240115 for 1,234.56 EUR is due 15.02.2024.",
        "The job started at unix time 1600986323 and ran 296 minutes.",
        "Upgraded the CLI to version 3.4.2.8861 (build 20251230.13).",
        "Meeting moved to 2026-09-10, room 1.07.",
        "The office is at -33.868820, 151.209296.",
        "ISBN 978-0-306-40615-7, EAN 4006381333931 on the box.",
        "Request 7215ab04-1050-40b3-b569-b23baf7c195f timed out after 26477 ms.",
        "Listen on port 8080, cache size 1048576 bytes.",
        "Ticket ORD-882656123 and PROJ-4521 are linked.",
        "Der Release ist am 30.12.2025 um 21:02 geplant.",
        "See section 12.8.5.10.11 and the numbers 1 2 3 4 5 6 7 8.",
    ],
)
def test_ordinary_numbers_stay(text: str) -> None:
    assert REDACTOR.redact(text).text == text


def test_international_numbers_are_checked_against_their_country_plan() -> None:
    assert international_possible("+44 20 7946 0958")
    assert international_possible("0044 20 7946 0958")
    assert international_possible("+44 (0)20 7946 0958")
    assert not international_possible("+44 20 79")  # too short for the UK plan
    assert not international_possible("+999 1234 5678")  # no such calling code


def test_sixteen_kib_of_digits_and_separators_is_redacted_quickly() -> None:
    for unit in ("0123456789", "12 34 ", "1-2.3/4(5)6 ", "+1 ", "06 12 34 56 78 "):
        text = (unit * (16384 // len(unit) + 1))[:16384]
        started = time.process_time()
        out = REDACTOR.redact(text)
        assert time.process_time() - started < 2.0, unit  # bounded, not a hang
        assert REDACTOR.redact(out.text).text == out.text
