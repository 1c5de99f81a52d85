"""Soak the shared daemon: many clients, the daemon killed every two minutes, a full disk, a backup.

    python bench/soak.py --minutes 30 [--json] [--embedder builtin|none]

For ``--minutes`` this runs, against one database and one user's daemon (``MEMWARDEN_DAEMON=auto``):

- 4 stdio MCP clients (the ``mcp`` SDK's stdio client on ``memwarden serve``, which relays to
  the daemon) with mixed ``memory_add`` / ``memory_update`` / ``memory_delete`` /
  ``memory_search`` calls;
- 2 HTTP clients on the daemon's HTTP server (the one ``memwarden ui`` opens: op ``dashboard``),
  MCP over Streamable HTTP at ``/mcp`` plus the hook route ``/hooks/recall``; when the daemon
  dies they ask the next one for its address;
- prompt hooks (``memwarden hook prompt``, each its own process) a few times a minute;
- the daemon killed with SIGKILL every ``--kill-every`` seconds (120);
- one disk-full episode: the database lives on a small tmpfs, filled for ``--disk-full-s``
  seconds half-way through (skipped, and said, where mounting needs a root this run lacks);
- ``memwarden backup`` every minute.

It then prints acknowledged writes lost (an add, update or delete a client got a success answer
for, missing from the database afterwards: must be 0), ``memwarden audit verify``, p50/p99 latency
per operation, errors by kind (each counted in the window it fell in: the disk-full episode,
the seconds after a kill, or elsewhere; those the run's own faults explain are expected, the rest
``unexpected``, whose total must be 0: ``soak_errors.py``), and the resident memory of the daemon
and the relays over time (growth after the first 5 minutes, of the relays, which live the whole
run, and of each daemon at the same age). The exit code is 1 when a write was lost, the audit
does not verify or an error was unexpected. The database and runtime folders are temporary.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import anyio
import httpx
from mcp import Client, StdioServerParameters
from soak_errors import DISK_GRACE_S, ErrorLog, error_kind, tool_error_kind

STDIO_CLIENTS = 4
HTTP_CLIENTS = 2
WORDS = [
    *("deploy", "release", "invoice", "client", "email", "phone", "staging", "database", "backup"),
    *("schedule", "meeting", "budget", "roadmap", "incident", "pager", "rotation", "vendor"),
    *("contract", "laptop", "password", "policy", "review", "travel"),
]


class Ledger:
    """What the clients were told succeeded, and how long each call took."""

    def __init__(self) -> None:
        self.added: dict[str, str] = {}  # id -> content acknowledged
        self.updated: dict[str, int] = {}  # id -> the version an acknowledged update gave
        self.deleted: set[str] = set()
        self.deleting: set[str] = set()  # every id a delete was sent for, answered or not
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.errors = ErrorLog()

    def own(self, rng: random.Random) -> str | None:
        live = [i for i in self.added if i not in self.deleted]
        return rng.choice(live) if live else None


def _text(rng: random.Random, n: int) -> str:
    return f"Soak note {n}: " + " ".join(rng.choice(WORDS) for _ in range(8))


async def _call(
    ledger: Ledger, client: Client, op: str, tool: str, args: dict[str, Any]
) -> dict[str, Any] | None:
    started = time.perf_counter()
    try:
        with anyio.fail_after(60):
            result = await client.call_tool(tool, args)
    except Exception as exc:  # noqa: BLE001 - every failure is counted by kind
        ledger.errors.add(f"{op}:{error_kind(exc)}")
        return None
    ledger.latency[op].append((time.perf_counter() - started) * 1000)
    if result.is_error:
        text = " ".join(getattr(c, "text", "") for c in result.content)
        ledger.errors.add(f"{op}:{tool_error_kind(text)}", about=args.get("id"))
        return None
    return result.structured_content or {}


async def _one_step(ledger: Ledger, client: Client, rng: random.Random, n: int, where: str) -> None:
    roll = rng.random()
    target = ledger.own(rng)
    if roll < 0.4 or target is None:
        content = _text(rng, n)
        answer = await _call(ledger, client, f"add/{where}", "memory_add", {"content": content})
        if answer is not None:
            ledger.added[str(answer["id"])] = content
    elif roll < 0.55:
        answer = await _call(
            ledger, client, f"update/{where}", "memory_update", {"id": target, "content": _text(rng, n)}
        )
        if answer is not None:
            version = (answer.get("memory") or {}).get("version")
            if isinstance(version, int):
                ledger.updated[target] = max(version, ledger.updated.get(target, 0))
    elif roll < 0.65:
        ledger.deleting.add(target)
        if await _call(ledger, client, f"delete/{where}", "memory_delete", {"id": target}) is not None:
            ledger.deleted.add(target)
    else:
        query = " ".join(rng.choice(WORDS) for _ in range(2))
        await _call(ledger, client, f"search/{where}", "memory_search", {"query": query})


async def stdio_client(ledger: Ledger, env: dict[str, str], until: float, seed: int) -> None:
    rng = random.Random(seed)
    server = StdioServerParameters(command=sys.executable, args=["-m", "memwarden", "serve"], env=env)
    n = 0
    while time.monotonic() < until:
        try:
            async with Client(server) as client:
                while time.monotonic() < until:
                    n += 1
                    await _one_step(ledger, client, rng, seed * 1_000_000 + n, "stdio")
        except Exception as exc:  # noqa: BLE001 - the session itself broke: counted, reopened
            ledger.errors.add(f"session/stdio:{error_kind(exc)}")
            await anyio.sleep(0.5)


def _daemon_call(env: dict[str, str], op: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    """One call to the user's daemon (started when needed), as a CLI client would make it."""
    code = (
        "import json, sys\n"
        "from memwarden.settings_reader import load_hot_settings\n"
        "from memwarden.daemon.attach import daemon_place\n"
        "from memwarden.daemon.launch import attach_or_start\n"
        "with attach_or_start(daemon_place(), load_hot_settings()) as c:\n"
        f"    print(json.dumps(c.call({op!r}, json.loads(sys.argv[1]), timeout=60)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, json.dumps(args or {})],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if done.returncode != 0:
        raise RuntimeError(
            done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "daemon call failed"
        )
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def _refusal(response: httpx.Response) -> str:
    """A hook route's refusal: its status and the ``reason`` its JSON body gives, if any."""
    try:
        reason = response.json().get("reason")
    except (ValueError, AttributeError):
        reason = None
    return f"{response.status_code} {reason}" if isinstance(reason, str) else str(response.status_code)


async def http_client(ledger: Ledger, env: dict[str, str], until: float, seed: int) -> None:
    rng = random.Random(seed)
    n = 0
    while time.monotonic() < until:
        try:
            url = (await anyio.to_thread.run_sync(_daemon_call, env, "dashboard"))["url"]
            async with Client(f"{url}/mcp") as client, httpx.AsyncClient(base_url=url, timeout=30) as web:
                while time.monotonic() < until:
                    n += 1
                    if rng.random() < 0.2:
                        started = time.perf_counter()
                        response = await web.post("/hooks/recall", json={"query": rng.choice(WORDS)})
                        if response.status_code == 200:
                            ledger.latency["hook_recall/http"].append((time.perf_counter() - started) * 1000)
                        else:
                            ledger.errors.add(f"hook_recall/http:{_refusal(response)}")
                        continue
                    await _one_step(ledger, client, rng, seed * 1_000_000 + n, "http")
        except Exception as exc:  # noqa: BLE001 - the daemon (and its HTTP server) died: reconnect
            ledger.errors.add(f"session/http:{error_kind(exc)}")
            await anyio.sleep(0.5)


async def hooks(ledger: Ledger, env: dict[str, str], until: float) -> None:
    body = json.dumps({"prompt": "when do we deploy the release", "cwd": "/tmp", "session_id": "soak"})
    while time.monotonic() < until:
        started = time.perf_counter()
        done = await anyio.run_process(
            [sys.executable, "-m", "memwarden", "hook", "prompt"], input=body.encode(), env=env, check=False
        )
        if done.returncode == 0:
            ledger.latency["hook_prompt/process"].append((time.perf_counter() - started) * 1000)
        else:
            ledger.errors.add(f"hook_prompt/process:exit{done.returncode}")
        await anyio.sleep(5)


def _rss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text(encoding="utf-8").splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _processes(runtime: str) -> tuple[int | None, list[int]]:
    """(the daemon's pid, the relays' pids) of this run, read from /proc."""
    daemon, relays = None, []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if f"XDG_RUNTIME_DIR={runtime}".encode() not in environ:
            continue
        if b"memwarden.daemon" in cmdline and b"--detach" not in cmdline:
            daemon = int(entry.name)
        elif b"serve" in cmdline and b"memwarden" in cmdline:
            relays.append(int(entry.name))
    return daemon, relays


async def killer(state: dict[str, Any], errors: ErrorLog, runtime: str, until: float, every: float) -> None:
    next_kill = time.monotonic() + every
    while time.monotonic() < until:
        await anyio.sleep(1)
        if time.monotonic() < next_kill:
            continue
        if errors.disk_full is not None and (
            errors.disk_full[1] is None or time.monotonic() < errors.disk_full[1] + DISK_GRACE_S
        ):
            continue  # one fault at a time: a kill waits for the disk-full episode to be over
        daemon, _ = _processes(runtime)
        if daemon is None:
            continue  # none started yet since the last kill (a slow machine): kill it when it is
        next_kill = time.monotonic() + every
        errors.kills.append(time.monotonic())
        os.kill(daemon, signal.SIGKILL)
        state["kills"] += 1


async def sampler(state: dict[str, Any], runtime: str, until: float, started: float) -> None:
    births: dict[int, float] = {}
    while time.monotonic() < until:
        daemon, relays = _processes(runtime)
        now = time.monotonic()
        if daemon is not None:
            births.setdefault(daemon, now)
        state["rss"].append(
            {
                "t_s": round(now - started, 1),
                "daemon_kb": _rss_kb(daemon) if daemon else 0,
                "daemon_age_s": round(now - births[daemon], 1) if daemon else None,
                "relays_kb": sum(_rss_kb(p) for p in relays),
                "relays": len(relays),
            }
        )
        await anyio.sleep(10)


async def backups(state: dict[str, Any], env: dict[str, str], until: float) -> None:
    while time.monotonic() < until:
        await anyio.sleep(60)
        done = await anyio.run_process(
            [sys.executable, "-m", "memwarden", "backup"], env={**env, "MEMWARDEN_DAEMON": "off"}, check=False
        )
        state["backups"].append(done.returncode)


async def disk_full(
    state: dict[str, Any], errors: ErrorLog, folder: Path | None, at: float, seconds: float
) -> None:
    if folder is None:
        return
    await anyio.sleep(max(0.0, at - time.monotonic()))
    began = time.monotonic()
    errors.disk_full = (began, None)
    filler = folder / "filler"
    # Unbuffered: a buffered file keeps the chunk the full disk refused and fails again, with
    # ENOSPC out of the with statement, when closing tries to flush it.
    with open(filler, "wb", buffering=0) as file:
        while True:
            try:
                file.write(b"\0" * 65536)
            except OSError:
                break
    state["disk_full"] = f"full for {seconds:.0f} s at t+{at - state['started']:.0f} s"
    await anyio.sleep(seconds)
    filler.unlink()
    errors.disk_full = (began, time.monotonic())


def mount_small_disk(folder: Path, size: str) -> str | None:
    """Mount a tmpfs on ``folder``; None, or why it could not be (needs root)."""
    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(folder)],
        capture_output=True,
        text=True,
    )
    return None if done.returncode == 0 else (done.stderr.strip() or "mount failed")


