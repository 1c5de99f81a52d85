"""JSON rule packs add, override and disable rules; a broken pack stops start-up naming the
rule and the problem."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from memwarden.errors import ConfigError
from memwarden.govern import build_redactor


def write_pack(tmp_path: Path, pack: object) -> str:
    path = tmp_path / "rules.json"
    path.write_text(pack if isinstance(pack, str) else json.dumps(pack), encoding="utf-8")
    return str(path)


def test_a_pack_adds_disables_and_overrides_rules(tmp_path: Path) -> None:
    pack = {
        "rules": [
            {
                "name": "employee_id",
                "pattern": r"\bEMP-\d{6}\b",
                "hints": ["emp-"],
                "examples": {"match": ["badge EMP-123456"], "no_match": ["EMP-12"]},
            }
        ],
        "disable": ["ipv4"],
        "override": [{"name": "email", "pattern": r"[\w.]+@acme\.io"}],
    }
    redactor = build_redactor("enforce", write_pack(tmp_path, pack))
    out = redactor.redact("EMP-123456 at 10.0.0.1 mails bob@acme.io and bob@other.org")
    assert out.text == "[REDACTED:employee_id] at 10.0.0.1 mails [REDACTED:email] and bob@other.org"


@pytest.mark.parametrize(
    ("pack", "rule", "problem"),
    [
        ({"rules": [{"name": "bad", "pattern": "(unclosed"}]}, "bad", "not a valid regular expression"),
        ({"rules": [{"name": "empty", "pattern": "x*"}]}, "empty", "matches the empty string"),
        ({"rules": [{"name": "v", "pattern": "x", "validator": "crc99"}]}, "v", "unknown validator 'crc99'"),
        ({"rules": [{"name": "email", "pattern": "x"}]}, "email", "list it under override"),
        ({"rules": [{"name": "Bad Name", "pattern": "x"}]}, "Bad Name", "name must be"),
        ({"rules": [{"name": "n", "pattern": "x", "colour": "red"}]}, "n", "unknown key(s) ['colour']"),
        ({"rules": [{"name": "n"}]}, "n", "pattern is missing"),
        (
            {"rules": [{"name": "n", "pattern": "abc", "examples": {"match": ["xyz"]}}]},
            "n",
            "example 'xyz' should match but does not",
        ),
        (
            {"rules": [{"name": "n", "pattern": "abc", "examples": {"no_match": ["abc"]}}]},
            "n",
            "should not match but does",
        ),
        ({"override": [{"name": "nope", "pattern": "x"}]}, "nope", "cannot override an unknown"),
        ({"disable": ["nope"]}, "nope", "cannot disable an unknown rule"),
        ({"rules": [{"name": "n", "pattern": "x", "hints": "x"}]}, "n", "hints must be a list"),
    ],
)
def test_a_broken_rule_is_refused_naming_the_rule_and_the_problem(
    tmp_path: Path, pack: object, rule: str, problem: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        build_redactor("enforce", write_pack(tmp_path, pack))
    assert f"rule {rule!r}" in caught.value.message
    assert problem in caught.value.message


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("{not json", "not valid JSON: Expecting property name"),
        ("[]", "must be a JSON object"),
        ('{"rulez": []}', "unknown key(s) ['rulez']"),
        ('{"rules": {}}', "rules must be a list"),
    ],
)
def test_a_malformed_pack_is_refused(tmp_path: Path, text: str, problem: str) -> None:
    with pytest.raises(ConfigError, match="redaction rule pack") as caught:
        build_redactor("enforce", write_pack(tmp_path, text))
    assert problem in caught.value.message


def test_a_missing_pack_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read it"):
        build_redactor("enforce", str(tmp_path / "absent.json"))


def test_the_server_does_not_start_with_a_broken_pack(cli_env: dict[str, str], tmp_path: Path) -> None:
    env = {
        **cli_env,
        "MEMWARDEN_REDACTION_RULES": write_pack(tmp_path, {"rules": [{"name": "ticket", "pattern": "[a-"}]}),
    }
    for argv in (["serve"], ["add", "a fact"]):
        done = subprocess.run(
            [sys.executable, "-m", "memwarden", *argv],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode == 1, done.stderr
        assert "rule 'ticket': pattern is not a valid regular expression" in done.stderr


@pytest.mark.parametrize("pattern", [r"(a+)+$", r"(a|aa)+b", r"(\w+\s?)+$"])
def test_a_pack_rule_that_backtracks_catastrophically_is_refused_at_load(
    tmp_path: Path, pattern: str
) -> None:
    path = write_pack(tmp_path, {"rules": [{"name": "evil", "pattern": pattern}]})
    with pytest.raises(
        ConfigError, match=r"rule 'evil': pattern takes longer than .* backtracks catastrophically"
    ):
        build_redactor("enforce", path)


def test_a_slow_pack_rule_at_write_time_raises_a_clear_error_instead_of_hanging(tmp_path: Path) -> None:
    from memwarden.govern import RuleTimeout
    from memwarden.govern.packs import PACK_RULE_TIMEOUT

    # Fast on every load-time probe (they hold no 'q'), exponential on the text below.
    path = write_pack(tmp_path, {"rules": [{"name": "sneaky", "pattern": r"q(a|aa)+b"}]})
    redactor = build_redactor("enforce", path)
    with pytest.raises(RuleTimeout, match="redaction rule 'sneaky' took longer than"):
        redactor.redact("q" + "a" * 60 + "!")
    assert PACK_RULE_TIMEOUT <= 0.25


def test_the_high_entropy_rule_is_opt_in_and_dry_run_by_default(tmp_path: Path) -> None:
    token = "Zq8vN3kLpT6wXr2YbM9cHf4JdS7aEu1G"
    text = f"unknown vendor token {token} and commit 3f2a9c1e5b7d4a6f8e0c2b4d6f8a0c2e4b6d8f0a"
    assert build_redactor("enforce").redact(text).text == text
    dry = build_redactor("enforce", write_pack(tmp_path, {"enable": ["high_entropy"]})).redact(text)
    assert (dry.text, dry.dry_run, dry.redacted) == (text, ("high_entropy",), False)
    enforced = build_redactor(
        "enforce", write_pack(tmp_path, {"enable": [{"name": "high_entropy", "mode": "enforce"}]})
    )
    out = enforced.redact(text)
    assert token not in out.text and "[REDACTED:high_entropy]" in out.text
    assert "3f2a9c1e5b7d4a6f8e0c2b4d6f8a0c2e4b6d8f0a" in out.text  # lower-case hex is not mixed case


@pytest.mark.parametrize(
    ("pack", "problem"),
    [
        ({"enable": ["no_such_rule"]}, "optional rules: high_entropy"),
        ({"enable": [{"name": "high_entropy", "mode": "loud"}]}, "mode must be one of enforce, dry-run"),
        (
            {"rules": [{"name": "r", "pattern": "x", "mode": "sometimes"}]},
            "mode must be one of enforce, dry-run",
        ),
    ],
)
def test_bad_enable_entries_and_modes_are_refused(tmp_path: Path, pack: object, problem: str) -> None:
    with pytest.raises(ConfigError, match=problem):
        build_redactor("enforce", write_pack(tmp_path, pack))


def test_a_pack_rule_in_dry_run_reports_without_replacing(tmp_path: Path) -> None:
    path = write_pack(
        tmp_path, {"rules": [{"name": "case_ref", "pattern": r"\bCASE-\d{4}\b", "mode": "dry-run"}]}
    )
    out = build_redactor("enforce", path).redact("see CASE-1234 and jane@acme.io")
    assert out.text == "see CASE-1234 and [REDACTED:email]" and out.dry_run == ("case_ref",)


def test_every_built_in_and_optional_rule_has_its_own_name() -> None:
    from memwarden.govern.builtin_rules import BUILTIN_RULES, OPTIONAL_RULES

    names = [rule.name for rule in (*BUILTIN_RULES, *OPTIONAL_RULES)]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)


@pytest.mark.parametrize(
    ("pack", "rule", "problem"),
    [
        (
            {"override": [{"name": "email", "pattern": "a@b"}, {"name": "email", "pattern": "c@d"}]},
            "email",
            "listed twice under override",
        ),
        ({"disable": ["ipv4", "ipv4"]}, "ipv4", "listed twice under disable"),
        ({"enable": ["high_entropy", {"name": "high_entropy", "mode": "enforce"}]}, "high_entropy", "twice"),
        (
            {"rules": [{"name": "badge", "pattern": "B-1"}, {"name": "badge", "pattern": "B-2"}]},
            "badge",
            "listed twice under rules",
        ),
        ({"rules": [{"name": "high_entropy", "pattern": "x{30}"}]}, "high_entropy", "list it under enable"),
        ({"rules": [{"name": "national_id", "pattern": r"\d{9}"}]}, "national_id", "under disable"),
    ],
)
def test_a_pack_naming_a_rule_twice_or_redefining_a_built_in_rule_is_refused(
    tmp_path: Path, pack: object, rule: str, problem: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        build_redactor("enforce", write_pack(tmp_path, pack))
    assert caught.value.fields["rule"] == rule and problem in str(caught.value)


def test_a_built_in_rule_is_replaced_only_when_the_pack_disables_it_first(tmp_path: Path) -> None:
    pack = {"disable": ["national_id"], "rules": [{"name": "national_id", "pattern": r"\bNID-\d{6}\b"}]}
    redactor = build_redactor("enforce", write_pack(tmp_path, pack))
    assert [rule.name for rule in redactor.rules].count("national_id") == 1
    out = redactor.redact("NID-123456 and codice fiscale BNCGNN72C41F205W")
    assert out.text.startswith("[REDACTED:national_id] and codice fiscale ")


def test_rules_to_start_from_with_one_name_twice_are_refused(tmp_path: Path) -> None:
    from memwarden.govern.packs import apply_pack
    from memwarden.govern.rules import Rule

    twins = [Rule("badge", r"B-\d"), Rule("badge", r"C-\d")]
    with pytest.raises(ConfigError, match="rule names must be unique"):
        apply_pack({}, tmp_path / "rules.json", twins)
