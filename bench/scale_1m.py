"""Search, start-up, memory and backup of a server on a large database (1M memories by default).

    nice .venv/bin/python bench/scale_build.py --memories 1000000 --out /work/wt/scale-data/1m.db  # once
    nice .venv/bin/python bench/scale_1m.py --db /work/wt/scale-data/1m.db [--searches 200] [--json FILE]

The database comes from bench/scale_build.py (synthetic notes, vectors are real builtin-model
embeddings of 2,000 texts reused with noise; said so there). Steps, each timed with the CPU
time beside the wall time and the machine's load average:

1. prepare (once per database): the vector index of the builtin model's space is read, its HNSW
   graph built and the snapshot written beside the database, as a server's background does on
   its first start; later runs find the snapshot and skip this.
2. start ``memwarden serve`` (stdio, builtin model) and time the first MCP answer (the
   handshake), the first search and the first answer by meaning (a search that is not
   degraded); ``--no-start-backup`` serves without the start-up backup (otherwise it runs
   beside the searches);
3. searches through MCP: unscoped, confined to the 1,000-memory project ``small``, confined to
   the big project, and right after a delete; p50/p95 and the degraded count (target p50 <= 50
   ms, p95 <= 120 ms, 0 degraded); the server's resident memory after them (target <= 1.5 GB);
4. keyword-only search in process (target p50 <= 10 ms) and a verified backup (time).

The bench fails (exit 1) when the database does not hold the number of memories asked for.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from embed_corpus import QUERIES

SMALL = "small"


def load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def cpu_of(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int, field: str = "VmRSS") -> float:
    """Resident memory in MB; ``RssAnon`` is the process's own, ``RssFile`` the pages of mapped
    files (the vector snapshot), which the kernel may drop and read again."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def server_pid() -> int:
    """The ``memwarden serve`` child of this process."""
    me = os.getpid()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                cmd = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == me and b"serve" in cmd:
                return int(entry.name)
    raise RuntimeError("memwarden serve is not running")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def prepare(db: Path, model: str = "") -> dict[str, Any]:
    from memwarden.embed.builtin import open_builtin
    from memwarden.store.sqlite import SQLiteStore

    embedder = open_builtin(model)
    space = embedder.identity
    started, cpu = time.perf_counter(), time.process_time()
    store = SQLiteStore(db)
    store.warm_vectors(space)
    store.maintain_vectors(space)
    state = store._vector_index(space)._state
    store.close()
    return {
        "prepare_s": round(time.perf_counter() - started, 1),
        "prepare_cpu_s": round(time.process_time() - cpu, 1),
        "from_snapshot": bool(state is not None and state.snapshot is not None),
    }


