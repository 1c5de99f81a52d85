"""The normalisation in front of every rule: invisible and look-alike characters hide nothing, and
what gets replaced is the original span."""

from __future__ import annotations

import time

from hypothesis import given, settings
from hypothesis import strategies as st

from memwarden.govern import Redactor, normalize

REDACTOR = Redactor()
INVISIBLE = [
    "\u200b",
    "\u200c",
    "\u200d",
    "\u2060",
    "\ufeff",
    "\u00ad",
    "\u202e",
    "\u202d",
    "\u2066",
    "\u2069",
    "\u200e",
    "\u200f",
    "\u061c",
    # default-ignorable, but not format characters (categories Mn and Lo): kept before
    "\ufe0f",
    "\ufe00",
    "\u034f",
    "\u180b",
    "\u180f",
    "\u17b4",
    "\U000e0100",
]


def test_invisible_characters_are_removed_and_digits_of_every_script_become_ascii() -> None:
    assert normalize("a\u200bb\u00adc\u202ed").text == "abcd"
    assert normalize("４１１１ ١٣٨ ۱۲ ०९ ๑๒").text == "4111 138 12 09 12"
    assert normalize("ｊａｎｅ＠ｅｘａｍｐｌｅ．ｏｒｇ").text == "jane@example.org"


def test_every_default_ignorable_character_is_removed_and_every_dash_becomes_a_hyphen() -> None:
    """Unicode's Default_Ignorable_Code_Point list, whatever each one's category: a reader sees
    none of them. Dashes (category Pd) and the minus sign read as the hyphen the rules expect."""
    ignorable = "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180e\u180f"
    ignorable += "\u200b\u200f\u202a\u2060\u2064\u2065\u206f\u3164\ufe00\ufe0f\ufeff\uffa0\ufff0"
    ignorable += "\U0001bca0\U0001d173\U000e0001\U000e0100\U000e01ef\U000e0fff"
    assert normalize(f"a{ignorable}b").text == "ab"
    dashes = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d\u2e3a"
    assert normalize(dashes).text == "-" * len(dashes)
    assert normalize("\u05be\u301c").text == "--"  # the Hebrew maqaf and the wave dash are dashes too
    # Letters, marks that are visible and ordinary punctuation are kept.
    assert normalize("é\u0301中文 ❤ _~").text == "é\u0301中文 ❤ _~"


def test_tag_characters_become_the_ascii_they_spell() -> None:
    hidden = "".join(chr(0xE0000 + ord(c)) for c in "hi")
    assert normalize(f"x{hidden}y").text == "xhiy"


def test_ascii_text_takes_the_fast_path_unchanged() -> None:
    norm = normalize("plain ascii 123")
    assert norm.text == "plain ascii 123" and not norm.changed and norm.original_span(2, 5) == (2, 5)


def test_offsets_map_back_to_the_original_span_including_what_was_removed_inside() -> None:
    text = "mail ｊａｎｅ\u200b@ex\u00adample.org now"
    norm = normalize(text)
    start = norm.text.index("jane")
    end = norm.text.index(" now")
    assert norm.original_span(start, end) == (5, text.index(" now"))


@settings(max_examples=200, deadline=None)
@given(
    st.text(max_size=60),
    st.lists(st.sampled_from(INVISIBLE + ["４", "٣", "ｘ", "ﬁ"]), max_size=10),
    st.randoms(),
)
def test_every_normalised_character_maps_into_the_original(text: str, noise: list[str], rng: object) -> None:
    chars = list(text)
    for piece in noise:
        chars.insert(rng.randrange(len(chars) + 1), piece)  # type: ignore[attr-defined]
    original = "".join(chars)
    norm = normalize(original)
    for i in range(len(norm.text)):
        start, end = norm.original_span(i, i + 1)
        assert 0 <= start < end <= len(original)
    assert norm.original_span(0, len(norm.text))[1] <= len(original)


