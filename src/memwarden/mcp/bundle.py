"""The Claude Desktop extension: an MCP Bundle (``.mcpb``, formerly DXT) of this memwarden.

A bundle is a zip with ``manifest.json`` at its root (MCPB manifest 0.4). It is built from the
installed package, so ``memwarden bundle`` works from a wheel as well as from a checkout:

- ``manifest.json``: server type ``uv`` (the host installs Python and the dependencies with
  uv from ``pyproject.toml``; nothing compiled is bundled), the entry point, the command
  (``uv run --directory <bundle> server/main.py``), ``user_config`` for the database, the
  embedder and the languages, the tools of the chosen profile as the server registers them,
  compatibility and licence;
- ``pyproject.toml``: memwarden's runtime dependencies, read from the installed metadata
  (``tool.uv.package = false``: uv installs them and runs the script, it builds nothing);
- ``server/main.py`` and ``server/memwarden/``: the package itself, so the bundle runs the
  exact version that built it (memwarden is not on a package index);
- ``LICENSE`` and ``NOTICE``;
- ``icon.png`` (drawn by ``mcp/bundle_icon.py``), and the homepage, repository, documentation
  and support links of pyproject's ``[project.urls]`` in the manifest.

``tests/mcp/test_bundle.py`` validates the manifest with the official packer's ``mcpb validate``
and runs the bundled server over stdio with the manifest's environment.
"""

from __future__ import annotations

import json
import os
import tempfile
import zipfile
from collections.abc import Iterator
from importlib import metadata, resources
from pathlib import Path
from typing import Any

from memwarden.errors import InvalidInput
from memwarden.mcp.bundle_icon import icon_png
from memwarden.mcp.server import CORE_TOOLS, TOOL_NAMES
from memwarden.tool_text import TOOLS
from memwarden.version import __version__

__all__ = ["MANIFEST_VERSION", "bundle_manifest", "write_bundle"]

MANIFEST_VERSION = "0.4"
ENTRY_POINT = "server/main.py"
# Drawn by mcp/bundle_icon.py when the bundle is built.
ICON_FILE = "icon.png"
# The default database of `memwarden serve` (settings_paths.default_data_dir), spelled with
# the variable the host substitutes.
DEFAULT_DB = "${HOME}/.local/share/memwarden/memwarden.db"

MAIN_PY = '''\
"""Claude Desktop starts memwarden from this bundle with `uv run server/main.py` (manifest.json)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from memwarden.cli.main import main  # noqa: E402

raise SystemExit(main(["serve"]))
'''

USER_CONFIG: dict[str, dict[str, Any]] = {
    "database": {
        "type": "string",
        "title": "Database",
        "description": "The SQLite file memwarden keeps memories in (created on first use), or a "
        "postgresql:// URL. Share it with Claude Code and the command line to share memories.",
        "default": DEFAULT_DB,
        "required": False,
    },
    "embedder": {
        "type": "string",
        "title": "Embedder",
        "description": "Search by meaning with: builtin (the bundled model, no network), ollama, "
        "openai, or none (keyword search only).",
        "default": "builtin",
        "required": False,
    },
    "languages": {
        "type": "string",
        "title": "Languages",
        "description": "Languages whose word forms keyword search folds together, comma-separated "
        "(see docs/search.md).",
        "default": "english,turkish",
        "required": False,
    },
}
ENV_OF_CONFIG = {
    "database": "MEMWARDEN_DB",
    "embedder": "MEMWARDEN_EMBEDDER",
    "languages": "MEMWARDEN_LANGUAGES",
}


def _runtime_requirements() -> list[str]:
    """memwarden's runtime dependencies as installed (no extras)."""
    required = metadata.requires("memwarden") or []
    return [req for req in required if "extra ==" not in req]


def bundle_manifest(tools: str = "core") -> dict[str, Any]:
    """The ``manifest.json`` of a bundle serving the ``tools`` profile (``core`` or ``all``)."""
    if tools not in ("core", "all"):
        raise InvalidInput(f"tool profile {tools!r} is not one of core, all", field="tools")
    names = [name for name in TOOL_NAMES if tools == "all" or name in CORE_TOOLS]
    env = {var: f"${{user_config.{key}}}" for key, var in ENV_OF_CONFIG.items()}
    env["MEMWARDEN_TOOLS"] = tools
    # The package is in server/, not installed: the daemon memwarden starts (python -m) finds it here.
    env["PYTHONPATH"] = "${__dirname}/server"
    summary = metadata.metadata("memwarden")["Summary"]
    return {
        "manifest_version": MANIFEST_VERSION,
        "name": "memwarden",
        "display_name": "memwarden",
        "version": __version__,
        "description": summary,
        "long_description": (
            "Memories live in one SQLite file on your machine and nothing leaves it; PII and secrets "
            "are redacted before anything is written; every read and write lands in a tamper-evident "
            "audit log. Claude stores short facts and finds them again in later conversations."
        ),
        "author": {"name": "memwarden contributors"},
        **_project_links(),
        "icon": ICON_FILE,
        "server": {
            "type": "uv",
            "entry_point": ENTRY_POINT,
            "mcp_config": {
                "command": "uv",
                "args": ["run", "--quiet", "--directory", "${__dirname}", ENTRY_POINT],
                "env": env,
            },
        },
        "tools": [{"name": name, "description": TOOLS[name].does} for name in names],
        "tools_generated": False,
        "prompts_generated": True,
        "keywords": ["memory", "local-first", "sqlite", "redaction", "audit"],
        "license": metadata.metadata("memwarden")["License-Expression"] or "Apache-2.0",
        "compatibility": {
            "platforms": ["darwin", "win32", "linux"],
            "runtimes": {"python": metadata.metadata("memwarden")["Requires-Python"] or ">=3.11"},
        },
        "user_config": USER_CONFIG,
    }


