"""The MiniLM tests of this folder name their model: the builtin default may be another one
(``builtin.DEFAULT_MODEL``), and these tests are about MiniLM's own file, tokenizer and rules."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="session")
def builtin_embedder() -> Iterator[Any]:
    """all-MiniLM-L6-v2 int8, loaded once for the session (overrides tests/conftest.py's default model)."""
    from memwarden.embed.builtin import MINILM, open_builtin

    embedder = open_builtin(MINILM)
    embedder.load()
    embedder.close = lambda: None  # type: ignore[method-assign]  # services must not unload the shared model
    yield embedder
