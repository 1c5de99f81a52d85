"""National identity, tax and passport numbers.

Two rules, because the numbers come in two kinds:

- ``national_id``: a number checked by its own checksum (``checksums.national_id_valid``, from
  ``python-stdnum``'s validators): UK National Insurance numbers, Aadhaar (Verhoeff), CPF, CNPJ,
  Spanish DNI/NIE, codice fiscale, French NIR, PESEL, Korean RRN, BSN, personnummer, Canadian SIN,
  CURP, German Steuer-ID, Mexican RFC, Indian PAN … A checksum that holds by chance for one number
  in ten is not enough for a bare run of digits (order numbers and timestamps would pass), so the
  digits-only formats of ``WEAK_ALONE`` need one of the words below as well.
- ``id_number``: the value right after a word naming an identity document or number ("ID number",
  "passport", "Ausweisnummer", "número de identificación", "主民등록번호", "护照号码" …): passport
  numbers and the many national formats with no public checksum (Greek police ids, Philippine
  UMID, Argentine DNI …). The value must hold digits and stop at the end of the number.

Both run on normalised text; the words are searched in case-folded text (``Rule.folded``).
"""

from __future__ import annotations

import re
from typing import Any

from memwarden.govern.checksums import id_like, national_id_valid
from memwarden.govern.pii_phones import LazyPattern, words_near
from memwarden.govern.rules import Rule
from memwarden.govern.scopes import Window

_NOSPACE = (
    "\u0e00-\u0e7f\u1100-\u11ff\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef"
)
_ALNUM = rf"[^\W_{_NOSPACE}]"

# Words naming an identity document or number, lower case. Stems where the word inflects.
_ID_WORDS = (
    # English and international abbreviations
    r"id(?:entity|entification)? (?:card )?(?:number|no\.?|num\.?|#|code)",
    r"\bid(?:entity)? card",
    r"\bnational (?:id|identity|insurance)",
    r"social security",
    r"\bssn\b",
    r"\bnino\b",
    r"\btax (?:id|number|code|file number)",
    r"\btaxpayer",
    # Abbreviations that are also words ("fin", "sin", "run", "uid 1000", "RFC 4122") are left out.
    r"\b(?:nic|nik|nric|ird|tfn|cpr|cnp|egn|oib|jmbg|emšo|amka|afm|ppsn|hetu|pan (?:card|number|no))\b",
    r"\b(?:dni|nie|nif|nuip|nit|cuit|cuil|rut|curp|cpf|cnpj|bsn|pesel|aadhaa?r)\b",
    r"social insurance",
    r"tax identification",
    r"personal (?:id|code|number)",
    r"passport",
    r"driver'?s licen[cs]e",
    # German, Dutch, Scandinavian, Finnish, Baltic, Central European
    r"ausweis",
    r"personalausweis",
    r"steuer-?id",
    r"identifikationsnummer",
    r"sozialversicherungs",
    r"rentenversicherungs",
    r"reisepass",
    r"identificatienummer",
    r"burgerservicenummer",
    r"paspoort",
    r"personnummer",
    r"fødselsnummer",
    r"passnummer",
    r"henkilötunnus",
    r"passi",
    r"isikukood",
    r"asmens kodas",
    r"personas kods",
    r"rodné číslo",
    r"rodne cislo",
    r"numer identyfikacyjny",
    r"dowód",
    r"paszport",
    r"személyi",
    r"kennitala",
    # Romance languages
    r"identificaci[oó]n",
    r"identidad",
    r"c[ée]dula",
    r"pasaporte",
    r"identit[ée]",
    r"s[ée]curit[ée] sociale",
    r"passeport",
    r"codice fiscale",
    r"identificativo",
    r"carta d'identit",
    r"passaporto",
    r"identifica[çc][ãa]o",
    r"passaporte",
    r"\bbuletin",
    # Greek, Cyrillic, Turkish
    r"ταυτότητ",
    r"διαβατ",
    r"удостоверени",
    r"идентификацион",
    r"паспорт",
    r"снилс",
    r"\bинн\b",
    r"кимлик",
    r"kimlik",
    r"pasaport",
    # Arabic, Hebrew, Indic, East and South-East Asian
    r"هوية",
    r"الهوية",
    r"جواز",
    r"الرقم القومي",
    r"זהות",
    r"דרכון",
    r"पहचान",
    r"पासपोर्ट",
    r"आधार",
    r"身份证",
    r"身分證",
    r"护照",
    r"護照",
    r"マイナンバー",
    r"個人番号",
    r"パスポート",
    r"주민등록",
    r"여권",
    r"nomor (?:induk|identitas|paspor|ktp)",
    r"paspor",
    r"căn cước",
    r"hộ chiếu",
    r"บัตรประชาชน",
    r"หนังสือเดินทาง",
)

