"""Screening on the rounds of memory-server attacks written by the team, round by round.

    python bench/attack_rounds.py [--no-head] [--json FILE]

Rounds 19 to 24 (``tests/data/attack_rounds.json``) were written by team members who had not read
the screening code; those marked blind were never read while rules were written, and measure how
screening carries to attacks it was not built from. Rounds 13 to 18 (and 19-20 again, in
``tests/screening/memory_attack_rounds``) are what ``screening.against_user`` was written from,
listed for regression only. Each round has attacks, ordinary look-alike notes and standing
preferences (rounds 19-24); the table
gives how many of each are flagged at write time (phrase rules and n-gram model, ``screen_text``)
and, unless ``--no-head``, by the semantic head too over the default embedder's vectors (the
memory as the background embedder would embed it).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from memwarden.screening import screen_text  # noqa: E402

ROUNDS = ROOT / "tests" / "data" / "attack_rounds.json"


def rounds() -> dict[str, dict[str, list[str]]]:
    """Each round's attacks ("H"), look-alike notes ("B") and standing preferences ("P")."""
    from tests.screening.memory_attack_rounds import ATTACKS, NOTES

    found: dict[str, dict[str, list[str]]] = {"13-20 (read)": {"H": list(ATTACKS), "B": list(NOTES), "P": []}}
    for name, parts in json.loads(ROUNDS.read_text("utf-8")).items():
        found[f"{name} ({'read' if parts['read'] else 'blind'})"] = {
            key: parts[key] for key in ("H", "B", "P")
        }
    return found


def head_flags(texts: list[str]) -> list[bool]:
    """Which texts the semantic head flags once embedded by the default model."""
    import numpy as np

    from memwarden.embed.builtin import open_builtin
    from memwarden.screening.semantic import semantic_flagged, semantic_head

    embedder = open_builtin()
    embedder.load()
    vectors = np.asarray(embedder.embed_documents(texts), dtype=np.float32)
    return semantic_flagged(semantic_head(), vectors, texts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--no-head", action="store_true", help="write-time screening only")
    parser.add_argument("--json", type=Path, help="write the table here")
    args = parser.parse_args()
    started, cpu = time.perf_counter(), time.process_time()
    table: dict[str, dict[str, object]] = {}
    for name, parts in rounds().items():
        row: dict[str, object] = {}
        for key, label in (("H", "attacks"), ("B", "notes"), ("P", "preferences")):
            texts = parts[key]
            if not texts:
                continue
            written = [bool(screen_text(t)) for t in texts]
            row[label] = {"rows": len(texts), "write": sum(written)}
            if not args.no_head:
                both = [w or h for w, h in zip(written, head_flags(texts), strict=True)]
                row[label]["with_head"] = sum(both)  # type: ignore[index]
        table[name] = row
    print(f"{'round':16} {'set':12} {'rows':>5} {'write':>6} {'+head':>6}")
    for name, row in table.items():
        for label, cell in row.items():
            counts = dict(cell)  # type: ignore[call-overload]
            head = counts.get("with_head", "-")
            print(f"{name:16} {label:12} {counts['rows']:5} {counts['write']:6} {head!s:>6}")
    load = os.getloadavg()[0]
    print(
        f"\n{time.perf_counter() - started:.1f} s wall, {time.process_time() - cpu:.1f} s CPU, load {load:.2f}"
    )
    if args.json:
        args.json.write_text(json.dumps({"rounds": table, "load": load}, indent=1) + "\n")


if __name__ == "__main__":
    main()
