"""Redaction rules: what a secret or a piece of personal data looks like.

A rule is a regular expression, optionally a checksum validator (``checksums.VALIDATORS``) and
optionally *hints*: lower-case substrings of which one must occur in the text for the rule to
run at all (a cheap filter that keeps redaction within its budget, see bench/govern.py). When a pattern
has named groups starting with ``secret``, only those groups are replaced (the user name and
host of a URL stay readable; the password does not). When a validator rejects a match of a
``shrink`` rule, shorter pieces cut at spaces and dashes are tried, so a card number followed by
more digits is still found.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from memwarden.govern.checksums import VALIDATORS

RULE_NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
_CUT = re.compile(r"[ \-]")


@dataclass(frozen=True)
class Rule:
    name: str
    pattern: str
    description: str = ""
    validator: str | None = None
    hints: tuple[str, ...] = ()
    ignore_case: bool = False
    shrink: bool = False
    regex: re.Pattern[str] = field(init=False, repr=False, compare=False)
    secret_groups: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        flags = re.DOTALL | (re.IGNORECASE if self.ignore_case else 0)
        compiled = re.compile(self.pattern, flags)
        object.__setattr__(self, "regex", compiled)
        object.__setattr__(self, "secret_groups", tuple(g for g in compiled.groupindex if g.startswith("secret")))

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name, "pattern": self.pattern, "description": self.description,
            "validator": self.validator, "hints": list(self.hints), "ignore_case": self.ignore_case,
            "shrink": self.shrink,
        }

    def _valid(self, text: str) -> bool:
        return self.validator is None or VALIDATORS[self.validator](text)

    def _shrunk(self, text: str, start: int, end: int) -> tuple[int, int] | None:
        """The longest piece of ``text[start:end]``, cut at separators, that validates."""
        value = text[start:end]
        cuts = [0] + [m.start() for m in _CUT.finditer(value)] + [len(value)]
        pieces = []
        for i, a in enumerate(cuts):
            for b in cuts[i + 1:]:
                lo = a + 1 if a else 0
                if b - lo > 0 and (lo, b) != (0, len(value)):
                    pieces.append((b - lo, lo, b))
        for _, lo, hi in sorted(pieces, reverse=True):
            if self._valid(value[lo:hi]):
                return start + lo, start + hi
        return None

    def spans(self, text: str) -> Iterator[tuple[int, int]]:
        """(start, end) of every value this rule redacts in ``text``.

        A match its validator rejects does not hide a valid value that starts inside it: the
        search resumes one character after the rejected match's start.
        """
        pos = 0
        search = self.regex.search
        while True:
            match = search(text, pos)
            if match is None:
                return
            found = False
            resume = match.end()
            if self.secret_groups:
                for name in self.secret_groups:
                    start, end = match.span(name)
                    if start >= 0 and end > start and self._valid(match.group(name)):
                        found = True
                        yield start, end
            else:
                start, end = match.span()
                if end > start and self._valid(text[start:end]):
                    found = True
                    yield start, end
                elif end > start and self.shrink:
                    piece = self._shrunk(text, start, end)
                    if piece is not None:
                        found = True
                        resume = piece[1]
                        yield piece
            pos = resume if found and resume > match.start() else match.start() + 1


_SECRET_KEY = (
    r"(?:password|passwd|passphrase|pwd|secret|api[_-]?key|apikey|access[_-]?key|auth[_-]?token"
    r"|access[_-]?token|refresh[_-]?token|client[_-]?secret|private[_-]?key|token)"
)

# Order matters only between rules that match the very same text: the first one names it.
BUILTIN_RULES: tuple[Rule, ...] = (
    Rule("private_key",
         r"-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----"
         r"(?:.*?-----END[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s:,.-]*)",
         "PEM / OpenSSH / PGP private keys, also when the END line is missing", hints=("private key",)),
    Rule("jwt", r"eyJ(?<![\w-]eyJ)[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*(?![\w-])",
         "JSON Web Tokens (header must decode to JSON with an alg)", validator="jwt", hints=("eyj",)),
    Rule("aws_access_key",
         r"A(?:KIA|SIA|BIA|CCA|GPA|IDA|IPA|NPA|NVA|ROA|PKA|SCA)(?<![A-Za-z0-9]....)[A-Z0-9]{16}(?![A-Za-z0-9])",
         "AWS access key ids", hints=("akia", "asia", "abia", "acca", "agpa", "aida", "aipa", "anpa", "anva",
                                      "aroa", "apka", "asca")),
    Rule("aws_secret_key",
         r"aws[ _-]?secret[ _-]?(?:access[ _-]?)?key\W{0,5}(?P<secret>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])",
         "AWS secret access keys next to their name", hints=("secret",), ignore_case=True),
    Rule("github_token",
         r"g(?<![A-Za-z0-9_]g)(?:h[pousr]_[A-Za-z0-9]{36,255}|ithub_pat_[A-Za-z0-9_]{22,255})(?![A-Za-z0-9_])",
         "GitHub personal, OAuth, app and fine-grained tokens",
         hints=("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")),
    Rule("openai_key",
         r"sk-(?<![\w-]sk-)(?:proj-|svcacct-|admin-|ant-(?:api\d\d-)?)?[A-Za-z0-9_-]{20,}(?![\w-])",
         "OpenAI-style secret keys (sk-…, sk-proj-…, sk-ant-…) with mixed case and digits",
         validator="mixed_case_digits", hints=("sk-",)),
    Rule("url_password",
         r"://[^\s:/?#@]*:(?P<secret>[^\s/?#]+)@(?=[^\s@/?#])",
         "the password in URLs and URL-style connection strings (user and host stay)", hints=("://",)),
    Rule("secret_assignment",
         _SECRET_KEY + r"[\w.-]*[\"']?[ \t]*(?:=[ \t]*"
         r"(?P<secret_eq>\"[^\"\r\n]+\"|'[^'\r\n]+'|[^\s\"',;&]+)"
         r"|:[ \t]*(?P<secret_colon>\"[^\"\r\n]+\"|'[^'\r\n]+'"
         r"|(?=[^\s\"',;]*[\d_/+=!@#$%^&*~-])[^\s\"',;]{6,}|[^\s\"',;]{16,}))",
         "password= / api_key: / token= style assignments, connection-string Password=…;",
         hints=("pass", "pwd", "secret", "key", "token"), ignore_case=True),
    Rule("email",
         r"[\w.%+-](?:(?<=mailto:.)|(?<![\w.%+:@-].))[\w.%+-]{0,63}@[^\W_](?:[\w-]{0,62}[^\W_])?(?:\.[^\W_](?:[\w-]{0,62}[^\W_])?)*\.[^\W\d_]{2,24}",
         "e-mail addresses", hints=("@",)),
    Rule("cn_resident_id",
         r"[1-9](?<![0-9A-Za-z][1-9])\d{5}(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[\dXx](?![0-9A-Za-z])",
         "Chinese resident identity numbers (birth date and MOD 11-2 check digit)",
         validator="cn_resident_id"),
    Rule("payment_card", r"[2-6](?<![\w-][2-6])\d(?:[ -]?\d){11,17}(?![\w])",
         "payment card numbers (13-19 digits, Luhn)", validator="luhn", shrink=True),
    Rule("iban", r"[A-Za-z](?<![A-Za-z0-9][A-Za-z])[A-Za-z]\d{2}(?:[ ]?[A-Za-z0-9]){11,30}(?![A-Za-z0-9])",
         "IBANs (country length and mod-97)", validator="iban", shrink=True),
    Rule("phone_cn", r"(?<![\w+])(?:(?:\+|00)86[ -]?)?1[3-9]\d(?:[ -]?\d{4}){2}(?!\d)",
         "Chinese mobile numbers such as 13800138000"),
    Rule("tr_identity", r"[1-9](?<![\w][1-9])\d{10}(?!\d)",
         "Turkish T.C. Kimlik numbers (two check digits)", validator="tr_identity"),
    Rule("phone_us",
         r"(?<![\w+])(?:(?:\+|00)?1[ .-]?)?(?:\([2-9]\d{2}\)|[2-9]\d{2})[ .-]?[2-9]\d{2}[ .-]\d{4}(?![\w-])",
         "US / NANP phone numbers such as (415) 555-2671"),
    Rule("phone_tr",
         r"(?<![\w+])(?:(?:\+|00)90[ -]?\(?|0[ -]?\(?|\((?=5))[2-58]\d{2}\)?[ -]?\d{3}[ -]?\d{2}[ -]?\d{2}(?!\d)",
         "Turkish phone numbers (+90, 0 or (5xx) prefix)"),
    Rule("us_ssn", r"\d(?<![\w-]\d)\d\d([- ])\d{2}\1\d{4}(?![\w-])",
         "US social security numbers (area, group and serial checked)", validator="us_ssn"),
    Rule("phone_e164", r"\+(?<![\w+]\+)[1-9](?:[ -]?\d){6,14}(?![\d])", "any E.164 number (+ and 7-15 digits)",
         hints=("+",)),
    Rule("ipv4",
         r"(?<![\w.])(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?![\w]|\.\d)",
         "IPv4 addresses", hints=(".",)),
    Rule("ipv6",
         r"(?<![\w:.])(?=[0-9A-Fa-f:.]*[0-9A-Fa-f])(?:[0-9A-Fa-f]{0,4}:){2,7}"
         r"(?:(?:\d{1,3}\.){3}\d{1,3}|[0-9A-Fa-f]{1,4})?(?![\w:]|\.\d)",
         "IPv6 addresses (checked by the ipaddress module)", validator="ipv6", hints=(":",)),
)
