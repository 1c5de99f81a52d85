"""Which national ids the ``national_id`` rule knows, how each is written, and which countries
have none with a public checksum.

``ID_SHAPES`` drives the rule: one row per written form of an id, with the python-stdnum module
that checks it (imported on the first candidate, never at start-up) and whether the form stands
alone. A form stands alone when a number that merely looks like it rarely passes the check: two
or more check digits, or letters and digits in a fixed layout with a check. A bare run of digits
with one check digit passes by chance for one number in ten or eleven (an order number, a
timestamp), so it is redacted only with a word naming an identity number nearby
(``pii_national_ids``).

``COUNTRIES`` is the coverage promise (the 30 most populous countries, the EU and the EEA): which
rule covers each country's personal or tax id, and why where no checksum exists. A test holds the
two tables and the rules to each other.
"""

from __future__ import annotations


class IdShape:
    """One written form of a national id. A plain class, not a NamedTuple: the table is read when
    the redaction rules are imported, on every cold prompt hook, and building NamedTuple classes
    cost more than the rest of the table."""

    __slots__ = ("alone", "country", "module", "name", "shape")

    def __init__(self, country: str, name: str, module: str | None, shape: str, alone: bool) -> None:
        self.country = country  # ISO 3166-1 alpha-2
        self.name = name  # what the id is called where it is used
        self.module = module  # python-stdnum module whose ``is_valid`` checks it; None: the form is the check
        self.shape = shape  # regular expression for the written form (ASCII digits and capitals)
        self.alone = alone  # redacted without a word naming it nearby

    def __repr__(self) -> str:
        return f"IdShape({self.country!r}, {self.name!r}, {self.module!r}, {self.shape!r}, {self.alone!r})"


# Layouts shared by several ids: rows with the very same shape string are checked together.
_D9, _D10, _D11, _D12, _D13, _D14, _D16 = (rf"\d{{{n}}}" for n in (9, 10, 11, 12, 13, 14, 16))
_DATE_DASH_4 = r"\d{6}[-+]\d{4}"  # Swedish, Danish and Icelandic DDMMYY-NNNN / YYMMDD-NNNN
_GROUPS_4_4_4 = r"\d{4} \d{4} \d{4}"  # Aadhaar and My Number as printed on the card
_DIGITS_LETTER = r"\d{8}-?[A-Z]"  # Spanish DNI, Cypriot TIN

