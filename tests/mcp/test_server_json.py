"""server.json (the MCP Registry entry) against the registry's published schema, and against
what memwarden really is: its version, its package name, its command, its settings.

The schema is vendored in docs/mcp-registry/ (no npm or PyPI package ships it; see the README
there for its source and licence).
"""

from __future__ import annotations

import copy
import json
import tomllib
from pathlib import Path
from typing import Any

import jsonschema

from memwarden.cli.main import build_parser
from memwarden.settings_table import SETTINGS
from memwarden.version import __version__

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "docs" / "mcp-registry" / "server.schema.json").read_text(encoding="utf-8"))
SERVER = json.loads((ROOT / "server.json").read_text(encoding="utf-8"))


def problems(document: dict[str, Any]) -> list[str]:
    validator = jsonschema.Draft7Validator(SCHEMA, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    return [error.message for error in validator.iter_errors(document)]


def test_server_json_is_valid_against_the_registry_schema_it_names() -> None:
    assert SERVER["$schema"] == SCHEMA["$id"]
    assert problems(SERVER) == []


def test_the_schema_check_rejects_what_the_registry_rejects() -> None:
    too_long = {**SERVER, "description": "x" * 101}
    latest = copy.deepcopy(SERVER)
    latest["packages"][0]["version"] = "latest"
    no_slash = {**SERVER, "name": "memwarden"}
    for bad in (too_long, latest, no_slash):
        assert problems(bad), bad


def test_the_versions_are_the_package_version() -> None:
    assert SERVER["version"] == __version__
    assert [package["version"] for package in SERVER["packages"]] == [__version__]


def test_the_package_is_this_project_and_its_arguments_are_a_real_command() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    (package,) = SERVER["packages"]
    assert package["registryType"] == "pypi" and package["identifier"] == project["name"]
    assert package["runtimeHint"] == "uvx" and package["transport"] == {"type": "stdio"}
    args = [argument["value"] for argument in package["packageArguments"]]
    assert build_parser().parse_args(args).command == "serve"


def test_every_environment_variable_is_a_setting_with_its_real_choices_and_default() -> None:
    specs = {spec.env: spec for spec in SETTINGS}
    for variable in SERVER["packages"][0]["environmentVariables"]:
        spec = specs[variable["name"]]
        if "choices" in variable:
            assert tuple(variable["choices"]) == spec.choices
        if "default" in variable:
            assert variable["default"] == spec.default


def test_the_readme_carries_the_name_the_registry_checks_on_pypi() -> None:
    assert f"mcp-name: {SERVER['name']}" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_sdist_carries_server_json() -> None:
    assert "server.json" in (ROOT / "MANIFEST.in").read_text(encoding="utf-8").split()
