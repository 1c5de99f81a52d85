"""The per-text scan context (``Scopes``) hands rules what they would compute themselves."""

from hypothesis import given, settings
from hypothesis import strategies as st

from memwarden.govern.pii_phones import words_near
from memwarden.govern.scopes import Scopes

# Pieces that stress the shared fold: markers whole and cut, "Σ" (its lower case depends on the
# next letter), "İ" (lower() makes two characters of it), word and digit runs, brackets.
_PIECES = st.sampled_from(
    [
        "[REDACTED:email]",
        "[REDACTED:phone_us]",
        "[REDACTED:",
        "]",
        "ΑΣ",
        "Σ.",
        "İstanbul",
        "ıI",
        "Tel",
        "phone ",
        "ID number ",
        "PESEL",
        "4111 1111",
        "0044 20",
        " ",
        "_",
        ".",
        "\n",
        "x",
        "9",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, max_size=14).map("".join), st.integers(0, 120), st.integers(0, 160))
def test_words_near_reads_the_same_words_with_the_scan_context(text: str, lo: int, width: int) -> None:
    lo = min(lo, len(text))  # callers pass a stretch starting inside the text
    hi = lo + width
    assert words_near(text, lo, hi, Scopes(text)) == words_near(text, lo, hi)


def test_words_of_a_text_with_markers_blank_each_marker_and_keep_its_length() -> None:
    text = "Call [REDACTED:phone_us] or MAIL [REDACTED:email]."
    words = Scopes(text).words
    assert len(words) == len(text)
    assert words == "call " + " " * 19 + " or mail " + " " * 16 + "."


def test_a_slice_that_cuts_a_marker_or_follows_a_sigma_is_not_shared() -> None:
    marked = Scopes("see [REDACTED:email] now")
    assert marked.words_slice(0, 8) is None
    assert marked.words_slice(0, 4) == "see "
    assert Scopes("ΟΔΟΣ 12").words_slice(0, 4) is None
