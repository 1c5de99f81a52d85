"""Adds through MCP with the builtin model on, and how fast the background embeds them.

    nice .venv/bin/python bench/add_speed.py [--adds 500] [--daemon] [--synchronous NORMAL]
        [--model NAME] [--embedder none] [--json FILE]

Starts ``memwarden serve`` (stdio, builtin model) on a fresh database, waits until the model is
warm (a search that is not degraded), then sends ``--adds`` distinct ``memory_add`` calls one
after the other, as an agent does, and reports their p50/p95 and adds per second (targets: p50
<= 5 ms, >= 150 adds/s). An add commits the memory and its keyword index and returns; the
embedding is done by the server's background embedder, whose rate is reported as the time
until ``memory_health`` shows no memory missing a vector. CPU time of the server process and
the machine's load average are printed beside the wall times; the server's CPU during the adds
is split into the background embedder's (its thread, ``memwarden-embed``, and the inference
threads it started) and the rest (event loop and request workers: the CPU an add costs), and
the bench's own CPU (the MCP client) is shown per add. ``--embedder none`` runs the same adds
without vectors: what the add path costs alone.

Without ``--daemon`` the server runs alone (``MEMWARDEN_DAEMON=off``); with it, ``serve`` attaches
to (starts) a daemon in a private runtime folder, as it does by default for users: the adds then
cross the relay process and the daemon, and the CPU reported is the daemon's plus the relay's.
``--synchronous NORMAL`` runs with ``MEMWARDEN_SQLITE_SYNCHRONOUS=NORMAL`` (no fsync per add:
survives kill -9, not power loss) to show what the default's fsync costs on this disk.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from embed_corpus import memory_texts
from scale_1m import cpu_of, percentile, server_pid


def daemon_pid(db: Path) -> int:
    """The daemon serving ``db`` (its environment names the database)."""
    wanted = f"MEMWARDEN_DB={db}".encode()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmd = (entry / "cmdline").read_bytes()
                environ = (entry / "environ").read_bytes()
            except OSError:
                continue
            if b"memwarden.daemon" in cmd and wanted in environ.split(b"\0"):
                return int(entry.name)
    raise RuntimeError("the memwarden daemon is not running")


def thread_cpu(pid: int) -> dict[str, tuple[str, float]]:
    """CPU seconds of each live thread of ``pid``: ``{tid: (name, seconds)}``."""
    out = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            stat = (task / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        out[task.name] = (name, (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"))
    return out


def run_queue_ms(pid: int) -> float:
    """Milliseconds the threads of ``pid`` have spent runnable but waiting for a CPU
    (``/proc/PID/task/*/schedstat``, second field): on a loaded machine, most of an add's wall
    time is this wait, not the code's CPU."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[1])
        except (OSError, IndexError, ValueError):
            continue
    return total / 1e6


def request_cpu(before: dict[str, tuple[str, float]], after: dict[str, tuple[str, float]]) -> float:
    """CPU seconds the live threads other than the background embedder (``memwarden-embed``)
    spent between two ``thread_cpu`` readings: the event loop and the request workers. The rest
    of the process's CPU is the embedder's, with the inference threads it started and joined."""
    return sum(
        cpu - before.get(tid, (name, 0.0))[1]
        for tid, (name, cpu) in after.items()
        if name != "memwarden-embed"
    )


async def run(
    adds: int,
    tmp: Path,
    daemon: bool = False,
    synchronous: str = "FULL",
    model: str = "",
    embedder: str = "builtin",
) -> dict[str, Any]:
    import anyio
    from mcp import Client, StdioServerParameters

    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMWARDEN_")}
    env.update(
        MEMWARDEN_DB=str(tmp / "m.db"),
        MEMWARDEN_EMBEDDER=embedder,
        MEMWARDEN_LOG_FILE=str(tmp / "log"),
        MEMWARDEN_BACKUP_DIR=str(tmp / "backups"),
        MEMWARDEN_TOOLS="all",
        MEMWARDEN_DAEMON="auto" if daemon else "off",
        MEMWARDEN_SQLITE_SYNCHRONOUS=synchronous,
        # Past the default allowance (600 a minute) the stream would be refused; a high one keeps
        # the limiter on the path, as users run it.
        MEMWARDEN_RATE_WRITES_PER_MINUTE=str(max(600, 2 * adds)),
    )
    if model:
        env["MEMWARDEN_EMBED_MODEL"] = model
    if daemon:
        (tmp / "run").mkdir(mode=0o700)
        env["XDG_RUNTIME_DIR"] = str(tmp / "run")
    params = StdioServerParameters(command=sys.executable, args=["-m", "memwarden", "serve"], env=env)
    texts = memory_texts(adds, seed=11)
    async with Client(params) as client:
        deadline = time.monotonic() + 300
        while (await client.call_tool("memory_search", {"query": "warm up"})).structured_content["degraded"]:
            if embedder == "none":
                break
            if time.monotonic() > deadline:
                raise RuntimeError("the model did not load within 300 s")
        pids = [server_pid()] + ([daemon_pid(tmp / "m.db")] if daemon else [])

        def cpu() -> float:
            return sum(cpu_of(pid) for pid in pids)

        # The process that embeds: the server, or with --daemon the daemon (not the relay).
        cpu0, embedding0, threads0 = cpu(), cpu_of(pids[-1]), thread_cpu(pids[-1])
        relay0 = cpu_of(pids[0]) if daemon else 0.0
        waited0 = sum(run_queue_ms(pid) for pid in pids)
        client0 = time.process_time()
        times = []
        started = time.perf_counter()
        for text in texts:
            t = time.perf_counter()
            result = await client.call_tool("memory_add", {"content": text, "project": "adds"})
            times.append((time.perf_counter() - t) * 1000)
            assert not result.is_error, result.content
        add_s = time.perf_counter() - started
        add_cpu = cpu() - cpu0
        add_embed_cpu = cpu_of(pids[-1]) - embedding0 - request_cpu(threads0, thread_cpu(pids[-1]))
        relay_cpu = cpu_of(pids[0]) - relay0 if daemon else 0.0
        waited = sum(run_queue_ms(pid) for pid in pids) - waited0
        client_cpu = time.process_time() - client0
        missing = 0
        while embedder != "none":
            health = (await client.call_tool("memory_health", {})).structured_content
            missing = health["checks"]["vectors"].get("missing", 0)
            if missing == 0 or time.perf_counter() - started > 900:
                break
            await anyio.sleep(0.05)  # each health call checks the whole database: poll gently
        embedded_s = time.perf_counter() - started
        total_cpu = cpu() - cpu0
    if daemon:
        os.kill(pids[1], signal.SIGTERM)  # the daemon this run started
    return {
        "adds": adds,
        "synchronous": synchronous,
        "embedder": embedder + (f" {model}" if model else ""),
        "path": "daemon (serve relays to it)" if daemon else "serve alone (MEMWARDEN_DAEMON=off)",
        "add_p50_ms": round(statistics.median(times), 2),
        "add_p95_ms": round(percentile(times, 0.95), 2),
        # The server's first add (right after the warm-up search): what a first write still pays.
        "first_add_ms": round(times[0], 1),
        "adds_per_s": round(adds / add_s, 1),
        "server_cpu_s_during_adds": round(add_cpu, 2),
        "embedder_cpu_s_during_adds": round(add_embed_cpu, 2),
        "server_cpu_ms_per_add_outside_embedder": round((add_cpu - add_embed_cpu) / adds * 1000, 2),
        "client_cpu_ms_per_add": round(client_cpu / adds * 1000, 2),
        # With --daemon: the relay's share of the server CPU (the rest is the daemon's).
        "relay_cpu_ms_per_add": round(relay_cpu / adds * 1000, 2),
        "server_run_queue_wait_ms_per_add": round(waited / adds, 2),
        "all_embedded_after_s": round(embedded_s, 1),
        "embedded_per_s": round(adds / embedded_s, 1),
        "all_embedded_after_last_add_s": round(embedded_s - add_s, 2),
        "server_cpu_s_total": round(total_cpu, 2),
        "missing_at_end": missing,
        "loadavg": [round(x, 2) for x in os.getloadavg()],
    }


def main(argv: list[str] | None = None) -> int:
    import anyio

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adds", type=int, default=500)
    parser.add_argument(
        "--daemon", action="store_true", help="through the daemon, as users run it by default"
    )
    parser.add_argument("--synchronous", choices=["FULL", "NORMAL"], default="FULL")
    parser.add_argument("--model", default="", help="builtin model (empty: the default)")
    parser.add_argument(
        "--embedder", choices=["builtin", "none"], default="builtin", help="none: adds without vectors"
    )
    parser.add_argument("--json", dest="json_file")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        report = anyio.run(
            run, args.adds, Path(tmp), args.daemon, args.synchronous, args.model, args.embedder
        )
    print(
        f"{report['adds']} memory_add calls through MCP, {report['path']}, synchronous={report['synchronous']}, embedder {report['embedder']}: p50 {report['add_p50_ms']} ms, "
        f"p95 {report['add_p95_ms']} ms, first {report['first_add_ms']} ms, {report['adds_per_s']} adds/s wall; server CPU "
        f"{report['server_cpu_s_during_adds']} s during the adds ({report['embedder_cpu_s_during_adds']} s of it "
        f"the background embedder's; {report['server_cpu_ms_per_add_outside_embedder']} ms per add outside it); "
        f"client CPU {report['client_cpu_ms_per_add']} ms per add"
        + (f"; the relay's CPU {report['relay_cpu_ms_per_add']} ms per add" if args.daemon else "")
        + f"; server threads waited {report['server_run_queue_wait_ms_per_add']} ms per add for a CPU"
    )
    print(
        f"all embedded by the background {report['all_embedded_after_s']} s after the first add "
        f"({report['all_embedded_after_last_add_s']} s after the last; {report['embedded_per_s']} memories/s wall, server CPU {report['server_cpu_s_total']} s in all); "
        f"load average {report['loadavg']} (2 shared cores)"
    )
    if args.json_file:
        Path(args.json_file).write_text(json.dumps(report, indent=2), encoding="utf-8")
    return 0 if report["missing_at_end"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
