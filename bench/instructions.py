"""Instructions a cold process executes, counted by valgrind: a measure the machine's load leaves alone.

Wall-time ratios of a cold command against a bare query are what the targets are written in,
but on a shared 2-core machine they move with everyone else's work: the same code measured
3.0x and 3.5x an hour apart. The number of instructions a process executes does not move with
load (it varies by well under 1 % between runs: hash seeds, addresses), so it tells whether a
change made a cold command cheaper when the wall clock cannot. It does not count waiting: disk
syncs, page faults and scheduling are outside it, which is why it complements the wall ratio
and does not replace it.

    from instructions import instructions
    count = instructions([python, "-c", "pass"], env)   # None without valgrind
"""

from __future__ import annotations

import re
import shutil
import subprocess

# cachegrind's summary line: "==1234== I   refs:      66,172,205"
_REFS = re.compile(r"I\s+refs:\s+([\d,]+)")


def valgrind_found() -> bool:
    return shutil.which("valgrind") is not None


def instructions(argv: list[str], env: dict[str, str], stdin: str = "") -> int | None:
    """Instructions executed by one run of ``argv`` (and the processes it replaces itself with),
    or None when valgrind is missing. The command must succeed: a failing run counts nothing
    worth comparing."""
    if not valgrind_found():
        return None
    done = subprocess.run(
        [
            "valgrind",
            "--tool=cachegrind",
            "--cache-sim=no",
            "--cachegrind-out-file=/dev/null",
            *argv,
        ],
        input=stdin,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    found = _REFS.search(done.stderr)
    if found is None:
        raise RuntimeError(f"valgrind printed no instruction count for {argv[:3]}: {done.stderr[-300:]}")
    return int(found.group(1).replace(",", ""))


def instruction_rows(
    commands: list[tuple[str, list[str], str]], bare: list[str], env: dict[str, str]
) -> list[dict[str, object]]:
    """One row per (name, argv, stdin): its instructions and their ratio to the bare query's."""
    floor = instructions(bare, env)
    if floor is None:
        raise SystemExit("--instructions needs valgrind (apt-get install valgrind)")
    rows: list[dict[str, object]] = [{"metric": "bare python + sqlite3 FTS5 query", "instructions": floor}]
    for name, argv, stdin in commands:
        count = instructions(argv, env, stdin)
        assert count is not None
        rows.append({"metric": name, "instructions": count, "ratio_to_bare": round(count / floor, 2)})
    return rows


def print_instruction_rows(rows: list[dict[str, object]]) -> None:
    print(f"{'instructions of one cold process (valgrind)':48} {'millions':>8} {'x bare':>8}")
    for row in rows:
        ratio = row.get("ratio_to_bare")
        count = row["instructions"]
        assert isinstance(count, int)
        print(f"{row['metric']:48} {count / 1e6:8.1f} {'' if ratio is None else f'{ratio:8.2f}':>8}")
