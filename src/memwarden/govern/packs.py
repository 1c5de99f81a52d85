"""JSON rule packs (``MEMWARDEN_REDACTION_RULES``): add, override or disable redaction rules.

A pack is checked completely at start-up; the first problem stops start-up with a ConfigError
naming the pack, the rule and what is wrong. A rule may carry ``examples``: texts it must
redact (``match``) and must leave alone (``no_match``); they are run at load time, so a pack
that does not do what its author meant never starts. Format: docs/governance.md.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from memwarden.errors import ConfigError
from memwarden.govern.builtin_rules import BUILTIN_RULES, OPTIONAL_RULES
from memwarden.govern.checksums import VALIDATORS
from memwarden.govern.redactor import Redactor
from memwarden.govern.rules import RULE_MODES, RULE_NAME, Rule, RuleTimeout

if TYPE_CHECKING:  # pragma: no cover - a pack's path is made when a pack is loaded
    from pathlib import Path

PACK_KEYS = {"version", "description", "rules", "override", "disable", "enable"}
RULE_KEYS = {
    "name",
    "pattern",
    "description",
    "validator",
    "hints",
    "ignore_case",
    "shrink",
    "mode",
    "examples",
}
# A pack pattern's search may take this long before the write is refused (RuleTimeout); at load
# time every pack pattern must also get through the probes below within it.
PACK_RULE_TIMEOUT = 0.25
_PROBES = (
    "a" * 4000 + "!",
    "1" * 4000 + "x",
    "a1" * 2000 + "!",
    " " * 4000 + "x",
    "a " * 2000 + "!",
    "a." * 2000 + "@",
    "x@" * 2000,
    "=" * 4000,
    "-" * 4000 + "a",
    "aA1_" * 1000 + "\n",
)


class PackError(ConfigError):
    """A rule pack problem; ``rule`` names the rule (empty for the pack itself)."""


def _problem(path: Path, rule: str, message: str) -> PackError:
    where = f"rule {rule!r}: " if rule else ""
    return PackError(f"redaction rule pack {path}: {where}{message}", path=str(path), rule=rule)


def _build(path: Path, entry: Any, base: Rule | None) -> tuple[Rule, dict[str, list[str]]]:
    if not isinstance(entry, dict):
        raise _problem(path, "", f"every rule must be a JSON object, got {json.dumps(entry)[:60]}")
    name = entry.get("name")
    if not isinstance(name, str) or not RULE_NAME.match(name):
        raise _problem(
            path, str(name), "name must be 1-40 characters of a-z, 0-9 and _, starting with a letter"
        )
    unknown = set(entry) - RULE_KEYS
    if unknown:
        raise _problem(path, name, f"unknown key(s) {sorted(unknown)}; allowed: {sorted(RULE_KEYS)}")
    fields: dict[str, Any] = {} if base is None else base.to_dict()
    fields["name"] = name
    for key in ("pattern", "description", "validator"):
        if key in entry:
            if not isinstance(entry[key], str) and not (key == "validator" and entry[key] is None):
                raise _problem(path, name, f"{key} must be a string")
            fields[key] = entry[key]
    if "mode" in entry:
        if entry["mode"] not in RULE_MODES:
            raise _problem(path, name, f"mode must be one of {', '.join(RULE_MODES)}")
        fields["mode"] = entry["mode"]
    if "pattern" in entry:
        fields["timeout"] = PACK_RULE_TIMEOUT
    for key in ("ignore_case", "shrink"):
        if key in entry:
            if not isinstance(entry[key], bool):
                raise _problem(path, name, f"{key} must be true or false")
            fields[key] = entry[key]
    if "hints" in entry:
        hints = entry["hints"]
        if not isinstance(hints, list) or not all(isinstance(h, str) and h for h in hints):
            raise _problem(path, name, "hints must be a list of non-empty strings")
        fields["hints"] = tuple(h.lower() for h in hints)
    if not fields.get("pattern"):
        raise _problem(path, name, "pattern is missing or empty")
    if fields.get("validator") is not None and fields["validator"] not in VALIDATORS:
        raise _problem(path, name, f"unknown validator {fields['validator']!r}; known: {sorted(VALIDATORS)}")
    import regex  # only when a pack is read: the engine costs more to import than a cold search

    try:
        rule = Rule(**{k: v for k, v in fields.items() if k != "examples"})
    except (re.error, regex.error) as exc:
        raise _problem(path, name, f"pattern is not a valid regular expression: {exc}") from None
    if rule.regex.search("") is not None:
        raise _problem(path, name, "pattern matches the empty string; it would match everywhere")
    if rule.timeout is not None:
        _probe(path, rule)
    examples = entry.get("examples", {})
    if (
        not isinstance(examples, dict)
        or set(examples) - {"match", "no_match"}
        or not all(isinstance(v, list) and all(isinstance(t, str) for t in v) for v in examples.values())
    ):
        raise _problem(path, name, 'examples must look like {"match": ["…"], "no_match": ["…"]}')
    return rule, examples


def _check_examples(path: Path, rule: Rule, examples: dict[str, list[str]]) -> None:
    alone = Redactor([rule])
    for text in examples.get("match", []):
        if not alone.find(text):
            raise _problem(path, rule.name, f"example {text!r} should match but does not")
    for text in examples.get("no_match", []):
        if alone.find(text):
            raise _problem(path, rule.name, f"example {text!r} should not match but does")


def _probe(path: Path, rule: Rule) -> None:
    """Refuse a pattern that backtracks catastrophically on long runs of one character class."""
    for probe in _PROBES:
        try:
            for _ in rule.spans(probe):
                pass
        except RuleTimeout:
            raise _problem(
                path,
                rule.name,
                f"pattern takes longer than {PACK_RULE_TIMEOUT:g} s on a "
                f"{len(probe):,}-character probe ({probe[:6]!r}…): it backtracks catastrophically; "
                "avoid nested quantifiers such as (a+)+ or (\\w+\\s?)*",
            ) from None


def _enable(path: Path, entry: Any) -> Rule:
    name, mode = (
        (entry, "dry-run")
        if isinstance(entry, str)
        else ((entry.get("name"), entry.get("mode", "dry-run")) if isinstance(entry, dict) else (None, None))
    )
    optional = {rule.name: rule for rule in OPTIONAL_RULES}
    if name not in optional or (isinstance(entry, dict) and set(entry) - {"name", "mode"}):
        raise _problem(
            path,
            str(name),
            'enable takes names of optional rules or {"name": …, "mode": …}; '
            f"optional rules: {', '.join(optional)}",
        )
    if mode not in RULE_MODES:
        raise _problem(path, str(name), f"mode must be one of {', '.join(RULE_MODES)}")
    return optional[str(name)].replace(mode=mode)


def _refuse_repeated_names(path: Path, key: str, entries: list[Any]) -> None:
    """The second mention of a rule in one list of a pack would silently undo the first."""
    seen: set[str] = set()
    for entry in entries:
        name = entry.get("name") if isinstance(entry, dict) else entry
        if isinstance(name, str):
            if name in seen:
                raise _problem(path, name, f"listed twice under {key}; list each rule once")
            seen.add(name)


def apply_pack(pack: Any, path: Path, rules: Iterable[Rule] = BUILTIN_RULES) -> list[Rule]:
    """The rules after applying ``pack`` (already parsed JSON) to ``rules``."""
    if not isinstance(pack, dict):
        raise _problem(path, "", "the pack must be a JSON object with rules, override and/or disable")
    unknown = set(pack) - PACK_KEYS
    if unknown:
        raise _problem(path, "", f"unknown key(s) {sorted(unknown)}; allowed: {sorted(PACK_KEYS)}")
    # A rule is known by its name alone (findings, markers and packs name it): two rules of one
    # name would leave one of them silently dropped, so names are unique in every list.
    result: dict[str, Rule] = {}
    for rule in rules:
        if rule.name in result:
            raise _problem(
                path, rule.name, "two rules to start from have this name; rule names must be unique"
            )
        result[rule.name] = rule
    for key in ("rules", "override", "disable", "enable"):
        if key in pack and not isinstance(pack[key], list):
            raise _problem(path, "", f"{key} must be a list")
        _refuse_repeated_names(path, key, pack.get(key, []))
    optional = {rule.name for rule in OPTIONAL_RULES}
    for name in pack.get("disable", []):
        if not isinstance(name, str) or name not in result:
            raise _problem(path, str(name), f"cannot disable an unknown rule; known: {', '.join(result)}")
        del result[name]
    for entry in pack.get("enable", []):
        rule = _enable(path, entry)
        result[rule.name] = rule
    for entry in pack.get("override", []):
        name = entry.get("name") if isinstance(entry, dict) else None
        if name not in result:
            raise _problem(
                path, str(name), "cannot override an unknown (or disabled) rule; add it under rules"
            )
        rule, examples = _build(path, entry, result[str(name)])
        _check_examples(path, rule, examples)
        result[rule.name] = rule
    for entry in pack.get("rules", []):
        rule, examples = _build(path, entry, None)
        if rule.name in result:
            raise _problem(
                path,
                rule.name,
                "a rule with this name exists; list it under override to change it, or under disable "
                "to replace it with this one",
            )
        if rule.name in optional:
            raise _problem(
                path,
                rule.name,
                "an optional built-in rule has this name; list it under enable (and override)",
            )
        _check_examples(path, rule, examples)
        result[rule.name] = rule
    return list(result.values())


def load_rules(pack_path: str) -> list[Rule]:
    """Built-in rules, changed by the pack at ``pack_path`` when one is given."""
    if not pack_path:
        return list(BUILTIN_RULES)
    from pathlib import Path

    path = Path(pack_path).expanduser()
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise _problem(path, "", f"cannot read it ({exc.strerror}); fix MEMWARDEN_REDACTION_RULES") from None
    try:
        pack = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _problem(
            path, "", f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    return apply_pack(pack, path)


def build_redactor(mode: str, pack_path: str = "") -> Redactor:
    """The redactor for ``MEMWARDEN_REDACTION`` and ``MEMWARDEN_REDACTION_RULES``."""
    return Redactor(load_rules(pack_path), mode=mode)
