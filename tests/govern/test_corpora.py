"""The labelled corpora: injection screening recall and false positives, redaction precision.

The corpora (bench/govern_corpora.py, sentence lists in tests/data/) were written for memwarden;
bench/govern.py prints the same rates.
"""

from __future__ import annotations

from bench.govern_corpora import benign_corpus, hostile_corpus, ordinary_memories, precision_corpus
from memwarden.govern import Redactor
from memwarden.screening import FLAGS, screen_text

LANGUAGES = (
    "English",
    "Turkish",
    "German",
    "French",
    "Spanish",
    "Italian",
    "Portuguese",
    "Dutch",
    "Russian",
    "Chinese",
    "Japanese",
    "Korean",
    "Arabic",
)


def test_the_hostile_corpus_is_large_covers_13_languages_and_recall_is_at_least_95_percent() -> None:
    cases = hostile_corpus()
    assert len(cases) >= 300
    assert {label.split(":")[0].split("/")[0] for label, _ in cases} >= set(LANGUAGES)
    missed = [(label, text) for label, text in cases if not screen_text(text)]
    assert 1 - len(missed) / len(cases) >= 0.95, missed


def test_every_attack_family_of_the_issue_is_flagged_in_its_plain_form() -> None:
    plain = [text for label, text in hostile_corpus() if label.endswith("/plain")]
    assert [text for text in plain if not screen_text(text)] == []


def test_each_flag_is_raised_by_some_hostile_case() -> None:
    raised = {flag for _, text in hostile_corpus() for flag in screen_text(text)}
    assert raised == set(FLAGS)


def test_the_benign_corpus_is_large_and_at_most_1_percent_is_flagged() -> None:
    cases = benign_corpus()
    assert len(cases) >= 1000
    flagged = [(label, text, screen_text(text)) for label, text in cases if screen_text(text)]
    assert len(flagged) / len(cases) <= 0.01, flagged


def test_the_precision_corpus_has_1000_sentences_in_6_languages_and_redaction_changes_at_most_1_percent() -> (
    None
):
    cases = precision_corpus()
    assert len(cases) >= 1000
    assert len({language for language, _ in cases}) >= 6
    redactor = Redactor()
    changed = [(text, redactor.redact(text).text) for _, text in cases if redactor.redact(text).matches]
    assert len(changed) / len(cases) <= 0.01, changed


def test_the_ordinary_memories_split_into_a_fitted_half_and_one_no_model_saw() -> None:
    fitted, held = ordinary_memories(fitted=True), ordinary_memories(fitted=False)
    languages = {lang for lang, _, _ in fitted + held}
    assert len(languages) == 20 and {"id", "tl", "ur", "uk"} <= languages
    assert {kind for _, kind, _ in fitted + held} == {"preferences", "notes"}
    assert not {text for *_, text in fitted} & {text for *_, text in held}
    assert abs(len(fitted) - len(held)) < len(fitted) // 5


def test_few_of_the_ordinary_memories_no_model_saw_are_flagged_at_write_time() -> None:
    # A guard against regressions, not the target: bench/govern.py prints them per language.
    held = ordinary_memories(fitted=False)
    flagged = [(lang, text) for lang, _, text in held if screen_text(text)]
    assert len(flagged) / len(held) <= 0.015, flagged
