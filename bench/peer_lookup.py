"""Who holds the other end of a loopback connection: sock_diag against ``/proc/net/tcp``.

    python bench/peer_lookup.py [--runs 200]

``memwarden.peer`` asks the kernel for the one socket through sock_diag (netlink) and reads
``/proc/net/tcp`` and ``/proc/net/tcp6`` only where that is unavailable. This times both ways
(CPU time of this process, median) on a real connection to a listener on 127.0.0.1, with the
machine's load (measure.py). Linux only.
"""

from __future__ import annotations

import argparse
import socket
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measure import Machine

from memwarden import peer


def cpu_us(call: Callable[[], object], runs: int) -> float:
    spent = []
    for _ in range(runs):
        start = time.process_time_ns()
        call()
        spent.append((time.process_time_ns() - start) / 1000)
    return statistics.median(spent)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    machine = Machine()
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        with socket.create_connection(listener.getsockname()) as _client:
            accepted, _ = listener.accept()
            with accepted:
                own, other = accepted.getsockname(), accepted.getpeername()
                addresses = peer._addresses(own, other)
                if addresses is None:
                    raise SystemExit("not a loopback TCP connection")
                family, packed_own, packed_other = addresses
                diag = cpu_us(lambda: peer.connection_owner(own, other), args.runs)
                proc = cpu_us(
                    lambda: peer._owner_by_proc(family, packed_own, own[1], packed_other, other[1], False),
                    max(1, args.runs // 4),
                )
    with open("/proc/net/tcp", encoding="ascii") as v4, open("/proc/net/tcp6", encoding="ascii") as v6:
        sockets = len(v4.readlines()) + len(v6.readlines()) - 2
    print(f"connection_owner (sock_diag first): {diag:9.1f} us CPU p50")
    print(f"/proc/net/tcp and tcp6 read:        {proc:9.1f} us CPU p50 ({sockets} sockets listed)")
    print(machine.finish().line())


if __name__ == "__main__":
    main()
