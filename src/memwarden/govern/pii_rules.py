"""Personal data rules: e-mail addresses, phone numbers, national ids, payment cards, IBANs, IP addresses.

They run after the secret rules (``builtin_rules.BUILTIN_RULES`` ends with ``PII_RULES``), on
normalised text (``govern.normalization``), so patterns are written for ASCII digits and plain
punctuation. Word boundaries are ASCII (``_B``): a number glued to Chinese, Japanese, Thai or any
other script written without spaces ("手机号是13800138000，请回电") is still a whole number.
"""

from __future__ import annotations

import re

from memwarden.govern.pii_national_ids import ID_RULES
from memwarden.govern.pii_phones import PhoneRule
from memwarden.govern.rules import CodePoints, Rule

# What counts as "part of the same word" next to a value: ASCII letters, digits and underscore.
_B = "0-9A-Za-z_"
# Scripts written without spaces: an e-mail address glued to them ends where they start.
_NOSPACE = (
    "\u0e00-\u0e7f\u1100-\u11ff\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef"
)
# Characters of those scripts (Thai, Hangul, kana, CJK ideographs, full-width forms), to trim.
NOSPACE_CHARS = CodePoints(
    (0x0E00, 0x0E7F),
    (0x1100, 0x11FF),
    (0x3000, 0x30FF),
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xAC00, 0xD7AF),
    (0xF900, 0xFAFF),
    (0xFF00, 0xFFEF),
)
# A spelled-out "@" and ".", in brackets, with or without spaces around (lower case: the rule
# searches the case-folded text).
_SPELLED_AT = r"[ \t]?[\[({<][ \t]?(?:at|@)[ \t]?[\])}>][ \t]?"
_SPELLED_DOT = r"(?:[ \t]?[\[({<][ \t]?(?:dot|\.)[ \t]?[\])}>][ \t]?|\.)"
_LABEL = rf"[^\W_{_NOSPACE}](?:[^\W{_NOSPACE}]|-){{0,62}}"

# Four dotted numbers right after a word that names a version are a version, not an address.
_VERSION_WORDS = (
    "version",
    "Version",
    "VERSION",
    "build",
    "Build",
    "release",
    "Release",
    "firmware",
    "Firmware",
    "versión",
    "Versión",
    "versão",
    "Versão",
    "versione",
    "Versione",
    "versie",
    "Versie",
    "sürüm",
    "Sürüm",
    "версия",
    "Версия",
    "版本",
    "バージョン",
    "버전",
    "ver.",
    "Ver.",
)
# Four dotted numbers naming a section of a document ("Chapter 3.2.1.4", "Abschnitt 4.7.9.3",
# "第6.10.2.5节", "8.9.6.3 bölümüne", "6.7.8.11절") are a section number, not an address.
_SECTION_WORDS = (
    "section",
    "Section",
    "SECTION",
    "sec.",
    "Sec.",
    "chapter",
    "Chapter",
    "clause",
    "Clause",
    "paragraph",
    "Paragraph",
    "§",
    "Abschnitt",
    "Kapitel",
    "Absatz",
    "sección",
    "Sección",
    "capítulo",
    "Capítulo",
    "apartado",
    "chapitre",
    "Chapitre",
    "sezione",
    "Sezione",
    "capitolo",
    "Capitolo",
    "secção",
    "Secção",
    "seção",
    "Seção",
    "hoofdstuk",
    "Hoofdstuk",
    "sectie",
    "Sectie",
    "artikel",
    "Artikel",
    "rozdział",
    "Rozdział",
    "раздел",
    "Раздел",
    "глава",
    "Глава",
    "пункт",
    "Пункт",
    "القسم",
    "الفصل",
    "第",
)
_SECTION_AFTER = r"(?![ \t]?(?:bölüm|Bölüm|kısım|madde|节|節|章|条|項|절|장|항|조))"
_NOT_A_VERSION = "".join(f"(?<!{re.escape(w)} )(?<!{re.escape(w)})" for w in _VERSION_WORDS + _SECTION_WORDS)

# The phone rules' numbers are not glued after a letter, a digit, "_" or "+". Tested right after a
# number's first character (the character before that one): a pattern whose alternatives each
# start with a character lets ``re`` skip, in C, to the places holding one, where a leading
# lookbehind is tried at every position of a window (tests/govern/test_redaction_speed.py
# compares the phone rules with their leading-lookbehind forms).
_NOT_GLUED = rf"(?<![{_B}+].)"
_CN_MOBILE = r"(?:1[3-9]\d|\(1[3-9]\d\))"
_US_AREA = r"(?:\([2-9]\d{2}\)|[2-9]\d{2})"