async def serve_and_search(
    db: Path, searches: int, start_backup: bool = True, model: str = ""
) -> dict[str, Any]:
    from mcp import Client, StdioServerParameters

    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMWARDEN_")}
    env.update(
        MEMWARDEN_DB=str(db),
        MEMWARDEN_EMBEDDER="builtin",
        MEMWARDEN_LOG_FILE=str(db.with_suffix(".serve.log")),
        MEMWARDEN_BACKUP_DIR=str(db.parent / "backups"),
        MEMWARDEN_TOOLS="all",
        MEMWARDEN_DAEMON="off",
    )
    if not start_backup:
        env["MEMWARDEN_BACKUP_KEEP"] = "0"
    if model:
        env["MEMWARDEN_EMBED_MODEL"] = model
    params = StdioServerParameters(command=sys.executable, args=["-m", "memwarden", "serve"], env=env)
    report: dict[str, Any] = {}
    started = time.perf_counter()
    async with Client(params) as client:
        # The MCP handshake is the server's first answer; the first search may wait up to
        # MEMWARDEN_VECTOR_WARMUP_WAIT_MS for the model on purpose, so it is timed apart.
        report["first_mcp_answer_s"] = round(time.perf_counter() - started, 2)
        pid = server_pid()
        first = await client.call_tool("memory_search", {"query": QUERIES[0], "limit": 10})
        report["first_answer_s"] = round(time.perf_counter() - started, 2)
        report["first_answer_degraded"] = first.structured_content["degrade_reason"]
        report["first_answer_wait_ms"] = first.structured_content.get("vector_wait_ms")
        while True:
            found = await client.call_tool("memory_search", {"query": QUERIES[1], "limit": 10})
            if not found.structured_content["degraded"] or time.perf_counter() - started > 900:
                break
        report["first_meaning_s"] = round(time.perf_counter() - started, 2)
        report["rss_after_start_mb"] = round(rss_mb(pid), 1)
        kinds = {"unscoped": None, "small project": SMALL, "big project": "bench"}
        times: dict[str, list[float]] = {k: [] for k in [*kinds, "after a delete"]}
        degraded: dict[str, int] = dict.fromkeys(times, 0)
        cpu_before = cpu_of(pid)
        for i in range(searches):
            kind = list(times)[i % len(times)]
            query = (
                f"{QUERIES[i % len(QUERIES)]} {['', 'today', 'again', 'now'][i // len(QUERIES) % 4]}".strip()
            )
            args: dict[str, Any] = {"query": query, "limit": 10}
            if kind == "after a delete":
                hits = (
                    await client.call_tool("memory_search", {"query": query, "limit": 1})
                ).structured_content
                if hits["hits"]:
                    await client.call_tool("memory_delete", {"id": hits["hits"][0]["id"]})
            elif kinds[kind] is not None:
                args["project"] = kinds[kind]
            t = time.perf_counter()
            result = (await client.call_tool("memory_search", args)).structured_content
            times[kind].append((time.perf_counter() - t) * 1000)
            degraded[kind] += bool(result["degraded"])
        every = [x for values in times.values() for x in values]
        report["server_cpu_s_for_searches"] = round(cpu_of(pid) - cpu_before, 1)
        report["searches"] = {
            k: {
                "n": len(v),
                "p50_ms": round(statistics.median(v), 1),
                "p95_ms": round(percentile(v, 0.95), 1),
                "degraded": degraded[k],
            }
            for k, v in times.items()
        }
        report["all"] = {
            "n": len(every),
            "p50_ms": round(statistics.median(every), 1),
            "p95_ms": round(percentile(every, 0.95), 1),
            "degraded": sum(degraded.values()),
        }
        report["rss_after_searches_mb"] = round(rss_mb(pid), 1)
        report["rss_anon_after_searches_mb"] = round(rss_mb(pid, "RssAnon"), 1)
        report["rss_file_after_searches_mb"] = round(rss_mb(pid, "RssFile"), 1)
    return report


def keyword_and_backup(db: Path) -> dict[str, Any]:
    from memwarden.app import build_backups, build_service
    from memwarden.config import load_settings

    settings = load_settings(
        db=str(db),
        embedder="none",
        log_file=str(db.with_suffix(".bench.log")),
        backup_dir=str(db.parent / "backups"),
        audit=False,
    )
    service = build_service(settings)
    times, cpu = [], []
    for i in range(100):
        t, c = time.perf_counter(), time.process_time()
        service.searcher.search(QUERIES[i % len(QUERIES)], limit=10, vector=False)
        times.append((time.perf_counter() - t) * 1000)
        cpu.append((time.process_time() - c) * 1000)
    service.close()
    backups = build_backups(settings)
    assert backups is not None
    t, c = time.perf_counter(), time.process_time()
    record = backups.backup(reason="manual")
    out = {
        "keyword_p50_ms": round(statistics.median(times), 2),
        "keyword_p95_ms": round(percentile(times, 0.95), 2),
        "keyword_cpu_p50_ms": round(statistics.median(cpu), 2),
        "backup_s": round(time.perf_counter() - t, 1),
        "backup_cpu_s": round(time.process_time() - c, 1),
        "backup_verified": record.verified,
        "backup_bytes": record.bytes,
    }
    Path(record.path).unlink(missing_ok=True)
    Path(record.path + ".json").unlink(missing_ok=True)
    return out


