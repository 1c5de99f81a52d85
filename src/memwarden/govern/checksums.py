"""Checksums that tell a real identifier from a run of digits that merely looks like one.

Each function takes the matched text (separators allowed) and answers True only when the value
is well-formed *and* its check digits agree, so "order 4111 1111 1111 1112" is left alone while
"4111 1111 1111 1111" is redacted.
"""

from __future__ import annotations

import functools
import re
from datetime import date

_CN_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_CN_CHECK = "10X98765432"
# IBAN lengths per country (ISO 13616 registry); an unknown country is not an IBAN.
IBAN_LENGTHS = {
    "AD": 24,
    "AE": 23,
    "AL": 28,
    "AT": 20,
    "AZ": 28,
    "BA": 20,
    "BE": 16,
    "BG": 22,
    "BH": 22,
    "BR": 29,
    "BY": 28,
    "CH": 21,
    "CR": 22,
    "CY": 28,
    "CZ": 24,
    "DE": 22,
    "DK": 18,
    "DO": 28,
    "EE": 20,
    "EG": 29,
    "ES": 24,
    "FI": 18,
    "FO": 18,
    "FR": 27,
    "GB": 22,
    "GE": 22,
    "GI": 23,
    "GL": 18,
    "GR": 27,
    "GT": 28,
    "HR": 21,
    "HU": 28,
    "IE": 22,
    "IL": 23,
    "IQ": 23,
    "IS": 26,
    "IT": 27,
    "JO": 30,
    "KW": 30,
    "KZ": 20,
    "LB": 28,
    "LC": 32,
    "LI": 21,
    "LT": 20,
    "LU": 20,
    "LV": 21,
    "MC": 27,
    "MD": 24,
    "ME": 22,
    "MK": 19,
    "MR": 27,
    "MT": 31,
    "MU": 30,
    "NL": 18,
    "NO": 15,
    "PK": 24,
    "PL": 28,
    "PS": 29,
    "PT": 25,
    "QA": 29,
    "RO": 24,
    "RS": 22,
    "SA": 24,
    "SC": 31,
    "SE": 24,
    "SI": 19,
    "SK": 24,
    "SM": 27,
    "ST": 25,
    "SV": 28,
    "TL": 23,
    "TN": 24,
    "TR": 26,
    "UA": 29,
    "VA": 22,
    "VG": 24,
    "XK": 20,
    # Added to the SWIFT registry since 2020.
    "BI": 27,
    "DJ": 27,
    "FK": 18,
    "HN": 28,
    "LY": 25,
    "MN": 20,
    "NI": 28,
    "OM": 23,
    "RU": 33,
    "SD": 18,
    "SO": 23,
    "YE": 30,
}