def lost_writes(ledger: Ledger, database: Path) -> list[str]:
    """Every acknowledged write the database does not show."""
    with sqlite3.connect(database) as db:
        rows = {r[0]: (r[1], r[2]) for r in db.execute("SELECT id, version, deleted_at FROM memories")}
    lost = []
    for memory_id in ledger.added:
        if memory_id not in rows:
            lost.append(f"add {memory_id}")
    for memory_id, version in ledger.updated.items():
        if memory_id in rows and rows[memory_id][0] < version:
            lost.append(f"update {memory_id} (v{version}, stored v{rows[memory_id][0]})")
    for memory_id in ledger.deleted:
        if memory_id in rows and rows[memory_id][1] is None:
            lost.append(f"delete {memory_id}")
    return lost


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def growth(samples: list[dict[str, Any]], after_s: float) -> dict[str, float | None]:
    """Resident-memory growth after ``after_s``: of the relays (alive the whole run), and of
    daemons at the same age (each kill starts a new one), in percent."""
    late = [s for s in samples if s["t_s"] >= after_s and s["relays_kb"]]
    relays = None
    if late:
        relays = round(
            100 * (max(s["relays_kb"] for s in late) - late[0]["relays_kb"]) / late[0]["relays_kb"], 1
        )
    aged = [
        s for s in samples if s["daemon_kb"] and s["daemon_age_s"] is not None and s["daemon_age_s"] >= 60
    ]
    daemon = None
    if aged and any(s["t_s"] >= after_s for s in aged):
        base = (
            statistics.median(s["daemon_kb"] for s in aged if s["t_s"] < after_s)
            if any(s["t_s"] < after_s for s in aged)
            else aged[0]["daemon_kb"]
        )
        daemon = round(100 * (max(s["daemon_kb"] for s in aged if s["t_s"] >= after_s) - base) / base, 1)
    return {"relays_pct": relays, "daemon_pct": daemon}


