"""Composition root: build everything from Settings, in one place."""

from __future__ import annotations

import logging
from pathlib import Path

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from memwarden.config import Settings
    from memwarden.config_hot import HotSettings
from memwarden.models import Caller
from memwarden.search.ranking import RankingWeights
from memwarden.service import MemoryService
from memwarden.store import open_store
from memwarden.text.analyzer import Analyzer


def build_service(settings: Settings | HotSettings) -> MemoryService:
    """The service for these settings: store, analyzer and the default (local) caller.

    Accepts the full ``Settings`` or the pydantic-free ``HotSettings`` of the per-prompt paths.
    """
    store = open_store(settings.database_url(), synchronous=settings.sqlite_synchronous)
    languages = tuple(part.strip() for part in settings.languages.split(",") if part.strip())
    return MemoryService(
        store,
        analyzer=Analyzer(languages),
        default_caller=Caller(actor=settings.actor, tenant=settings.tenant),
        max_content_bytes=settings.max_content_bytes,
        ranking=RankingWeights(half_life_days=settings.recency_half_life_days),
    )


def configure_logging(settings: Settings, *, to_stderr: bool = True) -> None:
    """Log to a file in the data directory (and stderr); never memory content or query text."""
    handlers: list[logging.Handler] = []
    path = Path(settings.log_path())
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handlers.append(logging.FileHandler(path, encoding="utf-8"))
    except OSError:
        pass
    if to_stderr:
        handlers.append(logging.StreamHandler())
    logging.basicConfig(
        level=settings.log_level,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        handlers=handlers,
        force=True,
    )
