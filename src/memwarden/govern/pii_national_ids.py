"""National identity, tax and passport numbers.

Two rules, because the numbers come in two kinds:

- ``national_id``: a number checked by its own checksum (``checksums.national_id_holds``, from
  ``python-stdnum``'s validators), in one of the written forms of ``national_id_table.ID_SHAPES``:
  the personal and tax ids of the 30 most populous countries, the EU and the EEA that have a
  public check (``national_id_table.COUNTRIES`` says which, and why the others have none). A
  checksum that holds by chance for one number in ten is not enough for a bare run of digits
  (order numbers and timestamps would pass), so such forms need one of the words below within
  ``_LOOK_BACK`` characters before the number or ``_LOOK_AHEAD`` after it.
- ``id_number``: the value right after a word naming an identity document or number ("ID number",
  "passport", "Ausweisnummer", "número de identificación", "主民등록번호", "护照号码" …): passport
  numbers and the many national formats with no public checksum (Greek police ids, Philippine
  UMID, Argentine DNI …). The value must hold digits and stop at the end of the number.

Both run on normalised text; the words are searched in case-folded text (``Rule.folded``).
"""

from __future__ import annotations

import bisect
import itertools
import re
import unicodedata
from collections.abc import Iterator
from typing import Any

from memwarden.govern.checksums import id_like, national_id_holds
from memwarden.govern.national_id_table import ID_SHAPES
from memwarden.govern.pii_phones import LazyPattern, words_near
from memwarden.govern.rules import Rule
from memwarden.govern.scopes import Window

_NOSPACE = (
    "\u0e00-\u0e7f\u1100-\u11ff\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef"
)
_ALNUM = rf"[^\W_{_NOSPACE}]"

# Words naming an identity document or number, lower case. Stems where the word inflects.
_ID_WORDS: tuple[str, ...] = (
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
    # Ids of the most populous countries and the EU/EEA named by their abbreviation
    # (``national_id_table.COUNTRIES``); "tin" and "pin" only with "number" or the issuer.
    r"\b(?:cnic|nin|nida|nrc|npwp|ktp|philsys|sss|umid|gsis|utr|peid|itin|svnr|vsnr|nip)\b",
    r"\b(?:tin (?:no\.?|number|#)|pps (?:no\.?|number)|kra pin|pag-?ibig|philhealth|fayda)",
    r"\bemso\b",
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
    r"versicherungsnummer",
    r"adóazonosító",
    r"rijksregister",
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
    r"num[ée]ro (?:d'identification|national|fiscal)",
    r"registre national",
    r"\bmatricule",
    r"cart[ãa]o de cidad[ãa]o",
    r"cod numeric personal",
    r"identit[àa]",
    # Greek, Cyrillic, Turkish
    r"ταυτότητ",
    r"διαβατ",
    r"удостоверени",
    r"идентификацион",
    r"паспорт",
    r"снилс",
    r"\bинн\b",
    r"\bегн\b",
    r"лична карта",
    r"αμκα",
    r"αφμ",
    r"кимлик",
    r"kimlik",
    r"pasaport",
    # Arabic, Hebrew, Indic, East and South-East Asian
    r"هوية",
    r"الهوية",
    r"جواز",
    r"الرقم القومي",
    r"الرقم الوطني",
    # Persian (Iran: Persian and Arabic yeh) and Urdu (Pakistan)
    r"کد ?مل[یي]",
    r"شماره مل[یي]",
    r"شناختی",
    # Bengali (Bangladesh)
    r"পরিচয়",
    # Swahili (Tanzania, Kenya)
    r"kitambulisho",
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
    r"mã số thuế",
    r"chứng minh nhân dân",
    r"định danh",
    r"hộ chiếu",
    r"บัตรประชาชน",
    r"เลขประจำตัว",
    # Amharic (Ethiopia), Burmese (Myanmar)
    r"መታወቂያ",
    r"မှတ်ပုံတင်",
    r"หนังสือเดินทาง",
)
# Redaction reads normalised text (NFKC): a word is written the same way, so Thai "ำ" (sara am) and
# Bengali "য়" are matched in the form NFKC leaves them in.
_ID_WORDS = tuple(unicodedata.normalize("NFKC", word) for word in _ID_WORDS)

