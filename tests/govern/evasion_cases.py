"""The evasion corpus: every rule family × every evasion × every field a caller writes.

Each case carries its own secret (a value generated from the case number that passes the
family's checksum), so a leak points at exactly one case. ``forbidden`` lists the byte strings
that must not be found anywhere memwarden writes: the value, its digits alone for numbers, and
the evaded form as it was written.
"""

from __future__ import annotations

import base64
import json
import random
from collections.abc import Callable
from dataclasses import dataclass

_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def _luhn_digit(body: str) -> str:
    total = 0
    for i, ch in enumerate(reversed(body)):
        d = int(ch)
        if i % 2 == 0:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return str((10 - total % 10) % 10)


def _tr_identity(i: int) -> str:
    d = [1 + i % 9] + [int(c) for c in f"{(i * 7919) % 10**8:08d}"]
    tenth = ((d[0] + d[2] + d[4] + d[6] + d[8]) * 7 - (d[1] + d[3] + d[5] + d[7])) % 10
    d.append(tenth)
    d.append(sum(d) % 10)
    return "".join(map(str, d))


def _cn_resident_id(i: int) -> str:
    weights = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
    body = f"110105{1950 + i % 50}{1 + i % 12:02d}{1 + i % 28:02d}{i % 1000:03d}"
    return body + "10X98765432"[sum(int(c) * w for c, w in zip(body, weights, strict=True)) % 11]


def _iban(i: int) -> str:
    bban = f"WEST{(i * 104729) % 10**14:014d}"
    number = "".join(str(int(c, 36)) for c in bban + "GB00")
    return f"GB{98 - int(number) % 97:02d}{bban}"


def _token(rng: random.Random, n: int, alphabet: str = _ALNUM) -> str:
    out = "".join(rng.choice(alphabet) for _ in range(n))
    return out[:-3] + "aZ9"  # always mixed case and digits


def _jwt(i: int, rng: random.Random) -> str:
    head = base64.urlsafe_b64encode(json.dumps({"alg": "HS256", "typ": "JWT"}).encode()).decode().rstrip("=")
    body = base64.urlsafe_b64encode(json.dumps({"sub": f"user-{i}"}).encode()).decode().rstrip("=")
    return f"{head}.{body}.{_token(rng, 43, _ALNUM + '_-')}"


