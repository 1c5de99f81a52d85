"""Keyword search speed at scale, and what the analyzer costs when indexing.

    python bench/search_speed.py                  # 100k memories, 300 queries
    python bench/search_speed.py --memories 20000 --json out.json

Part 1, analyzer overhead: time to analyze 200-character memories (content, title, tags)
with the default languages (English, Turkish), in ms per memory, compared with the bare
``str.split`` + ``lower`` a keyword index would do without it. Words are drawn fresh for every
memory from a large vocabulary so the analyzer's word cache is not flattering the result.

Part 2, search: a SQLite database of N synthetic memories (English-like, Turkish-like and
Chinese text with Zipf-distributed words, as in real notes a few words are everywhere and most
are rare) is built once in the data directory (reused on the next run), then ``service.search``
runs each query through the whole read path: analysis, FTS5 candidates, memory ranking,
usage counting. Reported: p50/p95/p99 latency in ms.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

SYLLABLES = [
    "ka",
    "ri",
    "to",
    "na",
    "me",
    "su",
    "lo",
    "de",
    "pa",
    "vi",
    "ne",
    "ro",
    "sa",
    "li",
    "mu",
    "ta",
    "ze",
    "ko",
    "ba",
    "ni",
    "ga",
    "fe",
]
TURKISH_SUFFIXES = ["", "", "ler", "leri", "sı", "nın", "de", "den", "lerin", "leme", "ı"]
HAN = "数据库备份服务器用户配置部署测试环境日志监控告警发布版本接口客户发票会议工程师网络安全缓存队列模型训练"
REAL = [
    "deploy",
    "backup",
    "database",
    "server",
    "staging",
    "production",
    "user",
    "client",
    "invoice",
    "meeting",
    "release",
    "api",
    "token",
    "cache",
    "queue",
    "cluster",
    "dashboard",
    "alert",
    "log",
    "certificate",
    "password",
    "secret",
    "review",
    "incident",
    "migration",
    "schedule",
    "weekly",
    "monthly",
    "nightly",
    "config",
    "kubernetes",
    "postgres",
    "redis",
    "grafana",
    "sentry",
    "vault",
    "terraform",
]


def vocabulary(rng: random.Random, size: int) -> list[str]:
    words = list(REAL)
    while len(words) < size:
        words.append("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
    return words


def zipf_picker(rng: random.Random, words: list[str]):  # type: ignore[no-untyped-def]
    # Zipf-Mandelbrot: the head that stopword removal takes away is flattened (q = 30), so the
    # most frequent content word is in about one memory in ten, as in real notes.
    weights = [1 / (rank + 30) for rank in range(len(words))]
    cumulative = list(_accumulate(weights))

    def pick(k: int) -> list[str]:
        return rng.choices(words, cum_weights=cumulative, k=k)

    return pick


def _accumulate(values: list[float]) -> list[float]:
    total, out = 0.0, []
    for v in values:
        total += v
        out.append(total)
    return out


def make_memory(rng: random.Random, pick, chars: int = 200) -> str:  # type: ignore[no-untyped-def]
    kind = rng.random()
    if kind < 0.1:
        return "".join(rng.choice(HAN) for _ in range(chars // 3))
    words: list[str] = []
    while sum(len(w) + 1 for w in words) < chars:
        word = pick(1)[0]
        if kind < 0.25:
            word += rng.choice(TURKISH_SUFFIXES)
        words.append(word)
    text = " ".join(words)[:chars]
    return text[0].upper() + text[1:] + "."


def bench_analyzer(rng: random.Random, n: int) -> dict[str, float]:
    from memwarden.text.analyzer import Analyzer

    words = vocabulary(rng, 200_000)
    pick = zipf_picker(rng, words)
    texts = [make_memory(rng, pick) for _ in range(n)]
    analyzer = Analyzer(("english", "turkish"))
    start = time.process_time()
    for text in texts:
        analyzer.index_text(text)
        analyzer.index_text("Title of a memory")
        analyzer.index_text("infra ops")
    analyzed = (time.process_time() - start) * 1000 / n
    start = time.process_time()
    for text in texts:
        " ".join(text.lower().split())
    bare = (time.process_time() - start) * 1000 / n
    return {
        "memories": n,
        "cpu_ms_per_memory": round(analyzed, 4),
        "bare_split_cpu_ms_per_memory": round(bare, 4),
        "overhead_cpu_ms_per_memory": round(analyzed - bare, 4),
    }


def build_database(path: Path, n: int, rng: random.Random) -> None:

    from memwarden.app import build_service
    from memwarden.config import load_settings
    from memwarden.intake import content_hash
    from memwarden.models import Memory, utcnow

    service = build_service(
        load_settings(db=str(path), log_file=str(path.parent / "log"), audit=False, embedder="none")
    )
    store = service.store
    words = vocabulary(rng, 50_000)
    pick = zipf_picker(rng, words)
    now = utcnow()
    template = Memory(
        id="",
        tenant="default",
        project="bench",
        kind="fact",
        title="",
        tags=(),
        content="",
        content_hash="",
        pinned=False,
        created_at=now,
        updated_at=now,
    )
    from ulid import ULID

    batch = []
    for i in range(n):
        content = make_memory(rng, pick) + f" #{i}"
        memory = template._replace(
            id=str(ULID()),
            content=content,
            content_hash=content_hash(content),
            project=f"p{i % 20}",
        )
        batch.append((memory, service.intake.index_text(memory)))
        if len(batch) == 5_000 or i == n - 1:
            store.import_memories(batch)  # type: ignore[attr-defined]
            batch = []
            print(f"  built {i + 1} memories", file=sys.stderr)
    service.close()


def bench_search(path: Path, queries: int, rng: random.Random) -> dict[str, float]:
    from memwarden.app import build_service
    from memwarden.config import load_settings

    service = build_service(
        load_settings(
            db=str(path),
            log_file=str(path.parent / "log"),
            audit=False,
            embedder="none",
            sqlite_synchronous="NORMAL",
        )
    )
    conn = service.store.connection()  # type: ignore[attr-defined]
    samples = [
        r[0] for r in conn.execute("SELECT content FROM memories ORDER BY random() LIMIT ?", (queries,))
    ]
    texts = []
    for content in samples:
        words = content.replace(".", " ").split()[:-1]  # the last word is the "#n" marker
        if len(words) < 2:  # Chinese: a few characters from the run
            run = words[0] if words else content
            start = rng.randrange(max(1, len(run) - 6))
            texts.append(run[start : start + rng.randint(4, 6)])
        else:
            texts.append(" ".join(rng.sample(words, min(len(words), rng.randint(2, 5)))))
    # A few long queries, as the prompt hook sends (a whole user message).
    texts += [" ".join(s.split()[:-1]) for s in samples[: max(1, queries // 20)]]
    for text in texts[:20]:  # warm the page cache and the analyzer
        service.searcher.search(text, limit=10)
    timings, cpu = [], []
    for text in texts:
        start, start_cpu = time.perf_counter(), time.process_time()
        service.searcher.search(text, limit=10)
        cpu.append((time.process_time() - start_cpu) * 1000)
        timings.append((time.perf_counter() - start) * 1000)
    count = conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0]
    service.close()
    timings.sort()
    cpu.sort()

    def pct(values: list[float], q: float) -> float:
        return round(values[min(len(values) - 1, int(len(values) * q))], 3)

    return {
        "memories": count,
        "queries": len(timings),
        "p50_ms": round(statistics.median(timings), 3),
        "p95_ms": pct(timings, 0.95),
        "p99_ms": pct(timings, 0.99),
        "cpu_p50_ms": round(statistics.median(cpu), 3),
        "cpu_p95_ms": pct(cpu, 0.95),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="keyword search speed and analyzer overhead")
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument(
        "--data",
        default=str(Path(tempfile.gettempdir()) / "memwarden-bench"),
        help="where the benchmark database is kept between runs",
    )
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args(argv)
    rng = random.Random(42)
    analyzer = bench_analyzer(rng, 5_000)
    data = Path(args.data)
    data.mkdir(parents=True, exist_ok=True)
    path = data / f"search-{args.memories}.db"
    if not path.exists():
        print(f"building {path} ({args.memories} memories, once) ...", file=sys.stderr)
        partial = path.with_suffix(".partial")
        for leftover in data.glob(partial.name + "*"):
            leftover.unlink()
        build_database(partial, args.memories, random.Random(7))
        partial.rename(path)
    search = bench_search(path, args.queries, rng)
    print("analyzer (200-character memories, english+turkish), CPU time")
    print(
        f"  analyzed {analyzer['cpu_ms_per_memory']:.4f} ms/memory, bare split "
        f"{analyzer['bare_split_cpu_ms_per_memory']:.4f} ms/memory, overhead "
        f"{analyzer['overhead_cpu_ms_per_memory']:.4f} ms/memory (target <= 0.2)"
    )
    print(f"keyword search with ranking, {search['memories']} memories, {search['queries']} queries")
    print(
        f"  wall p50 {search['p50_ms']:.2f} ms   p95 {search['p95_ms']:.2f} ms   p99 {search['p99_ms']:.2f} ms"
        "   (target p50 <= 5)"
    )
    print(f"  CPU  p50 {search['cpu_p50_ms']:.2f} ms   p95 {search['cpu_p95_ms']:.2f} ms")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"  (load average {load:.1f} on {os.cpu_count()} cores while measuring: wall times include waiting)"
    )
    if args.json:
        Path(args.json).write_text(
            json.dumps({"bench": "search_speed", "analyzer": analyzer, "search": search}, indent=2) + "\n"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
