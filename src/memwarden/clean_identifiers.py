"""Identifiers the redaction rules were found not to match, remembered between processes.

Every prompt hook checks the session's project names against the redaction rules
(``Intake.clean_identifier`` refuses an identifier a rule matches, and the audit row redacts
it), and loading and building the rules is a large share of what a hook without the daemon
costs. The same name under the same rules gives the same answer, so the hooks remember the
names they found clean in ``clean-identifiers`` in the data folder, under a fingerprint of the
rule set: the redaction mode, the rule pack's path and bytes (``MEMWARDEN_REDACTION_RULES``),
the name, size and modification time of every file of ``memwarden.govern`` (the built-in rules,
their normalisation and validators), and the memwarden and Python versions. When any of them
changes, so does the fingerprint, and every name is checked again; a pack that cannot be read
gives no fingerprint, and the rules are loaded (and report the problem) as before.

The file holds the fingerprint on its first line, then one line per name: the start of a
SHA-256 digest of the fingerprint and the name, never the name. It is written with the
user's permissions only, replaced whole when the rule set changes or it holds ``MAX_NAMES``,
and appended to otherwise; a file that cannot be read or written only means the rules are
loaded again.
"""

from __future__ import annotations

import os
import sys

from memwarden.digests import sha256
from memwarden.version import __version__

# Not typing's: mypy reads it as True; the module is on the prompt hook's path.
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from memwarden.settings_reader import HotSettings

FILE_NAME = "clean-identifiers"
MAX_NAMES = 4096
DIGEST_CHARS = 32
_GOVERN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "govern")


class CleanIdentifiers:
    """The names found clean under one rule set (``holds``), and how to add one (``remember``)."""

    def __init__(self, path: str, redaction: str, rules_file: str) -> None:
        self.path = path
        self.redaction = redaction
        self.rules_file = rules_file
        self._fingerprint: str | None = None
        self._known: set[str] | None = None
        self._file_current = False  # the file on disk starts with this rule set's fingerprint

    @classmethod
    def for_settings(cls, settings: HotSettings) -> CleanIdentifiers:
        return cls(
            os.path.join(settings.data_dir_name(), FILE_NAME), settings.redaction, settings.redaction_rules
        )

    def holds(self, name: str) -> bool:
        """True when ``name`` was found clean under the current rule set."""
        known = self._load()
        return known is not None and self._digest(name) in known

    def remember(self, name: str) -> None:
        """Record that the current rules found ``name`` clean (best effort)."""
        known = self._load()
        if known is None:
            return
        digest = self._digest(name)
        if digest in known:
            return
        known.add(digest)
        try:
            if self._file_current and len(known) <= MAX_NAMES:
                fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
                try:
                    os.write(fd, f"{digest}\n".encode())
                finally:
                    os.close(fd)
                return
            self._replace_file(digest)
            known.intersection_update({digest})
        except OSError:
            pass  # a folder that cannot be written: the rules are loaded again next time

    def _replace_file(self, digest: str) -> None:
        """A new file, or one of another rule set, or a full one: this rule set's fingerprint
        and ``digest`` alone, put in place at once (a reader sees the old file or the new)."""
        temporary = f"{self.path}.{os.getpid()}.tmp"
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            try:
                os.write(fd, f"{self._fingerprint}\n{digest}\n".encode())
            finally:
                os.close(fd)
            os.replace(temporary, self.path)
        except OSError:
            try:
                os.unlink(temporary)
            except OSError:
                pass
            raise
        self._file_current = True

    def _digest(self, name: str) -> str:
        text = f"{self._fingerprint}\n{name}".encode("utf-8", "surrogatepass")
        return sha256(text).hexdigest()[:DIGEST_CHARS]

    def _load(self) -> set[str] | None:
        """The digests of the names known clean; None when the rule set has no fingerprint."""
        if self._known is None:
            self._known = set()
            self._fingerprint = self._rule_set_fingerprint()
            if self._fingerprint is None:
                return None
            try:
                with open(self.path, encoding="utf-8") as file:
                    lines = file.read().split("\n")
            except (OSError, ValueError):
                lines = []
            self._file_current = lines[:1] == [self._fingerprint]
            if self._file_current:
                self._known = {line for line in lines[1:] if len(line) == DIGEST_CHARS}
        return self._known if self._fingerprint is not None else None

    def _rule_set_fingerprint(self) -> str | None:
        parts = [__version__, sys.version, self.redaction, self.rules_file]
        try:
            with os.scandir(_GOVERN) as entries:
                for entry in sorted(entries, key=lambda e: e.name):
                    if entry.is_file():
                        stat = entry.stat()
                        parts.append(f"{entry.name} {stat.st_size} {stat.st_mtime_ns}")
            if self.rules_file:
                with open(os.path.expanduser(self.rules_file), "rb") as pack:
                    parts.append(sha256(pack.read()).hexdigest())
        except OSError:
            return None
        return sha256("\n".join(parts).encode("utf-8", "surrogatepass")).hexdigest()


__all__ = ["FILE_NAME", "CleanIdentifiers"]
