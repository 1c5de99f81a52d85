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


@pytest.fixture(scope="session")
def e5(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """multilingual-e5-small int8 (the default model, named here so this folder's tests know
    which one they get), its graph made into a folder of its own, loaded once for the session."""
    from memwarden.embed.e5_onnx import E5Int8Embedder

    embedder = E5Int8Embedder(cache_dir=tmp_path_factory.mktemp("e5-models"))
    embedder.load()
    unload = embedder.close
    embedder.close = lambda: None  # type: ignore[method-assign]  # services must not unload it
    yield embedder
    unload()