EVASIONS = {
    "zero width in an e-mail": ("write to jane\u200b.doe@exam\u200dple.org", "jane"),
    "soft hyphen in a card": ("card 4111\u00ad1111\u00ad1111\u00ad1111", "1111"),
    "rtl override in an SSN": ("ssn 123\u202e-45-6789", "6789"),
    "joiner in an AWS key": ("key AKIA\u200dIOSFODNN7EXAMPLE", "IOSFODNN7"),
    "full-width card": ("card ４１１１ １１１１ １１１１ １１１１", "１１１１"),
    "full-width Chinese mobile": ("手机 １３８００１３８０００", "８０００"),
    "full-width TC kimlik": ("TCKN １０００００００１４６", "１４６"),
    "Arabic-Indic mobile": ("mobile ١٣٨٠٠١٣٨٠٠٠", "٠٠٠"),
    "Persian digits TC kimlik": ("TC ۱۰۰۰۰۰۰۰۱۴۶", "۱۴۶"),
    "Devanagari card": ("card ४१११११११११११११११", "१११"),
    "mobile glued to Chinese": ("我的手机号是13800138000，请回电", "13800138000"),
    "card glued to Chinese": ("银行卡号4111111111111111请保密", "4111111111111111"),
    "SSN glued to Japanese": ("SSNは123-45-6789です", "123-45-6789"),
    "TC kimlik glued to Thai": ("เลขที่10000000146ครับ", "10000000146"),
    "e-mail glued to Chinese": ("联系jane@example.org请回复", "jane@example.org"),
    "card with dots": ("card 4111.1111.1111.1111", "4111.1111"),
    "variation selectors in a card": ("card 4111\ufe0f1111\ufe0f1111\ufe0f1111", "1111"),
    "grapheme joiner in an e-mail": ("mail jane.doe@exam\u034fple.org", "jane.doe"),
    "variation selector in a GitHub token": ("ghp_abcdefghijklmnop\ufe0fqrstuvwxyzABCDEFGHIJ", "qrstuv"),
    "Mongolian selector in an SSN": ("ssn 123\u180b-45-6789", "6789"),
    "en dashes in an SSN": ("ssn 123\u201345\u20136789", "6789"),
    "non-breaking hyphens in an SSN": ("ssn 123\u201145\u20116789", "6789"),
    "en dash in a US phone": ("call (415) 555\u20132671", "2671"),
    "minus signs in a card": ("card 4111\u22121111\u22121111\u22121111", "1111"),
}


def test_each_evasion_is_redacted_and_its_original_characters_replaced() -> None:
    for name, (text, fragment) in EVASIONS.items():
        out = REDACTOR.redact(text)
        assert out.redacted and fragment not in out.text, (name, out.text)
        assert REDACTOR.redact(out.text).text == out.text, name


def test_words_next_to_a_glued_value_stay() -> None:
    assert (
        REDACTOR.redact("我的手机号是13800138000，请回电").text == "我的手机号是[REDACTED:phone_cn]，请回电"
    )
    assert REDACTOR.redact("联系jane@example.org请回复").text == "联系[REDACTED:email]请回复"


def test_sixteen_kib_of_zero_width_characters_is_redacted_quickly() -> None:
    text = "\u200b" * 16384
    started = time.process_time()
    out = REDACTOR.redact(text)
    assert out.matches == 0 and out.text == text
    assert time.process_time() - started < 2.0  # bounded, not a hang (typically ~10 ms)
    padded = "\u200b" * 8192 + "jane@example.org" + "\u200b" * 8192
    assert "jane" not in REDACTOR.redact(padded).text


# Every blank a reader sees as a gap: Unicode spaces and separators (Zs, Zl, Zp), next line, the
# ASCII vertical tab, form feed and information separators, and the braille blank.
BLANKS = [
    "\u00a0",
    "\u1680",
    "\u2000",
    "\u2007",
    "\u200a",
    "\u2028",
    "\u2029",
    "\u202f",
    "\u205f",
    "\u3000",
    "\u0085",
    "\x0b",
    "\x0c",
    "\x1c",
    "\x1f",
    "\u2800",
]
NUMBERS_IN_GROUPS = {
    "payment_card": ["4111", "1111", "1111", "1111"],
    "us_ssn": ["123", "45", "6789"],
    "phone_e164": ["+44", "20", "7946", "0958"],
    "iban": ["DE89", "3704", "0044", "0532", "0130", "00"],
    "phone_cn": ["138", "0013", "8000"],
}


def test_every_blank_becomes_a_space_and_maps_back_to_itself() -> None:
    text = "a" + "b".join(BLANKS) + "c"
    norm = normalize(text)
    assert norm.text == "a" + "b".join(" " * len(BLANKS)) + "c"
    assert norm.original_span(0, len(norm.text)) == (0, len(text))
    assert normalize("tab\tline\ncr\r").text == "tab\tline\ncr\r"  # rules tell these apart


def test_a_value_whose_groups_are_set_apart_by_any_blank_is_redacted_whole() -> None:
    for blank in BLANKS:
        for rule, groups in NUMBERS_IN_GROUPS.items():
            value = blank.join(groups)
            out = REDACTOR.redact(f"note {value} end")
            assert out.text == f"note [REDACTED:{rule}] end", (repr(blank), rule, out.text)
            assert REDACTOR.redact(out.text).text == out.text
