"""National ids with their checksums (govern/national_id_table.py, pii_national_ids.NationalIdRule).

Every example is made here: a value built around a birth date or a serial, its check digits found
by asking python-stdnum which ones it accepts, then written in the form under test. A wrong check
digit is the same value with the last searched character changed.
"""

from __future__ import annotations

import itertools
import random
import string
import unicodedata
from importlib import import_module

import pytest

from memwarden.govern import Redactor
from memwarden.govern.checksums import ID_ALONE, ID_WITH_WORD, NOT_AN_ID, national_id_strength
from memwarden.govern.national_id_table import COUNTRIES, ID_SHAPES, IdShape
from memwarden.govern.pii_national_ids import IdNumberRule, NationalIdRule

REDACTOR = Redactor()
RULE = NationalIdRule()
DIGITS, LETTERS = string.digits, string.ascii_uppercase

# (module, form) -> (seed, alphabet): "?" marks the check characters tried from the alphabet; the
# other characters make a plausible value (a real date, region or serial) in the written form.
SEEDS: dict[tuple[str | None, str], tuple[str, str]] = {
    ("stdnum.it.codicefiscale", "letters"): ("BNCGNN72C41F205?", LETTERS),
    ("stdnum.mx.curp", "letters"): ("PEGJ900512HDFRRN0?", DIGITS),
    ("stdnum.mx.rfc", "letters"): ("PEGJ900512AB0", ""),
    ("stdnum.es.dni", "letters"): ("47382915?", LETTERS),
    ("stdnum.cy.vat", "letters"): ("42381961?", LETTERS),
    ("stdnum.es.nie", "letters"): ("Y6482913?", LETTERS),
    ("stdnum.ie.pps", "letters"): ("8274361?A", LETTERS),
    ("stdnum.pt.cc", "letters"): ("18294637 5 ZX?", DIGITS),
    ("stdnum.in_.pan", "letters"): ("BQDPS4827M", ""),
    ("stdnum.fi.hetu", "letters"): ("040287-416?", DIGITS + "ABCDEFHJKLMNPRSTUVWXY"),
    (None, "letters"): ("WP 84 71 26 C", ""),
    ("stdnum.br.cpf", r"\d{3}\.\d{3}\.\d{3}-\d{2}"): ("384.716.205-??", DIGITS),
    ("stdnum.br.cnpj", r"\d{2}\.\d{3}\.\d{3}/\d{4}-\d{2}"): ("27.491.836/0001-??", DIGITS),
    ("stdnum.fr.nir", "nir"): ("2 87 06 75 123 456 ??", DIGITS),
    ("stdnum.fr.nif", r"\d{2} \d{2} \d{3} \d{3} \d{3}"): ("12 34 567 890 ???", DIGITS),
    ("stdnum.kr.rrn", r"\d{6}-\d{7}"): ("871205-123456?", DIGITS),
    ("stdnum.pk.cnic", r"\d{5}-\d{7}-\d"): ("42101-5873219-4", ""),
    ("stdnum.se.personnummer", r"\d{6}[-+]\d{4}"): ("850709-962?", DIGITS),
    ("stdnum.be.nn", r"\d{2}\.\d{2}\.\d{2}-\d{3}\.\d{2}"): ("85.07.30-033.??", DIGITS),
    ("stdnum.th.pin", r"\d-\d{4}-\d{5}-\d{2}-\d"): ("1-2345-67890-12-?", DIGITS),
    ("stdnum.cz.rc", r"\d{6}/\d{4}"): ("850709/123?", DIGITS),
    ("stdnum.sk.rc", r"\d{6}/\d{4}"): ("855709/321?", DIGITS),
    ("stdnum.id.npwp", r"\d{2}\.\d{3}\.\d{3}\.\d-\d{3}\.\d{3}"): ("01.234.567.?-012.000", DIGITS),
    ("stdnum.no.fodselsnummer", r"\d{6} \d{5}"): ("150786 123??", DIGITS),
    ("stdnum.in_.aadhaar", r"\d{4} \d{4} \d{4}"): ("3947 2618 530?", DIGITS),
    ("stdnum.br.cpf", r"\d{11}"): ("38471620?5?", DIGITS),
    ("stdnum.br.cnpj", r"\d{14}"): ("274918360001??", DIGITS),
    ("stdnum.no.fodselsnummer", r"\d{11}"): ("150786123??", DIGITS),
    ("stdnum.be.nn", r"\d{11}"): ("850730033??", DIGITS),
    ("stdnum.ru.inn", r"\d{12}"): ("5004012786??", DIGITS),
    ("stdnum.fr.nif", r"\d{13}"): ("1234567890???", DIGITS),
    ("stdnum.jp.in_", r"\d{4} \d{4} \d{4}"): ("3847 2916 514?", DIGITS),
    ("stdnum.jp.in_", r"\d{12}"): ("38472916514?", DIGITS),
    ("stdnum.in_.aadhaar", r"\d{12}"): ("39472618530?", DIGITS),
    ("stdnum.de.idnr", r"\d{11}"): ("8621045932?", DIGITS),
    ("stdnum.de.idnr", r"\d{2} \d{3} \d{3} \d{3}"): ("86 210 459 32?", DIGITS),
    ("stdnum.pl.pesel", r"\d{11}"): ("8505071234?", DIGITS),
    ("stdnum.hr.oib", r"\d{11}"): ("6938472015?", DIGITS),
    ("stdnum.ee.ik", r"\d{11}"): ("3850507123?", DIGITS),
    ("stdnum.lt.asmens", r"\d{11}"): ("4850507321?", DIGITS),
    ("stdnum.gr.amka", r"\d{11}"): ("0705851234?", DIGITS),
    ("stdnum.lv.pvn", r"\d{11}"): ("0705851234?", DIGITS),
    ("stdnum.lv.pvn", r"\d{6}-\d{5}"): ("070585-1234?", DIGITS),
    ("stdnum.nl.bsn", r"\d{9}"): ("18374962?", DIGITS),
    ("stdnum.nl.bsn", r"\d{4}\.\d{2}\.\d{3}"): ("1837.49.62?", DIGITS),
    ("stdnum.pt.nif", r"\d{9}"): ("28374619?", DIGITS),
    ("stdnum.at.vnr", r"\d{10}"): ("482?070585", DIGITS),
    ("stdnum.at.vnr", r"\d{4} \d{6}"): ("482? 070585", DIGITS),
    ("stdnum.bg.egn", r"\d{10}"): ("850507123?", DIGITS),
    ("stdnum.cz.rc", r"\d{10}"): ("850709123?", DIGITS),
    ("stdnum.sk.rc", r"\d{10}"): ("855709321?", DIGITS),
    ("stdnum.dk.cpr", r"\d{6}[-+]\d{4}"): ("070585-1234", ""),
    ("stdnum.dk.cpr", r"\d{10}"): ("0705851234", ""),
    ("stdnum.is_.kennitala", r"\d{6}[-+]\d{4}"): ("070585-23?9", DIGITS),
    ("stdnum.is_.kennitala", r"\d{10}"): ("07058523?9", DIGITS),
    ("stdnum.se.personnummer", r"\d{10}"): ("850709962?", DIGITS),
    ("stdnum.se.personnummer", r"\d{8}[-+]\d{4}"): ("19850709-962?", DIGITS),
    ("stdnum.ru.inn", r"\d{10}"): ("500401278?", DIGITS),
    ("stdnum.vn.mst", r"\d{10}"): ("030124567?", DIGITS),
    ("stdnum.vn.mst", r"\d{10}-\d{3}"): ("030124567?-001", DIGITS),
    ("stdnum.gb.utr", r"\d{10}"): ("?472916530", DIGITS),
    ("stdnum.co.nit", r"\d{3}\.\d{3}\.\d{3}-\d"): ("900.373.915-?", DIGITS),
    ("stdnum.co.nit", r"\d{8,10}-\d"): ("900373915-?", DIGITS),
    ("stdnum.kr.rrn", r"\d{13}"): ("871205123456?", DIGITS),
    ("stdnum.th.pin", r"\d{13}"): ("123456789012?", DIGITS),
    ("stdnum.ro.cnp", r"\d{13}"): ("185050740123?", DIGITS),
    ("stdnum.si.emso", r"\d{13}"): ("070598550012?", DIGITS),
    ("stdnum.za.idnr", r"\d{13}"): ("850507512308?", DIGITS),
    ("stdnum.za.idnr", r"\d{6} \d{4} \d{2} \d"): ("850507 5123 08 ?", DIGITS),
    ("stdnum.id.nik", r"\d{16}"): ("3171010705850001", ""),
    ("stdnum.ke.pin", "letters"): ("A472916530K", ""),
}


