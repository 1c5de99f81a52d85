"""Secrets inside URL-encoded and base64 runs are found, and the whole encoded run is replaced."""

from __future__ import annotations

import base64
from urllib.parse import quote

from govern_vectors import PLANTED, POSITIVE

from memwarden.govern import Redactor
from memwarden.govern.layers import decode_base64, decoded_runs

REDACTOR = Redactor()


def test_url_encoded_values_are_redacted_as_the_whole_run() -> None:
    assert REDACTOR.redact("mail jane.doe%40example.org today").text == "mail [REDACTED:email] today"
    assert REDACTOR.redact("GET /login?user=bob&q=password%3Dhunter22&x=1").text == (
        "GET /login?user=bob&q=[REDACTED:secret_assignment]&x=1"
    )


def test_fully_percent_encoded_values_are_found() -> None:
    for value in (PLANTED["email"], PLANTED["aws_access_key"], PLANTED["payment_card"]):
        encoded = "".join(f"%{b:02X}" for b in value.encode())
        out = REDACTOR.redact(f"payload {encoded} end")
        assert out.redacted and encoded not in out.text and out.text.startswith("payload [REDACTED:")


def test_base64_wrapped_secrets_are_redacted() -> None:
    blob = base64.b64encode(b"password=hunter2 and jane@acme.io").decode()
    assert REDACTOR.redact(f"blob {blob} end").text == "blob [REDACTED:secret_assignment] end"
    urlsafe = base64.urlsafe_b64encode(PLANTED["github_token"].encode()).decode().rstrip("=")
    assert REDACTOR.redact(f"x {urlsafe}").text == "x [REDACTED:github_token]"


def test_every_positive_vector_is_found_url_encoded_and_base64_wrapped() -> None:
    for rule, text, value in POSITIVE:
        for wrapped in (quote(text, safe=""), base64.b64encode(text.encode()).decode()):
            out = REDACTOR.redact(f"note {wrapped} end")
            assert out.redacted, (rule, wrapped)
            assert value not in out.text and wrapped not in out.text, (rule, out.text)


def test_ordinary_base64_and_percent_text_is_left_alone() -> None:
    text = (
        "Progress 45%, disk 80% full; sha256 "
        "n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg= and the word internationalization"
    )
    assert REDACTOR.redact(text).text == text
    assert decode_base64("internationalization") is None
    assert list(decoded_runs("hello %zz world")) == []


ENCODED_AT_SIGNS = {
    "decimal reference": "jane&#64;example.org",
    "hex reference": "jane&#x40;example&#x2E;org",
    "named reference": "jane&commat;example&period;org",
    "JSON escape": "jane\\u0040example.org",
    "long escape": "jane\\U00000040example.org",
    "hex escape": "jane\\x40example\\x2eorg",
    "quoted-printable": "jane=40example.org",
}


def test_html_references_backslash_escapes_and_quoted_printable_are_decoded() -> None:
    for name, encoded in ENCODED_AT_SIGNS.items():
        for text in (f"mail {encoded} today", f'<a href="mailto:{encoded}">x</a>', f'{{"to": "{encoded}"}}'):
            out = REDACTOR.redact(text)
            assert encoded not in out.text and "[REDACTED:email]" in out.text, (name, out.text)
            assert "jane" not in out.text and REDACTOR.redact(out.text).text == out.text, name


def test_every_character_of_a_value_may_be_encoded() -> None:
    card = "4111 1111 1111 1111"
    for encoded in (
        "".join(f"&#{ord(c)};" for c in card),
        "".join(f"\\u{ord(c):04x}" for c in card),
        "".join(f"={ord(c):02X}" for c in card),
    ):
        assert REDACTOR.redact(f"card {encoded} end").text == "card [REDACTED:payment_card] end"
    assert REDACTOR.redact("pw password=3Dhunter22 end").redacted  # "=3D" is "=" in quoted-printable


def test_ordinary_entities_escapes_and_equals_signs_are_left_alone() -> None:
    text = (
        "Tom &amp; Jerry &copy; 2024, a=1&b=2&lang=en, path C:\\new\\table, color=FF0000, "
        'JSON "caf\\u00e9 \\u2014 ok", x\\x41y, mail=3D unsubscribe'
    )
    assert REDACTOR.redact(text).text == text
    assert list(decoded_runs("no escapes here = fine & dandy")) == []