# After the word: up to 20 characters without a digit or a full stop ("number is ", "-Nr: ", "번호는 "), then the
# value: groups of letters and digits joined by ". / -" or single spaces (a group after a space must
# start with a digit or be one capital letter, so the value stops before the next word), holding a
# digit within its first 9 characters (checked again by the validator).
_VALUE = (
    rf"{_ALNUM}+(?:[./-]{_ALNUM}+)*"
    rf"(?: (?=\d|{_ALNUM}(?!{_ALNUM})){_ALNUM}+(?:[./-]{_ALNUM}+)*){{0,6}}"
)
ID_NUMBER_PATTERN = (
    r"(?:"
    + "|".join(_ID_WORDS)
    + r")[^\d\n.;!?]{0,20}?(?<![0-9A-Za-z_])(?=[^\s\d]{0,8}\d)(?P<secret>"
    + _VALUE
    + ")"
)

# Every shape of ``checksums._NATIONAL_ID_SHAPES`` and the NINO in one pattern, bounded by ASCII
# letters and digits (a value glued to Chinese or Thai text is still whole).
NATIONAL_ID_PATTERN = (
    r"(?<![0-9A-Za-z_])(?:"
    r"[A-Z]{4,6}\d{2}(?:[A-EHLMPR-T]\d{2}[A-Z]\d{3}[A-Z]|\d{4}(?:[HMX][A-Z]{5}[0-9A-Z]\d|[A-Z0-9]{3}))"
    r"|\d{8}-?[A-Z]|[XYZ]-?\d{7}-?[A-Z]|[A-Z]{5}\d{4}[A-Z]"
    r"|[2-9]\d{3} \d{4} \d{4}(?! ?\d)|\d{3}\.\d{3}\.\d{3}-\d{2}|\d{2}\.\d{3}\.\d{3}/\d{4}-\d{2}"
    r"|[12] ?\d{2} ?\d{2} ?(?:\d{2}|2[AB]) ?\d{3} ?\d{3} ?\d{2}"
    r"|\d{6}(?:-[1-8]\d{6}|[-+A]\d{3}[0-9A-Y]|[-+]\d{4})|\d{5}-\d{7}-\d"
    r"|[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D]"
    r")(?![0-9A-Za-z_])"
)


def _alternatives(word: str) -> list[str]:
    """``word`` as a list of alternatives that each start with a plain character: a leading
    ``\\b`` dropped (the caller checks the boundary), a leading group ``(?:a|b)rest`` spelled out
    as ``arest``, ``brest`` in the same order (what backtracking into the group would try)."""
    word = word.removeprefix("\\b")
    if not word.startswith("(?:"):
        return [word]
    depth, piece = 0, ""
    pieces: list[str] = []
    for at, char in enumerate(word[3:], start=3):
        if char == ")" and depth == 0:
            rest = word[at + 1 :]
            if rest[:1] in ("?", "*", "+", "{"):
                raise ValueError(f"id word {word!r}: a leading group must not be optional")
            return [alternative + rest for alternative in [*pieces, piece]]
        if char == "|" and depth == 0:
            pieces.append(piece)
            piece = ""
            continue
        depth += (char == "(") - (char == ")")
        piece += char
    raise ValueError(f"id word {word!r}: unbalanced group")


def _by_first_character(words: tuple[str, ...], boundary: str) -> list[str]:
    """One alternative per first character, ``c{boundary}(?:rest|rest…)``, keeping the words' order
    within each: at any position only the words starting with its character can match, so the
    first of them to match is the one the plain alternation would take. A pattern whose every
    alternative starts with a plain character lets ``re`` skip, in C, every position holding none
    of those characters (a lookahead or ``\\b`` in front makes it try each position in turn)."""
    by_first: dict[str, list[str]] = {}
    for word in words:
        for alternative in _alternatives(word):
            if not alternative[0].isalnum():
                raise ValueError(f"id word {word!r} must start with a letter")
            by_first.setdefault(alternative[0], []).append(alternative[1:])
    return [f"{first}{boundary}(?:{'|'.join(rests)})" for first, rests in by_first.items()]


# Words of scripts written with spaces start a word (``\b``: the letter before is no letter, checked
# once the first letter is read); words of Chinese, Japanese, Korean and Thai, which glue to the
# words before them, match anywhere.
_GLUED_WORDS = tuple(w for w in _ID_WORDS if ord(w[0]) >= 0x0E00)  # Thai, kana, CJK, Hangul
_SPACED_WORDS = tuple(w for w in _ID_WORDS if ord(w[0]) < 0x0E00)
_ID_WORD = LazyPattern(
    "|".join(_by_first_character(_SPACED_WORDS, r"(?<!\w.)") + _by_first_character(_GLUED_WORDS, ""))
)
_AFTER_ID_WORD = LazyPattern(
    r"[^\d\n.;!?]{0,20}?(?<![0-9A-Za-z_])(?=[^\s\d]{0,8}\d)(?P<secret>" + _VALUE + ")"
)
_NATIONAL_ID = LazyPattern(NATIONAL_ID_PATTERN)
_DIGIT_PAIR = re.compile(r"\d\d")
# Digits with the separators between them: one match per number, not one per pair of its digits.
_NUMBER = re.compile(r"\d[\d ./-]*\d")
_DIGIT_RUN = re.compile(r"\d+")
_STARTS = frozenset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ")  # every shape starts with one
_WORD_CHARS = frozenset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_LOOK_BACK = 60  # characters before a number searched for a word naming it (word, filler, letters)
_LEAD = 6  # letters a national id may have before its first digits (a codice fiscale's six)


