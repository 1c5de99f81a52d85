"""Write docs/export-format.schema.json from the export format's pydantic models.

Run after changing ``src/memwarden/ops/export_format.py``; tests/ops/test_ops_exchange.py fails
while the published file differs from what the models describe.
"""

from __future__ import annotations

from pathlib import Path

from memwarden.ops.export_format import schema_text

TARGET = Path(__file__).resolve().parents[1] / "docs" / "export-format.schema.json"

if __name__ == "__main__":
    TARGET.write_text(schema_text(), encoding="utf-8")
    print(f"wrote {TARGET}")