_NOT_DIGIT = re.compile(r"\D")
# Every byte but the ten ASCII digits, deleted by ``bytes.translate``: what ``_NOT_DIGIT`` removes
# from ASCII text, with a table lookup per byte in C (``str.translate`` with a mapping looks each
# character up in a dict; card and IBAN checks take the digits of every long number of a text,
# often several times).
_NOT_ASCII_DIGIT = bytes(code for code in range(256) if not 48 <= code <= 57)
# Each digit in the doubled positions becomes the digit sum of its double (7 → 14 → 5).
_LUHN_DOUBLED = bytes.maketrans(b"0123456789", b"0246813579")
# IBAN letters as the numbers mod-97 reads them (A = 10 … Z = 35); digits stay themselves.
_IBAN_LETTER_DIGITS = {ord(letter): str(10 + i) for i, letter in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZ")}


def digits_of(text: str) -> str:
    """The decimal digits of ``text``, in order."""
    if text.isascii():
        return text if text.isdigit() else text.encode().translate(None, _NOT_ASCII_DIGIT).decode()
    return _NOT_DIGIT.sub("", text)


def luhn_valid(text: str) -> bool:
    """Payment cards: 13-19 digits passing the Luhn check; 12 for Maestro (IIN 50, 56-69)."""
    if text.isascii():  # the digits' bytes straight to the check (no str made of them)
        raw = text.encode()
        return _luhn_bytes_valid(raw if text.isdigit() else raw.translate(None, _NOT_ASCII_DIGIT))
    return luhn_digits_valid(digits_of(text))


def _luhn_bytes_valid(raw: bytes) -> bool:
    """``luhn_digits_valid`` of ASCII digits given as bytes."""
    if not 12 <= len(raw) <= 19:
        return False
    if len(raw) == 12 and not (raw[:2] == b"50" or b"56" <= raw[:2] <= b"69"):
        return False
    return (sum(raw[-1::-2]) + sum(raw[-2::-2].translate(_LUHN_DOUBLED)) - 48 * len(raw)) % 10 == 0


def luhn_digits_valid(digits: str) -> bool:
    """``luhn_valid`` of a value given as its digits alone (``digits_of``)."""
    if not 12 <= len(digits) <= 19 or not digits.isascii():
        return False
    if len(digits) == 12 and not (digits[:2] == "50" or "56" <= digits[:2] <= "69"):
        return False
    # The bytes of ASCII digits are 48 more than their values: one sum in C per half, not an
    # int() per digit (a shrinking card rule checks several pieces of every long number).
    raw = digits.encode()
    return (sum(raw[-1::-2]) + sum(raw[-2::-2].translate(_LUHN_DOUBLED)) - 48 * len(raw)) % 10 == 0


def iban_valid(text: str) -> bool:
    """IBAN: mod-97 of the rearranged number equal to 1, and the registry's length for its country.
    Countries outside the registry (Thailand, the Philippines, Argentina …) have IBAN-style account
    numbers too, and a copied IBAN may miss a character: any length of 14-34 is accepted when the
    value is written in capitals with at least 8 digits (a lower-case word with a lucky checksum
    is not one)."""
    compact = "".join(text.replace("-", " ").split())
    if len(compact) < 14 or len(compact) > 34 or not compact.isalnum() or not compact[2:4].isdigit():
        return False
    if IBAN_LENGTHS.get(compact[:2].upper()) != len(compact) and not (
        compact.isupper() and sum(ch.isdigit() for ch in compact) >= 8
    ):
        return False
    compact = compact.upper()
    rearranged = compact[4:] + compact[:4]
    if rearranged.isascii():  # every letter its two digits, in one pass in C
        return int(rearranged.translate(_IBAN_LETTER_DIGITS)) % 97 == 1
    number = "".join(str(int(ch, 36)) for ch in rearranged)
    return int(number) % 97 == 1


def cn_resident_id_valid(text: str) -> bool:
    """Chinese resident identity number: 18 characters, a real birth date, ISO 7064 MOD 11-2."""
    value = text.upper()
    if len(value) != 18 or not value[:17].isdigit() or value[0] == "0":
        return False
    try:
        born = date(int(value[6:10]), int(value[10:12]), int(value[12:14]))
    except ValueError:
        return False
    if not 1900 <= born.year <= 2100:
        return False
    total = sum(int(d) * w for d, w in zip(value[:17], _CN_WEIGHTS, strict=True))
    return _CN_CHECK[total % 11] == value[17]


def tr_identity_valid(text: str) -> bool:
    """Turkish T.C. Kimlik No: 11 digits, no leading 0, two check digits."""
    digits = digits_of(text)
    if digits.isascii():
        # The bytes of ASCII digits are 48 more than their values (one ``int`` per digit cost
        # more than the rest of the check).
        if len(digits) != 11 or digits[0] == "0":
            return False
        b = digits.encode()
        odd = b[0] + b[2] + b[4] + b[6] + b[8] - 5 * 48
        even = b[1] + b[3] + b[5] + b[7] - 4 * 48
        return b[9] - 48 == (odd * 7 - even) % 10 and b[10] - 48 == (sum(b[:10]) - 10 * 48) % 10
    d = [int(c) for c in digits]
    if len(d) != 11 or d[0] == 0:
        return False
    tenth = ((d[0] + d[2] + d[4] + d[6] + d[8]) * 7 - (d[1] + d[3] + d[5] + d[7])) % 10
    return d[9] == tenth and d[10] == sum(d[:10]) % 10


def us_ssn_valid(text: str) -> bool:
    """US SSN: area not 000, 666 or 9xx; group not 00; serial not 0000."""
    digits = digits_of(text)
    if len(digits) != 9:
        return False
    area, group, serial = digits[:3], digits[3:5], digits[5:]
    return area not in ("000", "666") and area[0] != "9" and group != "00" and serial != "0000"


def jwt_valid(text: str) -> bool:
    """A JSON Web Token: its first part is base64url JSON naming an ``alg``."""
    import base64
    import json

    head = text.split(".", 1)[0]
    try:
        decoded = json.loads(base64.urlsafe_b64decode(head + "=" * (-len(head) % 4)))
    except (ValueError, UnicodeDecodeError):
        return False
    return isinstance(decoded, dict) and "alg" in decoded


def ipv6_valid(text: str) -> bool:
    """An IPv6 address naming a machine: loopback ``::1`` and the unspecified ``::`` name none
    (as 127.x and 0.0.0.0 for IPv4)."""
    import ipaddress

    try:
        address = ipaddress.IPv6Address(text)
    except ValueError:
        return False
    return not (address.is_loopback or address.is_unspecified)


def mixed_case_digits(text: str) -> bool:
    """Looks generated: upper- and lower-case letters and digits (slugs such as sk-learn-… do not)."""
    return (
        any(c.isupper() for c in text) and any(c.islower() for c in text) and any(c.isdigit() for c in text)
    )


def pypi_macaroon_valid(text: str) -> bool:
    """A PyPI API token: ``pypi-`` and a base64url macaroon whose location is (test.)pypi.org."""
    import base64
    import binascii

    body = text.partition("-")[2][:64]
    body = body[: len(body) - len(body) % 4]
    try:
        head = base64.urlsafe_b64decode(body)
    except (ValueError, binascii.Error):
        return False
    return b"pypi.org" in head


def shannon_bits(text: str) -> float:
    """Shannon entropy of ``text`` in bits per character."""
    import math

    length = len(text)
    counts: dict[str, int] = {}
    for ch in text:
        counts[ch] = counts.get(ch, 0) + 1
    return -sum(n / length * math.log2(n / length) for n in counts.values()) if length else 0.0


def high_entropy(text: str) -> bool:
    """Looks like a generated secret: mixed case and digits, and at least 4 bits per character."""
    return mixed_case_digits(text) and shannon_bits(text) >= 4.0


_DATE_OR_TIME = re.compile(r"\d{4}[-./]\d{1,2}[-./]\d{1,2}|\d{1,2}[-./]\d{1,2}[-./]\d{2,4}|\d{1,2}[:.]\d{2}")


def id_like(text: str) -> bool:
    """The value after a word naming an identity number: 6 digits or more, or 4 and a letter; at
    most 32 characters; not a date or a time ("passport valid until 2031-05-01"), so "the passport
    office is in room 1204" keeps its room."""
    if text.isascii():  # the same counts, by C methods (an ASCII letter is a cased letter)
        digits = len(digits_of(text))
        letters = text.lower() != text.upper()
    else:
        digits = sum(ch.isdigit() for ch in text)
        letters = any(ch.isalpha() for ch in text)
    return (
        (digits >= 6 or (digits >= 4 and letters)) and len(text) <= 32 and not _DATE_OR_TIME.fullmatch(text)
    )


# What ``national_id_strength`` answers: no national id; an id whose check holds in a form that
# needs a word naming it nearby (a bare run of digits with one check digit); an id that stands alone.
NOT_AN_ID, ID_WITH_WORD, ID_ALONE = 0, 1, 2


_BARE_DIGITS = re.compile(r"\\d\{(\d+)\}")
_Forms = tuple[tuple[re.Pattern[str], tuple[str | None, ...]], ...]


@functools.cache
def _national_id_forms() -> tuple[dict[tuple[bool, int], tuple[str, ...]], dict[tuple[bool, bool], _Forms]]:
    """The rows of ``national_id_table.ID_SHAPES``, read on first use (not on every cold import):
    the modules of bare runs of ``n`` digits by (alone, n), looked up by a number's length; the
    other forms by (alone, digits only), each compiled once with the modules of the ids written
    that way: a run of digits is tried only on the forms one can take (a French NIR, not a DNI)."""
    from memwarden.govern.national_id_table import ID_SHAPES

    bare: dict[tuple[bool, int], list[str]] = {}
    by_shape: dict[tuple[bool, str], list[str | None]] = {}
    for row in ID_SHAPES:
        length = _BARE_DIGITS.fullmatch(row.shape)
        if length and row.module:
            bare.setdefault((row.alone, int(length.group(1))), []).append(row.module)
        else:
            by_shape.setdefault((row.alone, row.shape), []).append(row.module)
    forms: dict[tuple[bool, bool], list[tuple[re.Pattern[str], tuple[str | None, ...]]]] = {}
    for (alone, shape), modules in by_shape.items():
        compiled = re.compile(shape)
        digits = any(compiled.fullmatch(digit * n) for digit in "0123456789" for n in range(6, 24))
        forms.setdefault((alone, False), []).append((compiled, tuple(modules)))
        if digits:
            forms.setdefault((alone, True), []).append((compiled, tuple(modules)))
    return (
        {key: tuple(modules) for key, modules in bare.items()},
        {key: tuple(entries) for key, entries in forms.items()},
    )


def _checked(module: str | None, text: str) -> bool:
    from importlib import import_module

    return module is None or bool(import_module(module).is_valid(text))


def national_id_holds(text: str, *, alone: bool) -> bool:
    """Whether ``text`` is written in a form of ``national_id_table.ID_SHAPES`` that stands alone
    (``alone``) or that needs a word naming it (not ``alone``), and python-stdnum's check of that id
    holds. The forms are tried first: a stdnum module is imported only for a text written like its
    id (``stdnum.util`` imports pydoc, ssl and inspect, too much for a cold prompt hook that meets
    no such form)."""
    if len(set(digits_of(text))) < 2:  # "000000000000": a placeholder no issuer hands out
        return False
    bare, forms = _national_id_forms()
    digits = text.isdigit()
    if digits and any(_checked(module, text) for module in bare.get((alone, len(text)), ())):
        return True
    return any(
        shape.fullmatch(text) and any(_checked(module, text) for module in modules)
        for shape, modules in forms.get((alone, digits), ())
    )


def national_id_strength(text: str) -> int:
    """``ID_ALONE``, ``ID_WITH_WORD`` or ``NOT_AN_ID`` (``national_id_holds``)."""
    if national_id_holds(text, alone=True):
        return ID_ALONE
    return ID_WITH_WORD if national_id_holds(text, alone=False) else NOT_AN_ID


def national_id_valid(text: str) -> bool:
    """A national id that stands alone (``national_id_strength``): the validator a rule pack names."""
    return national_id_holds(text, alone=True)


# Names a rule pack may use for ``"validator"``.
# Validators that read nothing but the digits of a value (``digits_of``): a shrinking rule
# (``Rule.shrink``) takes the digits of a long match once and checks each piece's share of them.
DIGIT_VALIDATORS = {"luhn": luhn_digits_valid}

VALIDATORS = {
    "luhn": luhn_valid,
    "iban": iban_valid,
    "cn_resident_id": cn_resident_id_valid,
    "tr_identity": tr_identity_valid,
    "us_ssn": us_ssn_valid,
    "jwt": jwt_valid,
    "ipv6": ipv6_valid,
    "mixed_case_digits": mixed_case_digits,
    "pypi_macaroon": pypi_macaroon_valid,
    "high_entropy": high_entropy,
    "id_like": id_like,
    "national_id": national_id_valid,
}