ID_SHAPES: tuple[IdShape, ...] = (
    # Letters and digits in a fixed layout, checked: they stand alone.
    IdShape(
        "IT",
        "codice fiscale",
        "stdnum.it.codicefiscale",
        r"[A-Z]{6}\d{2}[A-EHLMPR-T]\d{2}[A-Z]\d{3}[A-Z]",
        True,
    ),
    IdShape("MX", "CURP", "stdnum.mx.curp", r"[A-Z]{4}\d{6}[HMX][A-Z]{5}[0-9A-Z]\d", True),
    IdShape("MX", "RFC", "stdnum.mx.rfc", r"[A-ZÑ&]{4}\d{6}[A-Z0-9]{3}", True),
    IdShape("ES", "DNI", "stdnum.es.dni", _DIGITS_LETTER, True),
    IdShape("CY", "TIN", "stdnum.cy.vat", _DIGITS_LETTER, True),
    IdShape("ES", "NIE", "stdnum.es.nie", r"[XYZ]-?\d{7}-?[A-Z]", True),
    IdShape("IE", "PPS number", "stdnum.ie.pps", r"\d{7}[A-W][ABHTWX]?", True),
    IdShape("PT", "Cartão de Cidadão", "stdnum.pt.cc", r"\d{8} ?\d ?[A-Z]{2}\d", True),
    IdShape("IN", "PAN", "stdnum.in_.pan", r"[A-Z]{5}\d{4}[A-Z]", True),
    IdShape("FI", "henkilötunnus", "stdnum.fi.hetu", r"\d{6}[-+A-FU-Y]\d{3}[0-9A-Y]", True),
    # The UK National Insurance number has no check digit: two prefix letters (not D F I Q U V;
    # the second not O; not the unused pairs), six digits, a suffix A-D. Its format is the check.
    IdShape(
        "GB",
        "National Insurance number",
        None,
        r"(?!BG|GB|KN|NK|NT|TN|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D]",
        True,
    ),
    # Digits in the layout the id is printed in, with its check: they stand alone.
    IdShape("BR", "CPF", "stdnum.br.cpf", r"\d{3}\.\d{3}\.\d{3}-\d{2}", True),
    IdShape("BR", "CNPJ", "stdnum.br.cnpj", r"\d{2}\.\d{3}\.\d{3}/\d{4}-\d{2}", True),
    IdShape("FR", "NIR", "stdnum.fr.nir", r"[12] ?\d{2} ?\d{2} ?(?:\d{2}|2[AB]) ?\d{3} ?\d{3} ?\d{2}", True),
    IdShape("FR", "numéro fiscal", "stdnum.fr.nif", r"\d{2} \d{2} \d{3} \d{3} \d{3}", True),
    IdShape("KR", "resident registration number", "stdnum.kr.rrn", r"\d{6}-\d{7}", True),
    IdShape("PK", "CNIC", "stdnum.pk.cnic", r"\d{5}-\d{7}-\d", True),
    IdShape("SE", "personnummer", "stdnum.se.personnummer", _DATE_DASH_4, True),
    IdShape("BE", "national number", "stdnum.be.nn", r"\d{2}\.\d{2}\.\d{2}-\d{3}\.\d{2}", True),
    IdShape("TH", "personal identification number", "stdnum.th.pin", r"\d-\d{4}-\d{5}-\d{2}-\d", True),
    IdShape("CZ", "rodné číslo", "stdnum.cz.rc", r"\d{6}/\d{4}", True),
    IdShape("SK", "rodné číslo", "stdnum.sk.rc", r"\d{6}/\d{4}", True),
    IdShape("ID", "NPWP", "stdnum.id.npwp", r"\d{2}\.\d{3}\.\d{3}\.\d-\d{3}\.\d{3}", True),
    IdShape("NO", "fødselsnummer", "stdnum.no.fodselsnummer", r"\d{6} \d{5}", True),
    IdShape("IN", "Aadhaar", "stdnum.in_.aadhaar", _GROUPS_4_4_4, True),
    # Bare digits with two or more check digits (one number in a hundred passes by chance).
    IdShape("BR", "CPF", "stdnum.br.cpf", _D11, True),
    IdShape("BR", "CNPJ", "stdnum.br.cnpj", _D14, True),
    IdShape("NO", "fødselsnummer", "stdnum.no.fodselsnummer", _D11, True),
    IdShape("BE", "national number", "stdnum.be.nn", _D11, True),
    IdShape("RU", "INN", "stdnum.ru.inn", _D12, True),
    IdShape("FR", "numéro fiscal", "stdnum.fr.nif", _D13, True),
    # One check digit (or a date and no check at all): only with a word naming an id nearby.
    IdShape("JP", "My Number", "stdnum.jp.in_", _GROUPS_4_4_4, False),
    IdShape("JP", "My Number", "stdnum.jp.in_", _D12, False),
    IdShape("IN", "Aadhaar", "stdnum.in_.aadhaar", _D12, False),
    IdShape("DE", "Steuer-ID", "stdnum.de.idnr", _D11, False),
    IdShape("DE", "Steuer-ID", "stdnum.de.idnr", r"\d{2} \d{3} \d{3} \d{3}", False),
    IdShape("PL", "PESEL", "stdnum.pl.pesel", _D11, False),
    IdShape("HR", "OIB", "stdnum.hr.oib", _D11, False),
    IdShape("EE", "isikukood", "stdnum.ee.ik", _D11, False),
    IdShape("LT", "asmens kodas", "stdnum.lt.asmens", _D11, False),
    IdShape("GR", "AMKA", "stdnum.gr.amka", _D11, False),
    IdShape("LV", "personas kods", "stdnum.lv.pvn", _D11, False),
    IdShape("LV", "personas kods", "stdnum.lv.pvn", r"\d{6}-\d{5}", False),
    IdShape("NL", "BSN", "stdnum.nl.bsn", _D9, False),
    IdShape("NL", "BSN", "stdnum.nl.bsn", r"\d{4}\.\d{2}\.\d{3}", False),
    IdShape("PT", "NIF", "stdnum.pt.nif", _D9, False),
    IdShape("AT", "Versicherungsnummer", "stdnum.at.vnr", _D10, False),
    IdShape("AT", "Versicherungsnummer", "stdnum.at.vnr", r"\d{4} \d{6}", False),
    IdShape("BG", "EGN", "stdnum.bg.egn", _D10, False),
    IdShape("CZ", "rodné číslo", "stdnum.cz.rc", _D10, False),
    IdShape("SK", "rodné číslo", "stdnum.sk.rc", _D10, False),
    IdShape("DK", "CPR", "stdnum.dk.cpr", _DATE_DASH_4, False),
    IdShape("DK", "CPR", "stdnum.dk.cpr", _D10, False),
    IdShape("IS", "kennitala", "stdnum.is_.kennitala", _DATE_DASH_4, False),
    IdShape("IS", "kennitala", "stdnum.is_.kennitala", _D10, False),
    IdShape("SE", "personnummer", "stdnum.se.personnummer", _D10, False),
    IdShape("SE", "personnummer", "stdnum.se.personnummer", r"\d{8}[-+]\d{4}", False),
    IdShape("RU", "INN", "stdnum.ru.inn", _D10, False),
    IdShape("VN", "MST", "stdnum.vn.mst", _D10, False),
    IdShape("VN", "MST", "stdnum.vn.mst", r"\d{10}-\d{3}", False),
    IdShape("GB", "UTR", "stdnum.gb.utr", _D10, False),
    IdShape("CO", "NIT", "stdnum.co.nit", r"\d{3}\.\d{3}\.\d{3}-\d", False),
    IdShape("CO", "NIT", "stdnum.co.nit", r"\d{8,10}-\d", False),
    IdShape("KR", "resident registration number", "stdnum.kr.rrn", _D13, False),
    IdShape("TH", "personal identification number", "stdnum.th.pin", _D13, False),
    IdShape("RO", "CNP", "stdnum.ro.cnp", _D13, False),
    IdShape("SI", "EMŠO", "stdnum.si.emso", _D13, False),
    IdShape("ZA", "ID number", "stdnum.za.idnr", _D13, False),
    IdShape("ZA", "ID number", "stdnum.za.idnr", r"\d{6} \d{4} \d{2} \d", False),
    IdShape("ID", "NIK", "stdnum.id.nik", _D16, False),
    IdShape("KE", "KRA PIN", "stdnum.ke.pin", r"[AP]\d{9}[A-Z]", False),
)


