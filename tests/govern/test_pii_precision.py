"""Numbers that look like personal data and are not: loopback and network ranges, section numbers."""

from __future__ import annotations

import pytest

from memwarden.govern import Redactor

REDACTOR = Redactor()


@pytest.mark.parametrize(
    "text",
    [
        "the dev server listens on ::1 port 8000",
        "bind to :: and 0.0.0.0",
        "route 10.0.0.0/8 through the VPN, and 172.16.0.0/12 and 192.168.1.0/24 stay local",
        "the documentation prefix is 2001:db8::/32",
        "See Chapter 3.2.1.4 for the retry rules",
        "Siehe Abschnitt 4.7.9.3 der Spezifikation",
        "Voir la section 9.3.12.12, ou § 1.2.3.4",
        "重试规则见规范第6.10.2.5节",
        "사양의 6.7.8.11절을 보세요",
        "firmware 1.2.3.4 and ver. 2.0.0.1",
    ],
)
def test_ranges_loopback_and_section_numbers_are_kept(text: str) -> None:
    assert REDACTOR.redact(text).text == text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("host 10.1.2.3/24 is the gateway", "host [REDACTED:ipv4]/24 is the gateway"),
        ("the server 8.8.8.8 answered", "the server [REDACTED:ipv4] answered"),
        ("peer 2001:db8::7 and fe80::1", "peer [REDACTED:ipv6] and [REDACTED:ipv6]"),
    ],
)
def test_addresses_of_machines_are_still_redacted(text: str, expected: str) -> None:
    assert REDACTOR.redact(text).text == expected
