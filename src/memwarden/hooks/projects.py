"""The project a hook's session works in, and the projects the prompt hook searches.

Read from the session's folder (``cwd`` in the hook input) on the machine the hook runs on, by
the hook's own process: the daemon and the HTTP server are sent the name, never the folder to
look at (a server must not answer questions about its own file system). Standard library
(``os``) and ``identifiers`` only: the prompt hook's quick path (``hooks.quick``) imports this.
"""

from __future__ import annotations

import os


def project_for(cwd: str, override: str | None = None) -> str | None:
    """The memwarden project of a session: ``override``, else the name of the repository
    (the nearest folder above ``cwd`` holding ``.git``), else the name of ``cwd``."""
    if override and override.strip():
        return override.strip()
    if not cwd:
        return None
    here = folder = os.path.normpath(cwd)  # strings: the prompt hook does not import pathlib
    while True:
        if os.path.exists(os.path.join(folder, ".git")):
            return _folder_name(folder)
        parent = os.path.dirname(folder)
        if parent == folder:
            return _folder_name(here)
        folder = parent


def _folder_name(folder: str) -> str | None:
    """The folder's name as a project name: a folder may be called what no project may
    (``Bob's notes``, ``R&D``, a line break), so it goes through ``escape_identifier``."""
    from memwarden.identifiers import MAX_PROJECT_CHARS, escape_identifier

    name = os.path.basename(folder)
    return None if name in ("", ".") else escape_identifier(name, max_chars=MAX_PROJECT_CHARS)


def projects_to_search(project: str | None) -> list[str | None]:
    """The session's project and ``default`` (facts stored without a project, such as the
    user's own preferences); every project when the session's is unknown."""
    if project is None:
        return [None]
    return [project] if project == "default" else [project, "default"]