def family_value(family: str, i: int) -> tuple[str, str]:
    """``(expression, secret)``: the text a rule needs to see, and the value in it that must go."""
    rng = random.Random(f"{family}:{i}")
    card = "4539" + f"{(i * 7919) % 10**11:011d}"
    area = 219 + i % 400
    values: dict[str, Callable[[], tuple[str, str]]] = {
        "email": lambda: ("{s}", f"person.{i}@corp{i}.example.org"),
        "phone_cn": lambda: ("{s}", f"139{(i * 7919) % 10**8:08d}"),
        "phone_us": lambda: ("{s}", f"(646) 555-{i % 10000:04d}"),
        "phone_tr": lambda: ("{s}", f"0532 {100 + i % 900:03d} {i % 100:02d} {(i * 7) % 100:02d}"),
        "phone_e164": lambda: ("{s}", f"+44 20 7946 {i % 10000:04d}"),
        "us_ssn": lambda: (
            "{s}",
            f"{area if area != 666 else 667:03d}-{10 + i % 89:02d}-{1000 + i % 9000:04d}",
        ),
        "payment_card": lambda: (
            "{s}",
            " ".join((card + _luhn_digit(card))[k : k + 4] for k in range(0, 16, 4)),
        ),
        "tr_identity": lambda: ("{s}", _tr_identity(i)),
        "cn_resident_id": lambda: ("{s}", _cn_resident_id(i)),
        "iban": lambda: ("{s}", _iban(i)),
        "ipv4": lambda: ("{s}", f"203.0.{i // 250 % 250}.{1 + i % 250}"),
        "aws_access_key": lambda: (
            "{s}",
            "AKIA" + _token(rng, 16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")[:-3] + "Q7X",
        ),
        "aws_secret_key": lambda: ("aws secret key: {s}", _token(rng, 40, _ALNUM + "/+")),
        "github_token": lambda: ("{s}", "ghp_" + _token(rng, 36)),
        "gitlab_token": lambda: ("{s}", "glpat-" + _token(rng, 20)),
        "slack_token": lambda: ("{s}", f"xoxb-{100000000000 + i}-{2000000000000 + i}-{_token(rng, 24)}"),
        "stripe_key": lambda: ("{s}", "sk_live_" + _token(rng, 24)),
        "google_api_key": lambda: ("{s}", "AIza" + _token(rng, 35)),
        "npm_token": lambda: ("{s}", "npm_" + _token(rng, 36)),
        "pypi_token": lambda: ("{s}", "pypi-AgEIcHlwaS5vcmc" + _token(rng, 60, _ALNUM + "_-")),
        "openai_key": lambda: ("{s}", "sk-proj-" + _token(rng, 32)),
        "jwt": lambda: ("{s}", _jwt(i, rng)),
        "url_password": lambda: ("postgres://app:{s}@db.internal/app", f"UrlPw{i}Zq"),
        "secret_assignment": lambda: ("password={s}", f"Plant{i}Pw"),
        "env_secret": lambda: ("export DB_PASS={s}", f"EnvPw{i}Xq"),
    }
    return values[family]()


FAMILIES = (
    "email",
    "phone_cn",
    "phone_us",
    "phone_tr",
    "phone_e164",
    "us_ssn",
    "payment_card",
    "tr_identity",
    "cn_resident_id",
    "iban",
    "ipv4",
    "aws_access_key",
    "aws_secret_key",
    "github_token",
    "gitlab_token",
    "slack_token",
    "stripe_key",
    "google_api_key",
    "npm_token",
    "pypi_token",
    "openai_key",
    "jwt",
    "url_password",
    "secret_assignment",
    "env_secret",
)


def _every(step: int, piece: str) -> Callable[[str], str]:
    return lambda s: "".join(ch + (piece if k % step == step - 1 else "") for k, ch in enumerate(s))


def _fullwidth(s: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in s)


def _arabic_digits(s: str) -> str:
    return "".join(chr(0x0660 + int(c)) if c.isdigit() and c.isascii() else c for c in s)


# Evasions of the secret alone (the expression around it stays plain).
CHAR_EVASIONS: dict[str, Callable[[str], str]] = {
    "plain": lambda s: s,
    "zero_width": _every(3, "\u200b"),
    "joiner": _every(4, "\u200d"),
    "soft_hyphen": _every(4, "\u00ad"),
    "bidi": lambda s: s[: len(s) // 2] + "\u202e" + s[len(s) // 2 :] + "\u202c",
    "fullwidth": _fullwidth,
    "other_digits": _arabic_digits,
}
# Evasions of the whole expression.
WHOLE_EVASIONS: dict[str, Callable[[str], str]] = {
    "url_encoded": lambda e: "".join(f"%{b:02X}" for b in e.encode()),
    "base64": lambda e: base64.b64encode(e.encode()).decode(),
}
CONTEXTS = {"plain": "contact {x} today", "cjk": "我的信息{x}请保密"}

# Which evasions each field is tried with.
FIELD_EVASIONS = {
    "content": [*CHAR_EVASIONS, *WHOLE_EVASIONS, "cjk"],
    "title": ["plain", "zero_width", "fullwidth"],
    "tags": ["plain", "soft_hyphen"],
    "project": ["plain", "other_digits"],
    "import": ["plain", "bidi", "base64"],
    "update": ["plain", "fullwidth", "url_encoded"],
}


@dataclass(frozen=True)
class EvasionCase:
    id: str
    family: str
    field: str
    evasion: str
    text: str  # what the caller writes into ``field``
    forbidden: tuple[str, ...]  # none of these may be found in any file or log line


def build_cases() -> list[EvasionCase]:
    cases: list[EvasionCase] = []
    n = 0
    for family in FAMILIES:
        for field, evasions in FIELD_EVASIONS.items():
            for evasion in evasions:
                n += 1
                expression, secret = family_value(family, n)
                if evasion in WHOLE_EVASIONS:
                    written = WHOLE_EVASIONS[evasion](expression.format(s=secret))
                    text = CONTEXTS["plain"].format(x=written)
                elif evasion == "cjk":
                    written = expression.format(s=secret)
                    text = CONTEXTS["cjk"].format(x=written)
                else:
                    written = expression.format(s=CHAR_EVASIONS[evasion](secret))
                    text = CONTEXTS["plain"].format(x=written)
                forbidden = {
                    secret,
                    written if evasion in WHOLE_EVASIONS else CHAR_EVASIONS.get(evasion, str)(secret),
                }
                digits = "".join(c for c in secret if c.isdigit())
                if len(digits) >= 9 and digits == "".join(c for c in secret if c.isalnum()):
                    forbidden.add(digits)
                cases.append(
                    EvasionCase(
                        f"{family}-{field}-{evasion}-{n}",
                        family,
                        field,
                        evasion,
                        text,
                        tuple(sorted(forbidden)),
                    )
                )
    return cases
