"""``memwarden demo`` tells the governance story end to end."""

from __future__ import annotations

import subprocess
import sys


def test_demo_shows_redaction_search_and_the_audit_rows(cli_env: dict[str, str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "memwarden", "demo"], env=cli_env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "rules phone_cn, email, cn_resident_id" in out
    assert "mobile [REDACTED:phone_cn], e-mail [REDACTED:email]; resident ID [REDACTED:cn_resident_id]" in out
    assert "search '13800138000' (the original number): 0 hit(s)" in out
    assert "(business words): 1 hit(s) -> the same memory" in out
    assert "add    ok  results=1  redactions=3" in out and "query sha256" in out
    assert "audit chain intact" in out
