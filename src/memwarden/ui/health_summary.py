"""The deep health report (``Operations.health``) as a person reads it: one line per check with
its status in words, what was found, and what to do when it is not fine. The full report stays
on the page, folded, for whoever needs the details (internal table names, paths, counts).

Checks this module does not know (a later version's) still get a line, from their ``ok`` and
``state`` fields, so a new check is never hidden from the summary.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from memwarden.ui.display import human_size, relative

# What each check is about, and what to do when it fails: the CLI command that repairs or
# explains it (the dashboard runs no repair).
CHECKS: dict[str, tuple[str, str]] = {
    "integrity": (
        "Database file",
        "Restore the newest verified backup (Backups page shows what it would change), "
        "then run `memwarden health` to confirm.",
    ),
    "keyword_index": (
        "Keyword search index",
        "Run `memwarden health` from a terminal: it rebuilds the keyword index.",
    ),
    "vectors": (
        "Vector search",
        "Check MEMWARDEN_EMBEDDER and the model; searches still answer from keywords (degraded).",
    ),
    "backups": (
        "Backups",
        "Run `memwarden backup` now; set MEMWARDEN_BACKUP_DIR if backups are off.",
    ),
    "vault": (
        "Vault mirror",
        "Check MEMWARDEN_VAULT_DIRS and that the folders can be written; then `memwarden vault sync`.",
    ),
    "operations": (
        "Unfinished operations",
        "Run the interrupted command again (it resumes), or `memwarden doctor` to see what stopped.",
    ),
    "clock": (
        "Clock",
        "Check the machine's clock; purges refuse to run while the clock looks wrong.",
    ),
    "audit_anchor": (
        "Audit anchor",
        "The database lost audit rows the anchor file recorded: restore a backup, then `memwarden audit verify`.",
    ),
    "audit_guards": (
        "Audit log guards",
        "Run `memwarden health` as the database owner: it puts back the triggers that keep the log append-only.",
    ),
}
QUIET_STATES = {"off", "not_configured", "not_checked", "disabled"}


class CheckLine(NamedTuple):
    """One check as the summary shows it."""

    key: str
    label: str
    status: str  # "ok", "off" (not set up; nothing to do) or "problem"
    found: str
    advice: str


def _found(key: str, check: dict[str, Any]) -> str:
    """A short sentence on what the check saw, from the fields it is known to report."""
    state = str(check.get("state") or "")
    if key == "integrity":
        problems = check.get("problems") or []
        return "The file reads back whole." if not problems else f"{len(problems)} problem(s) in the file."
    if key == "keyword_index":
        if check.get("problem"):
            return str(check["problem"])
        return "A probe row was written and found again."
    if key == "vectors":
        if state == "off":
            return "Off (no embedder configured): searches use keywords only."
        with_vector, total = check.get("with_vector"), check.get("memories")
        text = f"Embedder {check.get('embedder')}, {state or 'unknown state'}"
        if isinstance(with_vector, int) and isinstance(total, int):
            text += f"; {with_vector} of {total} memories have a vector"
        return text + (f"; {check['error']}" if check.get("error") else "") + "."
    if key == "backups":
        last = check.get("last") if isinstance(check.get("last"), dict) else None
        if last is None:
            return "No backup taken yet." if state != "not_configured" else "Backups are not set up."
        taken = relative(last.get("taken_at"))
        verified = "verified" if last.get("verified") else "NOT verified"
        return f"Last backup {taken or 'at an unknown time'}, {verified}, {human_size(last.get('bytes'))}; {check.get('kept', 0)} kept."
    if key == "operations":
        stopped, running = check.get("interrupted") or [], check.get("running") or []
        if not stopped and not running:
            return "Nothing left unfinished."
        return f"{len(stopped)} interrupted, {len(running)} running."
    if key == "clock":
        jumps = check.get("jumps") or []
        return (
            "No jump among the newest audit rows."
            if not jumps
            else f"{len(jumps)} jump(s) in the audit times."
        )
    if key == "audit_guards":
        findings = check.get("findings") or []
        return (
            "The triggers are in place." if not findings else f"{len(findings)} guard(s) missing or changed."
        )
    if state in QUIET_STATES:
        return "Not set up."
    message = check.get("message") or check.get("error") or check.get("problem")
    return str(message) if message else (state.replace("_", " ").capitalize() or "Checked") + "."


def summarize(report: dict[str, Any]) -> list[CheckLine]:
    """One line per check of ``report["checks"]``, problems first."""
    checks = report.get("checks")
    if not isinstance(checks, dict):
        return []
    lines = []
    for key, check in checks.items():
        if not isinstance(check, dict):
            continue
        label, advice = CHECKS.get(str(key), (str(key).replace("_", " ").capitalize(), ""))
        state = str(check.get("state") or "")
        if check.get("ok") is False:
            status = "problem"
        elif state in QUIET_STATES:
            status = "off"
        else:
            status = "ok"
        if status == "problem" and not advice:
            advice = "Run `memwarden health` in a terminal for the details and a repair."
        lines.append(
            CheckLine(str(key), label, status, _found(str(key), check), advice if status == "problem" else "")
        )
    return sorted(lines, key=lambda line: line.status != "problem")
