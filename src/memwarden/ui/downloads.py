"""Files the dashboard hands out for other programs to open.

The audit export's CSV goes to spreadsheets, which run a cell that starts with ``=``, ``+``,
``-``, ``@`` (or a tab or carriage return before one of them) as a formula: ``=HYPERLINK(...)``
or a DDE call like ``=cmd|...``. The project, actor and tenant columns, and the plain query when
``MEMWARDEN_AUDIT_QUERY_PLAIN`` is on, are written by whoever calls the server (a refused add is
audited with the project as sent), so the download prefixes such a cell with an apostrophe,
which spreadsheets show as text and do not display. The JSON export is left exact.
"""

from __future__ import annotations

import csv
import io

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_cell(value: str) -> str:
    """``value`` as a cell no spreadsheet evaluates: an apostrophe before a formula start."""
    return "'" + value if value.startswith(FORMULA_STARTS) else value


def spreadsheet_safe_csv(text: str) -> str:
    """The CSV ``text`` (one header line, then rows) with every cell made inert; the same
    columns and rows, quoted as ``csv.writer`` quotes them."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for row in csv.reader(io.StringIO(text, newline="")):
        writer.writerow([spreadsheet_cell(cell) for cell in row])
    return out.getvalue()