class Country:
    """A country the coverage promise names, and what redacts its ids."""

    __slots__ = ("code", "group", "ids", "name", "note", "rule", "word")

    def __init__(
        self, code: str, name: str, group: str, ids: tuple[str, ...], rule: str, word: str, note: str = ""
    ) -> None:
        self.code = code  # ISO 3166-1 alpha-2
        self.name = name
        self.group = group  # "top 30" (most populous), "EU", "EEA", or "top 30, EU"
        self.ids = ids  # names of its ``ID_SHAPES`` rows (checked by ``national_id``)
        self.rule = (
            rule  # what redacts its id alone: national_id, cn_resident_id, tr_identity, us_ssn, id_number
        )
        self.word = word  # a word naming the id there, one of ``pii_national_ids._ID_WORDS``
        self.note = note  # why an id has no public checksum here

    def __repr__(self) -> str:
        return f"Country({self.code!r}, {self.name!r})"


_NONE = "no public check digit"
COUNTRIES: tuple[Country, ...] = (
    Country("IN", "India", "top 30", ("Aadhaar", "PAN"), "national_id", "Aadhaar"),
    Country("CN", "China", "top 30", (), "cn_resident_id", "身份证号", "resident id: MOD 11-2, its own rule"),
    Country("US", "United States", "top 30", (), "us_ssn", "SSN", f"SSN: {_NONE}; area, group, serial"),
    Country("ID", "Indonesia", "top 30", ("NIK", "NPWP"), "national_id", "NIK", "NIK: region and birth date"),
    Country("PK", "Pakistan", "top 30", ("CNIC",), "national_id", "CNIC", "CNIC: layout and province"),
    Country("NG", "Nigeria", "top 30", (), "id_number", "NIN", f"NIN: {_NONE}"),
    Country("BR", "Brazil", "top 30", ("CPF", "CNPJ"), "national_id", "CPF"),
    Country("BD", "Bangladesh", "top 30", (), "id_number", "জাতীয় পরিচয়পত্র নম্বর", f"NID: {_NONE}"),
    Country("RU", "Russia", "top 30", ("INN",), "national_id", "ИНН", "SNILS: not in python-stdnum"),
    Country("ET", "Ethiopia", "top 30", (), "id_number", "Fayda", f"Fayda number: {_NONE}"),
    Country("MX", "Mexico", "top 30", ("CURP", "RFC"), "national_id", "CURP"),
    Country("JP", "Japan", "top 30", ("My Number",), "national_id", "マイナンバー"),
    Country(
        "EG", "Egypt", "top 30", (), "id_number", "الرقم القومي", "national number: no check in python-stdnum"
    ),
    Country("PH", "Philippines", "top 30", (), "id_number", "PhilSys", f"PhilSys, SSS, UMID, TIN: {_NONE}"),
    Country("CD", "DR Congo", "top 30", (), "id_number", "numéro d'identification", f"voter card: {_NONE}"),
    Country("VN", "Vietnam", "top 30", ("MST",), "national_id", "mã số thuế", f"CCCD: {_NONE}"),
    Country(
        "IR", "Iran", "top 30", (), "id_number", "کد ملی", "national code: check digit not in python-stdnum"
    ),
    Country("TR", "Türkiye", "top 30", (), "tr_identity", "T.C. Kimlik No", "two check digits, its own rule"),
    Country("DE", "Germany", "top 30, EU", ("Steuer-ID",), "national_id", "Steuer-ID"),
    Country(
        "TH", "Thailand", "top 30", ("personal identification number",), "national_id", "เลขประจำตัวประชาชน"
    ),
    Country("GB", "United Kingdom", "top 30", ("National Insurance number", "UTR"), "national_id", "UTR"),
    Country("TZ", "Tanzania", "top 30", (), "id_number", "NIDA", f"NIDA number: {_NONE}"),
    Country("FR", "France", "top 30, EU", ("NIR", "numéro fiscal"), "national_id", "numéro fiscal"),
    Country("ZA", "South Africa", "top 30", ("ID number",), "national_id", "ID number"),
    Country("IT", "Italy", "top 30, EU", ("codice fiscale",), "national_id", "codice fiscale"),
    Country("KE", "Kenya", "top 30", ("KRA PIN",), "national_id", "KRA PIN", f"national id: {_NONE}"),
    Country("MM", "Myanmar", "top 30", (), "id_number", "NRC", f"NRC: {_NONE}"),
    Country("CO", "Colombia", "top 30", ("NIT",), "national_id", "NIT", f"cédula: {_NONE}"),
    Country("KR", "South Korea", "top 30", ("resident registration number",), "national_id", "주민등록번호"),
    # Sudan and Uganda hold about 50 million people each (UN 2024): Sudan is the 30th.
    Country("SD", "Sudan", "top 30", (), "id_number", "الرقم الوطني", f"national number: {_NONE}"),
    Country("ES", "Spain", "EU", ("DNI", "NIE"), "national_id", "DNI"),
    Country("AT", "Austria", "EU", ("Versicherungsnummer",), "national_id", "Versicherungsnummer"),
    Country("BE", "Belgium", "EU", ("national number",), "national_id", "rijksregisternummer"),
    Country("BG", "Bulgaria", "EU", ("EGN",), "national_id", "ЕГН"),
    Country("HR", "Croatia", "EU", ("OIB",), "national_id", "OIB"),
    Country("CY", "Cyprus", "EU", ("TIN",), "national_id", "TIN number"),
    Country("CZ", "Czechia", "EU", ("rodné číslo",), "national_id", "rodné číslo"),
    Country("DK", "Denmark", "EU", ("CPR",), "national_id", "CPR", "CPR: birth date; check dropped in 2007"),
    Country("EE", "Estonia", "EU", ("isikukood",), "national_id", "isikukood"),
    Country("FI", "Finland", "EU", ("henkilötunnus",), "national_id", "henkilötunnus"),
    Country("GR", "Greece", "EU", ("AMKA",), "national_id", "ΑΜΚΑ"),
    Country("HU", "Hungary", "EU", (), "id_number", "adóazonosító jel", "check digits not in python-stdnum"),
    Country("IE", "Ireland", "EU", ("PPS number",), "national_id", "PPS number"),
    Country("LV", "Latvia", "EU", ("personas kods",), "national_id", "personas kods"),
    Country("LT", "Lithuania", "EU", ("asmens kodas",), "national_id", "asmens kodas"),
    Country("LU", "Luxembourg", "EU", (), "id_number", "matricule", "matricule: not in python-stdnum"),
    Country("MT", "Malta", "EU", (), "id_number", "karta tal-identità", f"identity card: {_NONE}"),
    Country("NL", "Netherlands", "EU", ("BSN",), "national_id", "BSN"),
    Country("PL", "Poland", "EU", ("PESEL",), "national_id", "PESEL"),
    Country("PT", "Portugal", "EU", ("Cartão de Cidadão", "NIF"), "national_id", "NIF"),
    Country("RO", "Romania", "EU", ("CNP",), "national_id", "CNP"),
    Country("SK", "Slovakia", "EU", ("rodné číslo",), "national_id", "rodné číslo"),
    Country("SI", "Slovenia", "EU", ("EMŠO",), "national_id", "EMŠO"),
    Country("SE", "Sweden", "EU", ("personnummer",), "national_id", "personnummer"),
    Country("IS", "Iceland", "EEA", ("kennitala",), "national_id", "kennitala"),
    Country("LI", "Liechtenstein", "EEA", (), "id_number", "PEID", f"PEID: {_NONE}"),
    Country("NO", "Norway", "EEA", ("fødselsnummer",), "national_id", "fødselsnummer"),
)

__all__ = ["COUNTRIES", "ID_SHAPES", "Country", "IdShape"]
