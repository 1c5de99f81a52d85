"""Regenerate docs/tools.md from the MCP server's live definitions (tools, prompts, resources).

    python scripts/generate_tools_doc.py

The texts live in src/memwarden/tool_text.py and guidance.py; tests/mcp/test_tool_definitions.py
fails when docs/tools.md differs from what this writes.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import anyio

from memwarden.app import build_service
from memwarden.config import load_settings
from memwarden.mcp.tool_docs import read_definitions, render

DOC = Path(__file__).resolve().parents[1] / "docs" / "tools.md"


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        settings = load_settings(
            db=str(Path(folder) / "memwarden.db"),
            embedder="none",
            audit=False,
            log_file=str(Path(folder) / "memwarden.log"),
        )
        service = build_service(settings, embeddings=False)
        try:
            definitions = anyio.run(read_definitions, service)
        finally:
            service.close()
    DOC.write_text(render(definitions), encoding="utf-8")
    print(f"wrote {DOC}")


if __name__ == "__main__":
    main()