# After the word: up to 20 characters without a digit or a full stop ("number is ", "-Nr: ", "번호는 "), then the
# value: groups of letters and digits joined by ". / -" or single spaces (a group after a space must
# start with a digit or be one capital letter, so the value stops before the next word), holding a
# digit within its first 9 characters (checked again by the validator). Between the id word and
# the value, up to 20 characters that are no digit, line end, sentence stop or "]": a redaction
# marker ends with "]", and a value the first pass did not reach must stay out of reach.
_VALUE = (
    rf"{_ALNUM}+(?:[./-]{_ALNUM}+)*"
    rf"(?: (?=\d|{_ALNUM}(?!{_ALNUM})){_ALNUM}+(?:[./-]{_ALNUM}+)*){{0,6}}"
)
ID_NUMBER_PATTERN = (
    r"(?:"
    + "|".join(_ID_WORDS)
    + r")[^\d\n.;!?\]]{0,20}?(?<![0-9A-Za-z_])(?=[^\s\d]{0,8}\d)(?P<secret>"
    + _VALUE
    + ")"
)

# Every written form of ``national_id_table.ID_SHAPES``, bounded by ASCII letters and digits (a
# value glued to Chinese or Thai text is still whole) and not followed by a separator and more
# digits (the first groups of a longer number are not an id). Forms starting with a digit and
# forms starting with a letter are separate patterns: each is tried only where it can start.
_ID_END = r"(?![0-9A-Za-z_]|[ ./-]\d)"
_FORMS = tuple(dict.fromkeys(row.shape for row in ID_SHAPES))


def _leads_with_digit(shape: str) -> bool:
    return shape.startswith("\\d") or (shape[:1] == "[" and shape[1:2].isdigit())


_DIGIT_FORMS = tuple(form for form in _FORMS if _leads_with_digit(form))
_LETTER_FORMS = tuple(form for form in _FORMS if not _leads_with_digit(form))
NATIONAL_ID_PATTERN = r"(?<![0-9A-Za-z_])(?:" + "|".join(_FORMS) + ")" + _ID_END
_LEADING_DIGITS = re.compile(r"\\d(?:\{\d+(?:,\d+)?\})?(?![?*+{])")


def _by_leading_digits(forms: tuple[str, ...]) -> str:
    """``forms`` as one alternation, those starting with the same digit group (``\\d{6}``) as one
    alternative ``\\d{6}(?:rest|rest…)`` in their listed order: a number of prose ("2024-05-17")
    is then refused by a dozen alternatives, not by forty, each reading its first digits again."""
    by_lead: dict[str, list[str]] = {}
    for form in forms:
        lead = _LEADING_DIGITS.match(form)
        head = lead.group() if lead else ""
        by_lead.setdefault(head, []).append(form[len(head) :])
    return "|".join(f"{head}(?:{'|'.join(rests)})" for head, rests in by_lead.items())


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
# What ``id_words`` searches: ``_ID_WORD`` split by family, a spaced word found with the character
# before it (a plain class in front lets the engine skip, in C, every position inside a word of
# prose, where a spaced word cannot start; ``_ID_WORD`` tries each letter in turn), or at the start.
_SPACED_ALTERNATIVES = "|".join(_by_first_character(_SPACED_WORDS, ""))
_SPACED_AFTER_BOUNDARY = LazyPattern(rf"[^\w]({_SPACED_ALTERNATIVES})")
_SPACED_AT_START = LazyPattern(f"(?:{_SPACED_ALTERNATIVES})")
_GLUED_WORD = LazyPattern("|".join(_by_first_character(_GLUED_WORDS, "")))
_AFTER_ID_WORD = LazyPattern(
    r"[^\d\n.;!?\]]{0,20}?(?<![0-9A-Za-z_])(?=[^\s\d]{0,8}\d)(?P<secret>" + _VALUE + ")"
)
_DIGIT_LED_ID = LazyPattern("(?:" + _by_leading_digits(_DIGIT_FORMS) + ")" + _ID_END)
_LETTER_LED_ID = LazyPattern("(?:" + "|".join(_LETTER_FORMS) + ")" + _ID_END)
# Digits with the separators between them: one match per number, not one per pair of its digits.
# ASCII digits only: the rules read normalised text, where every decimal digit is ASCII, and a
# class of ten characters is tested faster than the Unicode category ``\d``.
_NUMBER = re.compile(r"[0-9][0-9 ./-]*[0-9]")
_NUMBER_RUN = re.compile(r"[0-9]+(?:[ ./-][0-9]+)*")  # digit groups and the separators between them
_CAPITALS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")  # every form starts with one or a digit
_CAPITAL = re.compile("[A-Z]")
# Every character a form of ``ID_SHAPES`` can hold (its match is a run of them): digits, capitals,
# the separators and the "Ñ" and "&" of a Mexican RFC (tests/govern/test_pii_national_ids.py checks
# that no form reaches past such a run).
_FORM_CHARACTERS = re.compile(r"[\dA-ZÑ& ./+-]*")
_WORD_CHARS = frozenset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_LOOK_BACK = 60  # characters before a number searched for a word naming it (word, filler, letters)
_LEAD = 6  # letters a national id may have before its first digits (a codice fiscale's six)
_LOOK_AHEAD = 30  # characters after a value searched for a word naming it ("… (PESEL)")
_MIN_DIGITS = 7  # the fewest digits a form starting with a digit holds (an Irish PPS number)