def _near_digits(text: str, back: int) -> list[tuple[int, int]]:
    """Stretches of ``text`` from ``back`` characters before each number (two digits or more) to its
    end, those that touch merged: only they can hold a value and the characters in front of it."""
    out: list[tuple[int, int]] = []
    for number in _NUMBER.finditer(text):
        lo, hi = max(0, number.start() - back), number.end()
        if out and lo <= out[-1][1]:
            out[-1] = (out[-1][0], hi)
        else:
            out.append((lo, hi))
    return out


class IdNumberRule(Rule):
    """``id_number``: the words are searched only in the stretches before numbers (a search of the
    whole text for a hundred words costs more than every other rule together), in case-folded text,
    then the value is read from the original text. No hints: a hundred substring tests on every
    text cost more than this rule on a text without numbers."""

    def __init__(self, name: str = "id_number", description: str = "", *, mode: str = "enforce") -> None:
        super().__init__(
            name,
            ID_NUMBER_PATTERN,
            description
            or "identity, tax and passport numbers right after a word naming them (ID number, passport, "
            "Ausweisnummer, número de identificación, 주민등록번호, 护照号码 … in 25 languages)",
            validator="id_like",
            ignore_case=True,
            mode=mode,
        )

    def replace(self, **changes: Any) -> Rule:
        fields = {"name": self.name, "description": self.description, "mode": self.mode} | changes
        return IdNumberRule(fields["name"], fields["description"], mode=fields["mode"])

    def spans(
        self, text: str, windows: list[Window] | None = None, covered: list[tuple[int, int]] | None = None
    ) -> list[tuple[int, int]]:
        out: list[tuple[int, int]] = []
        for stretch_lo, hi in _near_digits(text, _LOOK_BACK):
            lo, near = words_near(text, stretch_lo, hi)  # markers blanked, case-folded
            for word in _ID_WORD.finditer(near):
                value = _AFTER_ID_WORD.match(text, lo + word.end())
                if value is None:
                    continue
                start, end = value.span("secret")
                if (not out or start >= out[-1][1]) and id_like(text[start:end]):
                    out.append((start, end))
        return out


class NationalIdRule(Rule):
    """``national_id``: the pattern is tried only at word starts a few characters before each run of
    digits (every national id holds one), not at every capital letter of the text."""

    def __init__(self, name: str = "national_id", description: str = "", *, mode: str = "enforce") -> None:
        super().__init__(
            name,
            NATIONAL_ID_PATTERN,
            description
            or "national ids with their check digits (python-stdnum): codice fiscale, CURP, RFC, DNI, "
            "NIE, PAN, Aadhaar, CPF, CNPJ, NIR, Korean RRN, CNIC, HETU, personnummer; UK NINO by its format",
            validator="national_id",
            mode=mode,
        )

    def replace(self, **changes: Any) -> Rule:
        fields = {"name": self.name, "description": self.description, "mode": self.mode} | changes
        return NationalIdRule(fields["name"], fields["description"], mode=fields["mode"])

    def spans(
        self, text: str, windows: list[Window] | None = None, covered: list[tuple[int, int]] | None = None
    ) -> list[tuple[int, int]]:
        out: list[tuple[int, int]] = []
        done = 0
        for run in _DIGIT_RUN.finditer(text):
            at = run.start()
            # A run continuing a number ("45" in 123-45-6789) was tried with the number's start.
            if at < done or (at > 1 and text[at - 1] in " ./-" and text[at - 2].isdigit()):
                continue
            # A value starts after a character that is not an ASCII letter or digit.
            for start in range(max(done, run.start() - _LEAD), run.start() + 1):
                if text[start] not in _STARTS or (start and text[start - 1] in _WORD_CHARS):
                    continue
                found = _NATIONAL_ID.match(text, start)
                if found and found.end() > run.start() and national_id_valid(found.group()):
                    out.append(found.span())
                    done = found.end()
                    break
        return out


ID_RULES: tuple[Rule, ...] = (NationalIdRule(), IdNumberRule())

__all__ = ["ID_NUMBER_PATTERN", "ID_RULES", "NATIONAL_ID_PATTERN", "IdNumberRule", "NationalIdRule"]