# A dot inside a phone number only between groups of two or more digits (+44.20.7946.0958), so
# "+3.14159265" stays a number.
_PHONE_DOT = r"\.(?<=\d\d\.)(?=\d\d)"

# Order matters only between rules that match the very same text: the first one names it.
PII_RULES: tuple[Rule, ...] = (
    Rule(
        "email",
        # The local part may start inside a run of Chinese, Japanese … (the boundary looks at ASCII
        # only); the run is trimmed off the match, so an address glued to such text is found whole.
        r"[\w.%+-](?:(?<=mailto:.)|(?<![0-9A-Za-z_.%+:@-].))[\w.%+-]{0,63}@"
        + _LABEL
        + r"(?:\."
        + _LABEL
        + rf")*\.[^\W\d_{_NOSPACE}]{{2,24}}",
        "e-mail addresses",
        hints=("@",),
        trim=NOSPACE_CHARS,
        scope="email",
    ),
    Rule(
        "email_spelled",
        # jane [at] example [dot] org, jane(at)example(dot)org, jane {at} example.org: the "at" in
        # brackets (a plain "jane at example dot org" is a sentence, and stays).
        rf"(?<![\w.%+-])[\w.%+-]{{1,64}}{_SPELLED_AT}{_LABEL}(?:{_SPELLED_DOT}{_LABEL}){{0,8}}"
        rf"{_SPELLED_DOT}[^\W\d_{_NOSPACE}]{{2,24}}(?!\w)",
        "e-mail addresses with the at sign spelled out in brackets: jane [at] example [dot] org",
        hints=("at]", "at)", "at}", "at>", "@]", "@)", "@}", "@>"),
        folded=True,
    ),
    Rule(
        "cn_resident_id",
        rf"[1-9](?<![{_B}][1-9])\d{{5}}(?:18|19|20)\d{{2}}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{{3}}[\dXx](?![{_B}])",
        "Chinese resident identity numbers (birth date and MOD 11-2 check digit)",
        validator="cn_resident_id",
        scope="digit_block",
        min_digits=17,
    ),
    Rule(
        "payment_card",
        rf"[2-6](?<![{_B}][2-6])(?<![0-9][.-][2-6])\d(?:[ .-]?\d){{10,17}}(?![{_B}])"
        # Groups (4, then 4-6 …) set apart by the same wider separator: two spaces, " - ", "--".
        rf"|[2-6](?<![{_B}][2-6])(?<![0-9][.-][2-6])\d{{3}}(?P<sep> {{2}}| ?[./·-] ?|[.-]{{2}}|\t|\r?\n)\d{{4,6}}"
        rf"(?:(?P=sep)\d{{1,5}}){{1,3}}(?![{_B}])",
        "payment card numbers (13-19 digits, 12 for Maestro, Luhn; spaces, dashes or dots between, or the same separator "
        "between groups: two spaces, a tab, a line break, ' / ', ' · ', ' - ', '--')",
        validator="luhn",
        shrink=True,
        scope="numbers",
        min_digits=12,
    ),
    Rule(
        "iban",
        r"[A-Za-z](?<![A-Za-z0-9][A-Za-z])[A-Za-z]\d{2}(?:(?: {1,2}|-)?[A-Za-z0-9]){10,30}(?![A-Za-z0-9])",
        "IBANs (mod-97; the registry's length for its countries, and IBAN-style account numbers of "
        "other countries written in capitals)",
        validator="iban",
        shrink=True,
        scope="iban",
    ),
    Rule(
        "phone_cn",
        # One alternative per first character, the boundary tested after it (``_NOT_GLUED``).
        rf"(?:\+{_NOT_GLUED}86[ -]?{_CN_MOBILE}|0{_NOT_GLUED}086[ -]?{_CN_MOBILE}|1{_NOT_GLUED}[3-9]\d"
        rf"|\({_NOT_GLUED}1[3-9]\d\))(?:[ -]?\d{{4}}){{2}}(?!\d)",
        "Chinese mobile numbers such as 13800138000",
        scope="numbers",
        min_digits=11,
    ),
    Rule(
        "tr_identity",
        rf"[1-9](?<![{_B}][1-9])\d{{10}}(?!\d)",
        "Turkish T.C. Kimlik numbers (two check digits)",
        validator="tr_identity",
        scope="digit_block",
        min_digits=11,
    ),
    Rule(
        "phone_us",
        rf"(?:\+{_NOT_GLUED}1[ .-]?{_US_AREA}|0{_NOT_GLUED}01[ .-]?{_US_AREA}|1{_NOT_GLUED}[ .-]?{_US_AREA}"
        rf"|\({_NOT_GLUED}[2-9]\d{{2}}\)|[2-9]{_NOT_GLUED}\d{{2}})[ .-]?[2-9]\d{{2}}[ .-]\d{{4}}(?![{_B}-])",
        "US / NANP phone numbers such as (415) 555-2671",
        scope="numbers",
        min_digits=10,
    ),
    Rule(
        "phone_tr",
        rf"(?:\+{_NOT_GLUED}90[ -]?\(?|0{_NOT_GLUED}090[ -]?\(?|0{_NOT_GLUED}[ -]?\(?|\({_NOT_GLUED}(?=5))"
        rf"[2-58]\d{{2}}\)?[ -]?\d{{3}}[ -]?\d{{2}}[ -]?\d{{2}}(?!\d)",
        "Turkish phone numbers (+90, 0 or (5xx) prefix)",
        scope="numbers",
        min_digits=10,
    ),
    Rule(
        "us_ssn",
        rf"\d(?<![{_B}]\d)(?<![0-9]-\d)\d\d([- ])\d{{2}}\1\d{{4}}(?![{_B}-])",
        "US social security numbers (area, group and serial checked)",
        validator="us_ssn",
        scope="numbers",
        min_digits=9,
    ),
    Rule(
        "phone_e164",
        rf"\+(?<![{_B}+]\+)[1-9](?:(?:[ -]|{_PHONE_DOT})?\d){{6,14}}(?!\d)"
        # A trunk prefix or area code in parentheses: +44 (0)20 7946 0958, +44 (20) 7946 0958.
        rf"|\+(?<![{_B}+]\+)[1-9]\d{{0,2}}[ .-]?\(\d{{1,4}}\)(?:(?:[ -]|{_PHONE_DOT})?\d){{5,12}}(?!\d)",
        "any E.164 number (+ and 7-15 digits; spaces, dashes, dots between groups, (0) or (20))",
        hints=("+",),
        scope="plus_numbers",
        min_digits=7,
    ),
    Rule(
        "ipv4",
        rf"(?=\d)(?<![{_B}.])"
        + _NOT_A_VERSION
        # Loopback (127.x) and the unspecified 0.0.0.0 name no machine: a note or a log line
        # saying "the dev server listens on 127.0.0.1:8000" keeps it.
        + r"(?!127\.)(?!0\.0\.0\.0(?![\d.]))"
        # A network in CIDR notation (10.0.0.0/8, 192.168.1.0/24) is a range, not a machine; a
        # host with its prefix length (10.1.2.3/24) is still an address.
        + r"(?!(?:\d{1,3}\.){3}0/\d)"
        + rf"(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){{3}}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?![{_B}]|\.\d)"
        + _SECTION_AFTER,
        "IPv4 addresses (not loopback 127.x, 0.0.0.0, networks such as 10.0.0.0/8 or section numbers)",
        hints=(".",),
        scope="dotted_numbers",
        min_digits=4,
    ),
    Rule(
        "ipv6",
        rf"(?<![{_B}:.])(?=[0-9A-Fa-f:.]*[0-9A-Fa-f])(?:[0-9A-Fa-f]{{0,4}}:){{2,7}}"
        rf"(?:(?:\d{{1,3}}\.){{3}}\d{{1,3}}|[0-9A-Fa-f]{{1,4}})?(?![{_B}:]|\.\d)"
        # A network ending in "::" with a prefix length (2001:db8::/32) is a range, not a machine.
        r"(?<!:(?=/\d))",
        "IPv6 addresses (checked by the ipaddress module; not loopback ::1, :: or a network such as "
        "2001:db8::/32)",
        validator="ipv6",
        hints=(":",),
        scope="ipv6",
    ),
    # Last: a number another rule names keeps that rule's name.
    PhoneRule(),
    *ID_RULES,
)