async def soak(args: argparse.Namespace, root: Path) -> dict[str, Any]:
    data = root / "data"
    reason = mount_small_disk(data, args.disk_size) if args.disk_full_s > 0 else "off (--disk-full-s 0)"
    runtime = tempfile.mkdtemp(prefix="mwsoak")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMWARDEN_")}
    env.update(
        MEMWARDEN_DB=str(data / "soak.db"),
        MEMWARDEN_LOG_FILE=str(root / "memwarden.log"),
        MEMWARDEN_BACKUP_DIR=str(root / "backups"),
        MEMWARDEN_BACKUP_KEEP="3",
        MEMWARDEN_EMBEDDER=args.embedder,
        MEMWARDEN_DAEMON="auto",
        MEMWARDEN_DAEMON_IDLE_S="60",
        # Six busy clients of one actor: the per-actor allowance is not what is measured here.
        MEMWARDEN_RATE_WRITES_PER_MINUTE="0",
        MEMWARDEN_RATE_SEARCHES_PER_MINUTE="0",
        XDG_RUNTIME_DIR=runtime,
    )
    ledger = Ledger()
    started = time.monotonic()
    until = started + args.minutes * 60
    state: dict[str, Any] = {"kills": 0, "rss": [], "backups": [], "started": started, "disk_full": reason}
    try:
        async with anyio.create_task_group() as group:
            for n in range(STDIO_CLIENTS):
                group.start_soon(stdio_client, ledger, env, until, n + 1)
            for n in range(HTTP_CLIENTS):
                group.start_soon(http_client, ledger, env, until, 100 + n)
            group.start_soon(hooks, ledger, env, until)
            group.start_soon(killer, state, ledger.errors, runtime, until, args.kill_every)
            group.start_soon(sampler, state, runtime, until, started)
            group.start_soon(backups, state, env, until)
            group.start_soon(
                disk_full,
                state,
                ledger.errors,
                None if reason else data,
                started + args.minutes * 30,
                args.disk_full_s,
            )
        stopped = subprocess.run(
            [sys.executable, "-m", "memwarden", "daemon", "stop"], env=env, capture_output=True, text=True
        )
        verify = subprocess.run(
            [sys.executable, "-m", "memwarden", "audit", "verify"],
            env={**env, "MEMWARDEN_DAEMON": "off"},
            capture_output=True,
            text=True,
        )
        lost = lost_writes(ledger, data / "soak.db")
    finally:
        if not reason:
            subprocess.run(["umount", "-l", str(data)], capture_output=True)
    return {
        "minutes": args.minutes,
        "embedder": args.embedder,
        "acknowledged": {
            "adds": len(ledger.added),
            "updates": len(ledger.updated),
            "deletes": len(ledger.deleted),
        },
        "lost": len(lost),
        "lost_examples": lost[:10],
        "audit_verify": {"exit": verify.returncode, "output": (verify.stdout + verify.stderr).strip()[:600]},
        "daemon_stop": stopped.stdout.strip(),
        "kills": state["kills"],
        "disk_full": state["disk_full"],
        "backups": {"runs": len(state["backups"]), "failed": sum(1 for c in state["backups"] if c != 0)},
        "latency_ms": {
            op: {"n": len(v), "p50": round(_percentile(v, 0.5), 1), "p99": round(_percentile(v, 0.99), 1)}
            for op, v in sorted(ledger.latency.items())
        },
        **ledger.errors.classify(ledger.deleting),
        "rss": state["rss"],
        "rss_growth_after_5_min": growth(state["rss"], 300),
        "load_average": list(os.getloadavg()),
    }