def _key(row: IdShape) -> tuple[str | None, str]:
    for form in (row.shape, "letters", "nir"):
        if (row.module, form) in SEEDS:
            return row.module, form
    raise KeyError(f"no seed for {row}")


def _valid(row: IdShape, text: str) -> bool:
    return row.module is None or bool(import_module(row.module).is_valid(text))


def example(row: IdShape) -> str:
    """A value of ``row`` that its check accepts and that is exactly as strong as the row says."""
    seed, alphabet = SEEDS[_key(row)]
    holes = seed.count("?")
    for fill in itertools.product(alphabet, repeat=holes):
        chars = iter(fill)
        value = "".join(next(chars) if ch == "?" else ch for ch in seed)
        if _valid(row, value) and (row.alone or national_id_strength(value) == ID_WITH_WORD):
            return value
    raise AssertionError(f"no valid example of {row} from {seed!r}")


def wrong_check(row: IdShape) -> str | None:
    """``example(row)`` with its last check character changed so that its check fails: so that no
    id's check holds where one can be found (a Danish CPR, a date and four digits, has no check)."""
    seed, alphabet = SEEDS[_key(row)]
    if "?" not in seed:
        return None
    value, at = example(row), seed.rindex("?")
    wrongs = [value[:at] + other + value[at + 1 :] for other in alphabet if other != value[at]]
    wrongs = [wrong for wrong in wrongs if not _valid(row, wrong)]
    return min(wrongs, key=national_id_strength)