def main(argv: list[str] | None = None) -> int:
    import anyio

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True)
    parser.add_argument("--memories", type=int, default=1_000_000, help="how many the database must hold")
    parser.add_argument("--searches", type=int, default=200)
    parser.add_argument("--skip-backup", action="store_true", help="no timed backup at the end")
    parser.add_argument(
        "--no-start-backup",
        action="store_true",
        help="serve with MEMWARDEN_BACKUP_KEEP=0 (no start-up backup running beside the searches)",
    )
    parser.add_argument("--model", default="", help="builtin model the server runs (empty: the default)")
    parser.add_argument("--json", dest="json_file")
    args = parser.parse_args(argv)
    db = Path(args.db)
    with sqlite3.connect(db) as conn:
        # Every run deletes up to 50 memories ("after a delete" searches): the build is checked
        # on every row it wrote, and the live count is reported beside it.
        stored = conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0]
        live = conn.execute("SELECT COUNT(*) FROM memories WHERE deleted_at IS NULL").fetchone()[0]
    report: dict[str, Any] = {
        "db": str(db),
        "stored": stored,
        "live": live,
        "asked": args.memories,
        "load_start": load(),
    }
    print(
        f"database {db}: {stored} memories stored, {live} live (asked {args.memories}); load {report['load_start']}",
        flush=True,
    )
    if stored != args.memories:
        print(f"FAILED: the database holds {stored} memories, not {args.memories}", file=sys.stderr)
        return 1
    report["prepare"] = prepare(db, args.model)
    print(f"prepare: {report['prepare']}; load {load()}", flush=True)
    report["start_backup"] = not args.no_start_backup
    report["serve"] = anyio.run(serve_and_search, db, args.searches, not args.no_start_backup, args.model)
    if not args.skip_backup:
        report["keyword_backup"] = keyword_and_backup(db)
    report["load_end"] = load()
    serve = report["serve"]
    print(
        f"first MCP answer (handshake) {serve['first_mcp_answer_s']} s; first search answered {serve['first_answer_s']} s "
        f"({serve['first_answer_degraded']}, waited {serve['first_answer_wait_ms']} ms for the model); first answer by meaning "
        f"{serve['first_meaning_s']} s; server RSS {serve['rss_after_start_mb']} MB after start, "
        f"{serve['rss_after_searches_mb']} MB after searches ({serve['rss_anon_after_searches_mb']} MB own, "
        f"{serve['rss_file_after_searches_mb']} MB mapped files); server CPU {serve['server_cpu_s_for_searches']} s "
        f"for {serve['all']['n']} searches"
    )
    print(f"{'searches (MCP, hybrid)':24} {'n':>4} {'p50 ms':>8} {'p95 ms':>8} {'degraded':>9}")
    for name, row in [*serve["searches"].items(), ("all", serve["all"])]:
        print(f"{name:24} {row['n']:>4} {row['p50_ms']:>8} {row['p95_ms']:>8} {row['degraded']:>9}")
    if "keyword_backup" in report:
        kb = report["keyword_backup"]
        print(
            f"keyword search in process: p50 {kb['keyword_p50_ms']} ms (CPU {kb['keyword_cpu_p50_ms']} ms), p95 "
            f"{kb['keyword_p95_ms']} ms; verified backup {kb['backup_s']} s wall ({kb['backup_cpu_s']} s CPU), "
            f"{kb['backup_bytes'] / 1e9:.2f} GB"
        )
    print(f"machine load: {report['load_start']} at start, {report['load_end']} at the end (2 cores, shared)")
    if args.json_file:
        Path(args.json_file).write_text(json.dumps(report, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