def print_report(report: dict[str, Any]) -> None:
    print(
        f"soak: {report['minutes']} min, embedder {report['embedder']}, daemon killed {report['kills']} times"
    )
    ack = report["acknowledged"]
    print(f"acknowledged writes: {ack['adds']} adds, {ack['updates']} updated ids, {ack['deletes']} deletes")
    print(f"acknowledged writes lost: {report['lost']} {report['lost_examples'] or ''}")
    verify = report["audit_verify"]
    print(
        f"audit verify: exit {verify['exit']}: {verify['output'].splitlines()[0] if verify['output'] else ''}"
    )
    print(f"disk-full episode: {report['disk_full']}")
    print(f"backups: {report['backups']['runs']} run, {report['backups']['failed']} failed")
    print(f"\n{'operation':<24} {'n':>6} {'p50 ms':>8} {'p99 ms':>8}")
    for op, row in report["latency_ms"].items():
        print(f"{op:<24} {row['n']:>6} {row['p50']:>8} {row['p99']:>8}")
    print_errors(report)
    print(f"\n{'t (s)':>7} {'daemon MB':>10} {'its age s':>10} {'relays MB':>10} {'relays':>7}")
    for sample in report["rss"][:: max(1, len(report["rss"]) // 20)]:
        print(
            f"{sample['t_s']:>7} {sample['daemon_kb'] / 1024:>10.1f} {sample['daemon_age_s'] or 0:>10} "
            f"{sample['relays_kb'] / 1024:>10.1f} {sample['relays']:>7}"
        )
    print(f"resident memory growth after the first 5 minutes: {report['rss_growth_after_5_min']}")
    print(f"load average at the end: {report['load_average']}")


def print_errors(report: dict[str, Any]) -> None:
    """Errors by kind, with where they happened (soak_errors.py says what each window is) and
    whether the run's own faults explain them."""
    windows = report["errors_by_window"]
    print("\nerrors by kind:" + ("" if report["errors"] else " none"))
    width = max((len(kind) for kind in report["errors"]), default=4)
    if report["errors"]:
        print(f"  {'kind':<{width}} {'disk full':>9} {'at kills':>8} {'elsewhere':>9}  expected?")
    for kind in report["errors"]:
        counts = [windows[w].get(kind, 0) for w in ("disk_full", "after_kill", "elsewhere")]
        verdict = "no" if kind in report["unexpected"] else "yes"
        if kind in report["unexpected"] and kind in report["expected"]:
            verdict = f"{report['unexpected'][kind]} not"
        print(f"  {kind:<{width}} {counts[0]:>9} {counts[1]:>8} {counts[2]:>9}  {verdict}")
    print(f"unexpected errors: {report['unexpected_total']} (must be 0) {report['unexpected'] or ''}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--kill-every", type=float, default=120.0, help="seconds between daemon kills")
    parser.add_argument("--disk-full-s", type=float, default=20.0, help="0: no disk-full episode")
    parser.add_argument("--disk-size", default="256m", help="size of the tmpfs the database lives on")
    parser.add_argument("--embedder", default="builtin", choices=["builtin", "none"])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="memwarden-soak-"))
    report = anyio.run(soak, args, root)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print_report(report)
    sound = report["lost"] == 0 and report["audit_verify"]["exit"] == 0 and report["unexpected_total"] == 0
    return 0 if sound else 1


if __name__ == "__main__":
    sys.exit(main())