# Ids whose python-stdnum check is their format, a date or a region (no check digit to get wrong).
FORMAT_ONLY = (
    None,
    "stdnum.in_.pan",
    "stdnum.pk.cnic",
    "stdnum.dk.cpr",
    "stdnum.id.nik",
    "stdnum.ke.pin",
    "stdnum.mx.rfc",
)
ROWS = [pytest.param(row, id=f"{row.country}-{row.name}-{row.shape}") for row in ID_SHAPES]
# The rules read normalised text (NFKC: Thai "ำ" is two characters there); the redactor normalises.
WORDS = {country.code: unicodedata.normalize("NFKC", country.word) for country in COUNTRIES}


def test_the_promise_names_the_30_most_populous_countries_the_eu_and_the_eea() -> None:
    codes = [country.code for country in COUNTRIES]
    assert len(codes) == len(set(codes)) == 30 + 27 + 3 - 3  # Germany, France, Italy are in both
    assert sum("top 30" in country.group for country in COUNTRIES) == 30
    assert sum("EU" in country.group and "EEA" not in country.group for country in COUNTRIES) == 27
    assert {c.code for c in COUNTRIES if c.group == "EEA"} == {"IS", "LI", "NO"}


def test_every_id_with_a_checksum_in_the_table_is_checked_and_every_country_says_how() -> None:
    names = {(row.country, row.name) for row in ID_SHAPES}
    for country in COUNTRIES:
        for name in country.ids:
            assert (country.code, name) in names, (country.code, name)
        assert country.ids or country.note, f"{country.name}: say why it has no checked id"
        assert (country.rule == "national_id") == bool(country.ids), country.name
    listed = {(country.code, name) for country in COUNTRIES for name in country.ids}
    assert names == listed
    assert all(row.module is None or import_module(row.module) for row in ID_SHAPES)
    assert len(SEEDS) == len({_key(row) for row in ID_SHAPES})