def _spaced_word_from(text: str, cursor: int, end: int) -> tuple[int, int] | None:
    """The first spaced word starting at or after ``cursor`` (a word start: the character before
    it, if any, is no word character)."""
    if cursor == 0:
        first = _SPACED_AT_START.compiled.match(text, 0, end)
        if first is not None:
            return first.span()
    found = _SPACED_AFTER_BOUNDARY.compiled.search(text, max(0, cursor - 1), end)
    return found.span(1) if found is not None else None


def id_words(text: str, pos: int = 0, endpos: int | None = None) -> Iterator[tuple[int, int]]:
    """Spans of the words naming an identity number in ``text`` (case-folded) between ``pos`` and
    ``endpos``, left to right: exactly what ``_ID_WORD.finditer(text, pos, endpos)`` finds
    (tests/govern/test_id_words_pattern.py), at a third of its cost. The two families start with
    different characters, so at most one can match at a position: the earlier of the two next
    matches is the alternation's next match."""
    end = len(text) if endpos is None else min(endpos, len(text))
    cursor = pos
    spaced = _spaced_word_from(text, cursor, end)
    # The glued words are Thai, kana, CJK or Hangul: ASCII text (most stretches near numbers) holds none.
    glued_match = None if text.isascii() else _GLUED_WORD.compiled.search(text, cursor, end)
    glued = glued_match.span() if glued_match is not None else None
    while True:
        if spaced is not None and (glued is None or spaced[0] < glued[0]):
            word = spaced
        elif glued is not None:
            word = glued
        else:
            return
        yield word
        cursor = word[1]
        if spaced is not None and spaced[0] < cursor:
            spaced = _spaced_word_from(text, cursor, end)
        if glued is not None and glued[0] < cursor:
            glued_match = _GLUED_WORD.compiled.search(text, cursor, end)
            glued = glued_match.span() if glued_match is not None else None


def _near_digits(text: str, back: int) -> list[tuple[int, int]]:
    """Stretches of ``text`` from ``back`` characters before each number (two digits or more) to its
    end, those that touch merged: only they can hold a value and the characters in front of it."""
    out: list[tuple[int, int]] = []
    for number in _NUMBER.finditer(text):
        lo, hi = number.span()
        lo = lo - back if lo > back else 0
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
            "Ausweisnummer, número de identificación, 주민등록번호, 护照号码, کد ملی … in over 30 languages)",
            validator="id_like",
            ignore_case=True,
            mode=mode,
        )

    def replace(self, **changes: Any) -> Rule:
        fields = {"name": self.name, "description": self.description, "mode": self.mode} | changes
        return IdNumberRule(fields["name"], fields["description"], mode=fields["mode"])

    def spans(
        self,
        text: str,
        windows: list[Window] | None = None,
        covered: list[tuple[int, int]] | None = None,
        avoid: list[tuple[int, int]] | None = None,
        hinted: list[tuple[int, int]] | None = None,  # a rule of the whole text's (``Rule.near``)
    ) -> list[tuple[int, int]]:
        # ``avoid`` (markers) needs no check: the id words are read with markers blanked and a
        # value is digits, which no marker holds.
        out: list[tuple[int, int]] = []
        for stretch_lo, hi in _near_digits(text, _LOOK_BACK):
            lo, near = words_near(text, stretch_lo, hi)  # markers blanked, case-folded
            # A value starts at most 20 characters after its word, is at most 32 long and holds 4
            # digits or more (``id_like``): a stretch without them there ("net 45") needs no search.
            if _too_few_digits(text[lo : lo + len(near) + _VALUE_REACH]):
                continue
            for _, word_end in id_words(near):
                value = _AFTER_ID_WORD.match(text, lo + word_end)
                if value is None:
                    continue
                start, end = value.span("secret")
                if (not out or start >= out[-1][1]) and id_like(text[start:end]):
                    out.append((start, end))
        return out