def _project_links() -> dict[str, Any]:
    """homepage, repository, documentation and support from pyproject's [project.urls] (the
    installed metadata's Project-URL lines); a link the metadata lacks is left out."""
    urls = {}
    for line in metadata.metadata("memwarden").get_all("Project-URL") or []:
        label, _, url = line.partition(",")
        urls[label.strip().lower()] = url.strip()
    links: dict[str, Any] = {}
    if "homepage" in urls:
        links["homepage"] = urls["homepage"]
    if "repository" in urls:
        links["repository"] = {"type": "git", "url": urls["repository"]}
    if "documentation" in urls:
        links["documentation"] = urls["documentation"]
    if "issues" in urls:
        links["support"] = urls["issues"]
    return links


def _pyproject() -> str:
    requires_python = metadata.metadata("memwarden")["Requires-Python"] or ">=3.11"
    deps = "".join(f"    {json.dumps(req)},\n" for req in _runtime_requirements())
    return (
        "# The dependencies of the memwarden Claude Desktop extension; uv installs them and runs\n"
        "# server/main.py (memwarden itself is in server/memwarden).\n"
        "[project]\n"
        'name = "memwarden-extension"\n'
        f'version = "{__version__}"\n'
        f'requires-python = "{requires_python}"\n'
        f"dependencies = [\n{deps}]\n\n"
        "[tool.uv]\npackage = false\n"
    )


def _package_files() -> Iterator[tuple[str, bytes]]:
    """(path in the bundle, bytes) of every file of the installed memwarden package."""
    root = Path(str(resources.files("memwarden")))
    for path in sorted(root.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
            yield f"server/memwarden/{path.relative_to(root).as_posix()}", path.read_bytes()


def _licence_files() -> Iterator[tuple[str, bytes]]:
    # The installed .dist-info holds them; a checkout may also show a build's memwarden.egg-info
    # (without them) on the path, so every memwarden distribution found is asked.
    for name in ("LICENSE", "NOTICE"):
        texts = (dist.read_text(f"licenses/{name}") for dist in metadata.distributions(name="memwarden"))
        text = next((found for found in texts if found is not None), None)
        if text is None:
            raise InvalidInput(f"the installed memwarden carries no {name} file: reinstall it", field="out")
        yield name, text.encode("utf-8")


def _check_out(out: Path, *, force: bool) -> None:
    if not out.parent.is_dir():
        raise InvalidInput(
            f"--out {out}: the folder {out.parent} does not exist; create it or choose another", field="out"
        )
    if out.is_dir():
        raise InvalidInput(f"--out {out} is a folder: give a file name such as memwarden.mcpb", field="out")
    if out.exists() and not force:
        raise InvalidInput(
            f"--out {out} already exists: remove it, choose another name or pass --force", field="out"
        )


def write_bundle(out: Path, *, tools: str = "core", force: bool = False) -> dict[str, Any]:
    """Write the bundle to ``out`` (through a temporary file, so a failure leaves nothing)."""
    _check_out(out, force=force)
    manifest = bundle_manifest(tools)
    entries: list[tuple[str, bytes]] = [
        ("manifest.json", (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode("utf-8")),
        ("pyproject.toml", _pyproject().encode("utf-8")),
        (ENTRY_POINT, MAIN_PY.encode("utf-8")),
        (ICON_FILE, icon_png()),
        *_licence_files(),
        *_package_files(),
    ]
    fd, temp = tempfile.mkstemp(prefix=".memwarden-bundle-", suffix=".tmp", dir=out.parent)
    try:
        with os.fdopen(fd, "wb") as handle, zipfile.ZipFile(handle, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, data in entries:
                info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                archive.writestr(info, data)
        os.replace(temp, out)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return {"path": str(out), "files": len(entries), "bytes": out.stat().st_size, "tools": tools}
