"""How the CLI prints: JSON with --json (a stable contract), short readable lines otherwise."""

from __future__ import annotations

import json
import sys
from typing import Any


def emit_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, ensure_ascii=False, indent=2) + "\n")


def one_line(text: str, width: int = 100) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def print_memory(memory: dict[str, Any]) -> None:
    flags = " [pinned]" if memory.get("pinned") else ""
    if memory.get("injection_flags"):
        flags += f" [reads like instructions: {', '.join(memory['injection_flags'])}]"
    title = f"{memory['title']}: " if memory.get("title") else ""
    tags = f"  #{' #'.join(memory['tags'])}" if memory.get("tags") else ""
    print(f"{memory['id']}  {memory['project']}/{memory['kind']}{flags}{tags}")
    print(f"    {title}{one_line(memory['content'])}")
    if memory.get("context"):
        print(f"    context: {one_line(memory['context'])}")


def print_hits(result: dict[str, Any]) -> None:
    if result.get("via") == "daemon" and not result.get("degraded"):
        print("(searched by the memwarden daemon: keywords and meaning)")
    if result.get("degraded"):
        where = " in the memwarden daemon" if result.get("via") == "daemon" else ""
        print(f"(degraded{where}: {result.get('degrade_reason')}; keyword results only)")
    if not result["hits"]:
        print("no memories found")
    for hit in result["hits"]:
        print_memory(hit)
        why = ", ".join(f"{k}={v:.3f}" for k, v in hit["why"].items())
        print(f"    score {hit['score']:.4f} ({why})")
    if result.get("tokens") is not None:
        left_out = f", {result['omitted']} more did not fit" if result.get("omitted") else ""
        print(f"(about {result['tokens']} tokens{left_out})")