def _whole_numbers(text: str) -> list[tuple[int, int]]:
    """The spans ``_NUMBER_RUN.finditer(text)`` yields, read from the runs of digits and separators
    (``_NUMBER_CHUNK``, a single character class the engine repeats in C; the group repeated per
    digit group in ``_NUMBER_RUN`` cost several times as much): a run is one number once its
    trailing separators are dropped, unless two separators meet inside it, where it is split by
    ``_NUMBER_RUN`` itself."""
    spans: list[tuple[int, int]] = []
    for chunk in _NUMBER_CHUNK.finditer(text):
        at = chunk.start()
        core = chunk.group().rstrip(" ./-")
        if core.isdigit() or _TWO_SEPARATORS.search(core) is None:
            spans.append((at, at + len(core)))
        else:
            spans.extend(number.span() for number in _NUMBER_RUN.finditer(text, at, at + len(core)))
    return spans


_NUMBER_CHUNK = re.compile(r"[0-9][0-9 ./-]*")
_TWO_SEPARATORS = re.compile(r"[ ./-]{2}")


_VALUE_REACH = 52  # the filler after an id word (20) and the longest value ``id_like`` takes (32)
_VALUE_DIGITS = 4  # the fewest digits a value ``id_like`` takes holds


def _too_few_digits(text: str) -> bool:
    """Whether ``text`` holds fewer digits than a value ``id_like`` takes. Told for ASCII text only
    (a count in C); for other text, where ``str.isdigit`` holds for more than ASCII digits and
    a count per character cost more than the search it would spare, the answer is no."""
    return text.isascii() and len(text) - len(text.encode().translate(None, b"0123456789")) < _VALUE_DIGITS


def _digit_count(number: str) -> int:
    """How many digits ``number`` (``_NUMBER_RUN``: digit groups and separators) holds."""
    return len(number) - len(number.translate(_DIGITS_DROPPED))


_DIGITS_DROPPED = str.maketrans("", "", "0123456789")  # what stays: the separators


def _named_nearby(text: str, start: int, end: int, folded: list[str]) -> bool:
    """Whether a word naming an identity number (``_ID_WORDS``) stands within ``_LOOK_BACK``
    characters before the value or ``_LOOK_AHEAD`` after it ("PESEL 44051401359",
    "44051401359 (PESEL)"). ``folded`` caches the text case-folded with markers blanked
    (``words_near``, same length) for the next value of the same text."""
    if not folded:
        folded.append(words_near(text, 0, len(text))[1])
    lo, hi = max(0, start - _LOOK_BACK), min(len(text), end + _LOOK_AHEAD)
    while lo > 0 and text[lo - 1].isalnum():  # a word cut by the window is read whole
        lo -= 1
    while hi < len(text) and text[hi].isalnum():
        hi += 1
    return next(id_words(folded[0], lo, hi), None) is not None


