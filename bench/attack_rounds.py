"""Screening on the rounds of memory-server attacks written by the team, round by round.

    python bench/attack_rounds.py [--no-head] [--json FILE]

Rounds 10 to 38 (``tests/data/attack_rounds.json``) were written by team members who had not read
the screening code: attacks planted in memories, ordinary look-alike notes and standing preferences
in the same words (rounds 14 on), in up to thirty languages. Rounds marked ``read`` were read while
phrase rules were written and are what the memory-attack head (``screening.semantic``) is fitted
on; rounds marked blind never were, and measure how screening carries to attacks it was not built
from. The table gives how many of each list are flagged at write time (phrase rules and n-gram
model, ``screen_text``) and, unless ``--no-head``, once the memory's vector is stored too (the
semantic heads over the default embedder's vector of the memory as the background embedder would
embed it), per round and summed over the read and the blind rounds; then, for the blind rounds,
per language: attacks caught and ordinary notes and preferences flagged (with the heads unless
``--no-head``).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from memwarden.screening import screen_text  # noqa: E402

ROUNDS = ROOT / "tests" / "data" / "attack_rounds.json"


def rounds() -> dict[str, dict[str, list[str]]]:
    """Each round's attacks ("H"), look-alike notes ("B") and standing preferences ("P"), and the
    language of each ("H_LANG" …; "und" where the round did not say)."""
    return {
        f"{name} ({'read' if parts['read'] else 'blind'})": {
            key: parts[key] for key in ("H", "B", "P", "H_LANG", "B_LANG", "P_LANG")
        }
        for name, parts in json.loads(ROUNDS.read_text("utf-8")).items()
    }


@functools.cache
def _embedding() -> tuple[Any, Any]:
    """The default model, loaded once, and the built-in redactor."""
    from memwarden.embed.builtin import open_builtin
    from memwarden.intake import builtin_redactor

    embedder = open_builtin()
    embedder.load()
    return embedder, builtin_redactor()


def head_flags(texts: list[str]) -> list[bool]:
    """Which texts the semantic heads flag once embedded by the default model, as stored."""
    import numpy as np

    from memwarden.govern.markers import unmarked
    from memwarden.screening.semantic import heads_for, semantic_flagged
    from memwarden.validation import normalize_content

    embedder, redactor = _embedding()
    # The content as the store keeps it (normalised, redacted) and as the background embedder
    # embeds it (``vector_path.embedding_text``: each redaction marker one neutral word).
    stored = [unmarked(redactor.redact(normalize_content(t)).text) for t in texts]
    vectors = np.asarray(embedder.embed_documents(stored), dtype=np.float32)
    return semantic_flagged(heads_for(embedder.identity), vectors, stored)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--no-head", action="store_true", help="write-time screening only")
    parser.add_argument("--json", type=Path, help="write the table here")
    args = parser.parse_args()
    started, cpu = time.perf_counter(), time.process_time()
    table: dict[str, dict[str, object]] = {}
    totals: dict[str, dict[str, dict[str, int]]] = {}
    # The blind rounds per language: attacks caught, and notes and preferences flagged.
    by_language: dict[str, dict[str, int]] = {}
    for name, parts in rounds().items():
        row: dict[str, object] = {}
        total = totals.setdefault("all blind" if name.endswith("(blind)") else "all read", {})
        for key, label in (("H", "attacks"), ("B", "notes"), ("P", "preferences")):
            texts = parts[key]
            if not texts:
                continue
            written = [bool(screen_text(t)) for t in texts]
            both = (
                written if args.no_head else [w or h for w, h in zip(written, head_flags(texts), strict=True)]
            )
            cell = {"rows": len(texts), "write": sum(written)}
            if not args.no_head:
                cell["with_head"] = sum(both)
            row[label] = cell
            if name.endswith("(blind)"):
                side = "attacks" if key == "H" else "kept"
                for lang, flagged in zip(parts[f"{key}_LANG"], both, strict=True):
                    counts = by_language.setdefault(
                        lang, dict.fromkeys(("attacks", "caught", "kept", "flagged"), 0)
                    )
                    counts[side] += 1
                    counts["caught" if key == "H" else "flagged"] += flagged
            summed = total.setdefault(label, dict.fromkeys(cell, 0))
            for field, value in cell.items():
                summed[field] += value
        table[name] = row
    table.update(totals)
    print(f"{'round':16} {'set':12} {'rows':>5} {'write':>6} {'+head':>6}")
    for name, row in table.items():
        for label, cell in row.items():
            counts = dict(cell)  # type: ignore[call-overload]
            head = counts.get("with_head", "-")
            print(f"{name:16} {label:12} {counts['rows']:5} {counts['write']:6} {head!s:>6}")
    print(f"\n{'blind, language':16} {'attacks':>8} {'caught':>7} {'notes+prefs':>12} {'flagged':>8}")
    for lang, counts in sorted(by_language.items(), key=lambda item: (-item[1]["attacks"], item[0])):
        print(
            f"{lang:16} {counts['attacks']:8} {counts['caught']:7} {counts['kept']:12} {counts['flagged']:8}"
        )
    load = os.getloadavg()[0]
    print(
        f"\n{time.perf_counter() - started:.1f} s wall, {time.process_time() - cpu:.1f} s CPU, load {load:.2f}"
    )
    if args.json:
        args.json.write_text(
            json.dumps({"rounds": table, "blind_by_language": by_language, "load": load}, indent=1) + "\n"
        )


if __name__ == "__main__":
    main()
