"""No configuration for a language: a word's script picks its stemmer, and a Latin text's
stopwords add the stemmer of the language they point at."""

from __future__ import annotations

from pathlib import Path

import pytest

from memwarden.app import build_service
from memwarden.config import load_settings
from memwarden.text.analyzer import Analyzer
from memwarden.text.language_guess import LanguageGuesser, script_of
from memwarden.text.normalize import fold

DEFAULT = Analyzer(("english", "turkish"))


def _matches(query: str, document: str, analyzer: Analyzer = DEFAULT) -> bool:
    return bool(set(analyzer.query(query).terms) & set(analyzer.terms(document)))


def _guess(text: str, configured: tuple[str, ...] = ("english", "turkish")) -> str | None:
    return LanguageGuesser(configured).latin_language([fold(w) for w in text.split()], text)


@pytest.mark.parametrize(
    ("word", "script"),
    [
        ("deploy", "latin"),
        ("çalışır", "latin"),
        ("Nguyễn", "latin"),
        ("сервер", "cyrillic"),
        ("διακομιστής", "greek"),
        ("الخادم", "arabic"),
        ("सर्वर", "devanagari"),
        ("სერვერი", "other"),
    ],
)
def test_the_script_of_a_word_is_read_from_its_letters(word: str, script: str) -> None:
    assert script_of(word) == script


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("arabic", ["المكتبات", "مكتبة", "والمكتبة"]),
        ("russian", ["серверы", "сервера", "сервер"]),
        ("greek", ["διακομιστές", "διακομιστής"]),
        ("hindi", ["किताबें", "किताब"]),
    ],
)
def test_a_script_gets_its_own_stemmer_without_configuration(language: str, words: list[str]) -> None:
    configured = Analyzer((language,))
    for word in words:
        # The same terms as with the language configured: no five-letter Turkish cut.
        assert DEFAULT.terms(word) == configured.terms(word)


def test_a_configured_language_of_the_script_wins_over_the_script_default() -> None:
    serbian = Analyzer(("english", "serbian")).terms("серверима")
    assert serbian == Analyzer(("serbian",)).terms("серверима")
    assert serbian != DEFAULT.terms("серверима") == Analyzer(("russian",)).terms("серверима")


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Die Verteidigung der Panthers gab nur wenige Punkte ab und war die beste", "german"),
        ("La defensa de los Panthers cedió solo pocos puntos en la liga", "spanish"),
        ("Apărarea echipei a cedat doar câteva puncte și este cea mai bună din ligă", "romanian"),
    ],
)
def test_stopwords_point_at_the_language_of_a_latin_text(text: str, language: str) -> None:
    assert _guess(text) == language


@pytest.mark.parametrize(
    "text",
    [
        "We deploy on Tuesdays and the backups run at night",  # configured: nothing to add
        "Sunucu yedekleri her gece ve her sabah alınır",  # configured: nothing to add
        "Đội phòng thủ của Panthers chỉ để thua 308 điểm và đứng thứ sáu",  # Vietnamese: no guess
        "Panthers 308",  # no evidence
    ],
)
def test_no_language_is_added_without_clear_evidence(text: str) -> None:
    assert _guess(text) is None


def test_a_guessed_language_adds_its_stems_and_keeps_the_configured_ones() -> None:
    memory = "Wir sichern die Datenbanken jede Nacht auf den neuen Server"
    assert _matches("Datenbank", memory)  # the German stem of the memory meets the query's
    english_only = Analyzer(("english", "turkish")).terms("Datenbanken")
    assert set(english_only) <= set(DEFAULT.terms(memory))


def test_a_memory_in_another_script_is_found_by_an_inflected_query_with_default_settings(
    tmp_path: Path,
) -> None:
    settings = load_settings(db=str(tmp_path / "m.db"), log_file=str(tmp_path / "log"), embedder="none")
    service = build_service(settings, embeddings=False)
    try:
        service.memories.add("Резервные копии серверов делаются каждую ночь", project="ops")
        service.memories.add("Встреча команды по понедельникам", project="ops")
        hits = service.searcher.search("сервер", project="ops").hits
        assert [h.memory.content for h in hits] == ["Резервные копии серверов делаются каждую ночь"]
    finally:
        service.close()
