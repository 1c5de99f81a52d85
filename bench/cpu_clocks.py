"""CPU accounting of a bench that drives a server process: its CPU, the server's, everyone else's.

The load average alone cannot say whether a bench had the cores to itself (at its end it counts
the bench's own server and workers). ``Clocks`` reads, together, the wall clock, this process's
CPU, a server's CPU (a PostgreSQL postmaster and every backend and worker under it, from /proc)
and the whole machine's busy CPU; ``since`` gives a phase's share of each and what the rest of
the machine used meanwhile. Linux only for the /proc parts (None elsewhere).
"""

from __future__ import annotations

import os
import time
from typing import NamedTuple

from measure import load_average


def server_cpu_s(postmaster: int | None) -> float | None:
    """CPU seconds of a PostgreSQL server: the postmaster's own, its exited children's (the
    postmaster reaps every backend and worker) and its live children's. None off Linux."""
    if postmaster is None:
        return None
    ticks = os.sysconf("SC_CLK_TCK")

    def stat(pid: int | str) -> list[str]:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().rsplit(")", 1)[1].split()  # after the command name, which may hold spaces

    try:
        own = stat(postmaster)
    except OSError:
        return None
    total = sum(int(x) for x in own[11:15])  # utime, stime, cutime, cstime
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = stat(entry)
        except OSError:  # exited meanwhile: the postmaster's cutime/cstime has it at the next read
            continue
        if int(fields[1]) == postmaster:
            total += int(fields[11]) + int(fields[12])
    return total / ticks


def machine_busy_s() -> float | None:
    """CPU seconds every process on the machine has used since boot, all cores (Linux)."""
    try:
        with open("/proc/stat", encoding="ascii") as f:
            fields = [int(x) for x in f.readline().split()[1:9]]
    except OSError:
        return None
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


class Reading(NamedTuple):
    wall: float
    cpu: float
    server: float | None
    busy: float | None
    load: float | None


class Clocks:
    """Wall, this process's CPU, the server's CPU and the whole machine's busy CPU, read together.

    ``since`` gives a phase's share of each, and ``others_cpu_s``: what the rest of the machine
    used meanwhile (busy CPU less this process and the server; the writer phases also take off
    their worker processes). That, not the load average alone, says whether the bench had the
    cores to itself: the load average at the end counts the bench's own writers and server.
    """

    def __init__(self, postmaster: int | None) -> None:
        self.postmaster = postmaster

    def read(self) -> Reading:
        load = load_average()
        return Reading(
            time.perf_counter(),
            time.process_time(),
            server_cpu_s(self.postmaster),
            machine_busy_s(),
            None if load is None else round(load[0], 2),
        )

    def since(self, start: Reading) -> dict[str, float | None]:
        end = self.read()

        def delta(a: float | None, b: float | None) -> float | None:
            return None if a is None or b is None else round(b - a, 2)

        server = delta(start.server, end.server)
        busy = delta(start.busy, end.busy)
        return {
            "wall_s": round(end.wall - start.wall, 2),
            "cpu_s": round(end.cpu - start.cpu, 2),
            "server_cpu_s": server,
            "others_cpu_s": None if busy is None else round(busy - (end.cpu - start.cpu) - (server or 0), 2),
            "load_1min_at_start": start.load,
        }
