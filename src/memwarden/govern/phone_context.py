"""What the words around a number say it is, when they say it is not a phone number.

``pii_phones`` takes a number near a word about calling for a phone number even in a shape ordinary
numbers share ("call me on 1387", "ring me about it: 612 3456"). Two kinds of context overrule
that word, because they name what the number is:

- a noun naming a record, a place or a thing counted right before the number, with an optional
  "number" / "no." / "#" / ":" between: "room 4021", "order no. 20231", "ticket #123456",
  "invoice: 2023-118", "Zimmer 214", "commande 20231". The number is that thing's, whatever verb
  stands before it ("call room 4021", "call me about order 202315");
- a time of day written as 3-4 digits: a valid 24-hour time (``930``, ``1530``, ``0945``) with a
  word for hours after it ("1530 hours", "930 am", "1800 Uhr"), or four such digits right after
  a preposition of time ("call at 1530", "um 1530", "à 1530"). "call me at 1387" is no time (no
  minute 87) and stays a phone number, and so does "call me on 1530" (not a preposition of time).

Only the text right next to the number is read, case-folded, with redaction markers blanked (a
marker's rule name is no word of the sentence), so a later pass reads the same words.
"""

from __future__ import annotations

import functools
import re

from memwarden.govern.markers import MARKER
from memwarden.govern.scopes import fold

# Nouns of records, places and things counted, lower case, in the languages of the phone words.
_RECORD_NOUNS = (
    # English
    "room",
    "rm",
    "order",
    "ticket",
    "case",
    "invoice",
    "booking",
    "reservation",
    "confirmation",
    "tracking",
    "shipment",
    "parcel",
    "package",
    "flight",
    "gate",
    "platform",
    "unit",
    "suite",
    "apartment",
    "apt",
    "floor",
    "seat",
    "row",
    "page",
    "item",
    "ref",
    "reference",
    "po",
    "batch",
    "lot",
    "serial",
    "model",
    "version",
    "build",
    "issue",
    "bug",
    "job",
    "step",
    "chapter",
    "section",
    "table",
    "bus",
    "route",
    "train",
    "bay",
    "dock",
    "locker",
    "badge",
    "policy",
    "claim",
    "quote",
    "receipt",
    # German, Dutch
    "zimmer",
    "raum",
    "bestellung",
    "auftrag",
    "rechnung",
    "buchung",
    "flug",
    "kamer",
    "bestelling",
    "factuur",
    # French
    "chambre",
    "salle",
    "commande",
    "billet",
    "facture",
    "dossier",
    "vol",
    "réservation",
    # Spanish, Portuguese, Italian
    "habitación",
    "sala",
    "pedido",
    "orden",
    "factura",
    "fatura",
    "vuelo",
    "voo",
    "reserva",
    "quarto",
    "stanza",
    "camera",
    "ordine",
    "fattura",
    "volo",
    "prenotazione",
    # Turkish
    "oda",
    "sipariş",
    "bilet",
)
# The noun, then optionally a word for "number" and a "#" or ":", then the number.
_NAMED_RECORD = (
    r"(?<!\w)(?:"
    + "|".join(sorted(_RECORD_NOUNS, key=len, reverse=True))
    + r")\.?[ \t]*(?:(?:number|nummer|numéro|numero|número|no\.?|nr\.?|num\.?|n[º°]\.?)[ \t]*)?[#:№]?[ \t]*$"
)
_RECORD_BEFORE = 40  # characters before a number read for the noun naming it

_TIME_PREPOSITION = (
    r"(?<!\w)(?:at|by|around|after|before|until|till|from|um|gegen|bis|ab|à|vers|alle|às|om"
    r"|a las|sobre las|hacia las)[ \t]+$"
)
_TIME_WORD = (
    r"[ \t]?(?:hours?|hrs?|h|o'?clock|[ap]\.?m\.?|uhr|heures?|horas?|hs|ore|saat|uur)(?!\w)|[ \t]?[時点點시]"
)
_TIME_AFTER = 12  # characters after a number read for a word for hours


@functools.cache
def _compiled(pattern: str) -> re.Pattern[str]:
    """A pattern of this module, compiled on first use (most texts never reach these checks)."""
    return re.compile(pattern)


def _words_before(text: str, start: int, width: int) -> str:
    """``text`` up to ``start``, from ``width`` characters before it (extended to a word start),
    case-folded, with redaction markers blanked."""
    lo = max(0, start - width)
    while lo > 0 and text[lo - 1].isalnum():
        lo -= 1
    near = text[lo:start]
    if "[REDACTED:" in near:
        near = MARKER.sub(lambda found: " " * len(found.group()), near)
    return fold(near)


def _is_clock_time(digits: str) -> bool:
    """Whether 3-4 digits read as a 24-hour time (``930``, ``0930``, ``1530``)."""
    if len(digits) not in (3, 4) or not digits.isdigit():
        return False
    hours, minutes = int(digits[:-2]), int(digits[-2:])
    return hours <= 23 and minutes <= 59


def names_a_record(text: str, start: int) -> bool:
    """Whether a noun naming a record, a place or a thing counted stands right before ``start``."""
    return _compiled(_NAMED_RECORD).search(_words_before(text, start, _RECORD_BEFORE)) is not None


def is_time_of_day(text: str, start: int, end: int) -> bool:
    """Whether the digits ``text[start:end]`` are a time of day by the words around them."""
    digits = text[start:end]
    if not _is_clock_time(digits):
        return False
    after = fold(text[end : end + _TIME_AFTER])
    if _compiled(_TIME_WORD).match(after) is not None:
        return True
    return (
        len(digits) == 4 and _compiled(_TIME_PREPOSITION).search(_words_before(text, start, 16)) is not None
    )


def not_a_phone_by_context(text: str, start: int, end: int) -> bool:
    """Whether the words next to the number ``text[start:end]`` say it is something else."""
    return names_a_record(text, start) or is_time_of_day(text, start, end)


__all__ = ["is_time_of_day", "names_a_record", "not_a_phone_by_context"]