@pytest.mark.parametrize("row", ROWS)
def test_every_id_is_found_in_a_sentence_in_its_written_form(row: IdShape) -> None:
    value = example(row)
    assert national_id_strength(value) == (ID_ALONE if row.alone else ID_WITH_WORD)
    text = f"Please keep {value} on file." if row.alone else f"Her {WORDS[row.country]}: {value}, on file."
    start = text.index(value)
    assert (start, start + len(value)) in RULE.spans(text), text
    out = REDACTOR.redact(text)
    assert value not in out.text and out.redacted, out.text


@pytest.mark.parametrize("row", [param for param in ROWS if not param.values[0].alone])  # type: ignore[union-attr]
def test_a_bare_number_with_one_check_digit_needs_a_word_naming_it(row: IdShape) -> None:
    value = example(row)
    assert RULE.spans(f"Order {value} shipped today.") == []
    # The word may stand a few words before the number or right after it.
    before = f"{WORDS[row.country]} of the new tenant, as written on the form: {value}"
    after = f"Ref {value} ({WORDS[row.country]}) attached"
    for text in (before, after):
        start = text.index(value)
        assert RULE.spans(text) == [(start, start + len(value))], text


@pytest.mark.parametrize("row", ROWS)
def test_one_wrong_check_digit_is_not_a_national_id(row: IdShape) -> None:
    wrong = wrong_check(row)
    if wrong is None:
        assert row.module in FORMAT_ONLY
        return
    if national_id_strength(wrong) == NOT_AN_ID:
        assert RULE.spans(f"Her {WORDS[row.country]}: {wrong}, on file.") == []
    else:  # another country's id written the same way accepts it: only with a word naming an id
        assert not row.alone and national_id_strength(wrong) == ID_WITH_WORD
        assert RULE.spans(f"Please keep {wrong} on file.") == []
    if row.alone:  # where the right value would stand alone, the wrong one is no national id
        text = f"Please keep {wrong} on file."
        assert "national_id" not in {finding.rule for finding in REDACTOR.find(text)}, text


@pytest.mark.parametrize("country", [c for c in COUNTRIES if c.rule == "id_number"], ids=lambda c: c.code)
def test_countries_without_a_checksum_are_covered_by_a_word_naming_the_id(country: object) -> None:
    word = country.word  # type: ignore[attr-defined]
    for value in ("48213957", "19870512-00457", "A4821395"):
        text = f"{word} {value} for the record"
        start = text.index(value)
        assert IdNumberRule().spans(text) == [(start, start + len(value))], text
        # Redacted whole, named id_number or (digits alone) by a rule before it such as phone.
        assert value not in REDACTOR.redact(text).text


@pytest.mark.parametrize(
    "text",
    [
        "The meeting moved to 2024-05-17 at 14:30, then to 17.05.2024.",
        "Release 10.4.2235 fixed the importer; 3.11.4 is next.",
        "Order 48213957 shipped on 12/03/2025 in parcel 7.",
        "The invoice total was 1.234.567,89 EUR for 12 items.",
        "Room 1204, floor 12, badge 5521.",
        "Unix time 1717171717 and 1717171717123 in milliseconds.",
        "ISBN 978-3-16-148410-0 and EAN 4006381333931 on the box.",
    ],
)
def test_numbers_of_ordinary_sentences_are_no_national_id(text: str) -> None:
    assert RULE.spans(text) == []
    assert REDACTOR.redact(text).text == text


def test_few_order_numbers_pass_as_an_id_standing_alone() -> None:
    # A bare run of digits stands alone only with two check digits or more: a random order number
    # of 9 to 16 digits rarely passes (about one in a hundred for 11, 12 and 14 digits).
    rng = random.Random(31)
    numbers = [str(rng.randrange(10 ** (n - 1), 10**n)) for n in range(9, 17) for _ in range(250)]
    flagged = [number for number in numbers if RULE.spans(f"Order {number} shipped today.")]
    assert len(flagged) / len(numbers) < 0.01, flagged


def test_phone_numbers_are_not_named_national_ids() -> None:
    for text in ("Call me on 0612345678 tonight.", "Office: 030 12345678, ext 12.", "Tel. 020 7946 0958."):
        assert all(finding.rule != "national_id" for finding in REDACTOR.find(text)), text