class NationalIdRule(Rule):
    """``national_id``: the forms of ``national_id_table.ID_SHAPES`` are tried only where one can
    start: at a run of digits holding enough digits for one (the cheap filter every number of
    prose meets first), and at word starts a few letters before a run. A value whose form needs a
    word naming it is kept only with such a word nearby."""

    def __init__(self, name: str = "national_id", description: str = "", *, mode: str = "enforce") -> None:
        super().__init__(
            name,
            NATIONAL_ID_PATTERN,
            description
            or "national ids with their check digits (python-stdnum) for the 30 most populous countries, "
            "the EU and the EEA: codice fiscale, CURP, RFC, DNI, NIE, PAN, Aadhaar, CPF, CNPJ, NIR, Korean "
            "RRN, CNIC, HETU, personnummer, PESEL, BSN, Steuer-ID, PPS, CNP, EMŠO, My Number, INN …; UK NINO "
            "by its format. Bare digits with one check digit only next to a word naming an id",
            validator="national_id",
            mode=mode,
        )

    def replace(self, **changes: Any) -> Rule:
        fields = {"name": self.name, "description": self.description, "mode": self.mode} | changes
        return NationalIdRule(fields["name"], fields["description"], mode=fields["mode"])

    # Runs after the phone, card and IBAN rules: a long number of a text full of values is often
    # already their finding, and a value inside it changes nothing (``Rule.skips_covered``), so
    # its checks (python-stdnum, a few microseconds each) are skipped.
    skips_covered = True

    def spans(
        self,
        text: str,
        windows: list[Window] | None = None,
        covered: list[tuple[int, int]] | None = None,
        avoid: list[tuple[int, int]] | None = None,
        hinted: list[tuple[int, int]] | None = None,  # a rule of the whole text's (``Rule.near``)
    ) -> list[tuple[int, int]]:
        # ``avoid`` (markers) needs no check: the id words are read with markers blanked and a
        # value is digits, which no marker holds.
        out: list[tuple[int, int]] = []
        done = 0
        # Covered spans by start, with the furthest end any of them reaches so far: a value lies
        # inside one when that reach, up to its start, passes its end (one bisect).
        ordered = sorted(covered or ())
        starts = [c_start for c_start, _ in ordered]
        reach = list(itertools.accumulate((c_end for _, c_end in ordered), max))
        folded: list[str] = []
        capital = _CAPITAL.search
        # Whole numbers, not runs of digits: "45" in 123-45-6789 is no place for a value to start.
        for at, stop in _whole_numbers(text):
            if at < done:
                continue
            lo = at - _LEAD if at - _LEAD > done else done
            # Most numbers of prose hold too few digits and have no capital letter just before.
            letters = capital(text, lo, at) is not None
            # The number as a place of its own would be popped below when a covered span seals
            # it (another rule's finding, most long numbers of a text full of values): its digits
            # need no count then.
            digits = (
                stop - at >= _MIN_DIGITS
                and not (at and text[at - 1] in _WORD_CHARS)
                and not (ordered and _sealed(text, at, starts, reach))
                and _digit_count(text[at:stop]) >= _MIN_DIGITS
            )
            if letters:
                places = _candidate_starts(text, at, lo, letters=letters, digits=digits)
            elif digits:
                places = [(at, True)]
            else:
                continue
            # A value starting where a covered span already reaches past every character a form
            # can hold would lie inside it (the loop below stops there): when every place left
            # is such a place, this number yields nothing, and no form is tried there.
            while places and ordered and _sealed(text, places[-1][0], starts, reach):
                places.pop()
            for start, digit_led in places:
                found = (_DIGIT_LED_ID if digit_led else _LETTER_LED_ID).compiled.match(text, start)
                # A value starting with a letter must reach into the number.
                if found is None or not (digit_led or found.end() > at):
                    continue
                inside = bisect.bisect_right(starts, start) - 1
                if inside >= 0 and reach[inside] >= found.end():
                    break
                # A form needing a word is checked only once the word is there: most long numbers
                # of prose (timestamps, order numbers) have none, and a check costs more than a look.
                value = found.group()
                if national_id_holds(value, alone=True) or (
                    _named_nearby(text, *found.span(), folded) and national_id_holds(value, alone=False)
                ):
                    out.append(found.span())
                    done = found.end()
                    break
        return out


def _candidate_starts(text: str, at: int, lo: int, *, letters: bool, digits: bool) -> list[tuple[int, bool]]:
    """Where a national id around the number at ``at`` may start, left to right, and whether its
    form starts with a digit: with ``letters``, each capital at a word start from ``lo`` on; with
    ``digits``, the number itself. A value starts after a character that is not an ASCII letter or
    digit."""
    places = []
    if letters:
        for start in range(lo, at):
            if text[start] in _CAPITALS and not (start and text[start - 1] in _WORD_CHARS):
                places.append((start, False))
    if digits:
        places.append((at, True))
    return places


def _sealed(text: str, start: int, starts: list[int], reach: list[int]) -> bool:
    """Whether any value starting at ``start`` lies inside a covered span (``starts`` and ``reach``
    as in ``NationalIdRule.spans``): the spans reach past the run of characters a form can hold."""
    inside = bisect.bisect_right(starts, start) - 1
    run = _FORM_CHARACTERS.match(text, start)
    return inside >= 0 and run is not None and reach[inside] >= run.end()


ID_RULES: tuple[Rule, ...] = (NationalIdRule(), IdNumberRule())

__all__ = ["ID_NUMBER_PATTERN", "ID_RULES", "NATIONAL_ID_PATTERN", "IdNumberRule", "NationalIdRule"]
