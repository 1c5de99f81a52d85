"""Every error a person can cause is one line that names the setting, file or argument and says
what to do (issue 38): a table of mistakes, each run through the real command.

Each row is a mistake a new user makes (a misspelt value, a wrong path, a file that is not a
database, bad input, a usage slip) with what the line must name and the words of its fix. Every
row also checks what holds for all of them: the exit code, nothing on stdout, exactly one line
on stderr, no traceback and no Python exception class name. Mistakes that need a user without
write access (a read-only database, folder or HOME) run as a real process without the root
capabilities that would ignore file permissions (``setpriv``), since CI runs as root.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import stat
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from cli_runner import cli_environment, memwarden_command, run_in_process, run_memwarden

# A Python exception class name, which a person should never have to decode.
EXCEPTION_NAME = re.compile(r"\b[A-Z][A-Za-z]*(Error|Exception)\b|Errno")
ULID_NOT_STORED = "01M8Z46BFM50ZJ2B9C2KYEA14X"


@dataclass(frozen=True)
class Mistake:
    """One error case: argv and extra environment ({tmp} is the test's folder, {id} a stored
    memory's id), what ``prepare`` puts in the folder, and what the line must say."""

    name: str
    argv: tuple[str, ...]
    names: tuple[str, ...]  # the setting, file or argument the line must name
    fix: tuple[str, ...]  # words of what to do
    env: dict[str, str] = field(default_factory=dict)
    code: int = 1
    prepare: Callable[[Path], None] | None = None
    stored: bool = False  # a memory is stored first ({id})


def _junk(tmp: Path) -> None:
    (tmp / "junk.db").write_text("these are my notes, not a database\n", encoding="utf-8")


def _folder(tmp: Path) -> None:
    (tmp / "a-folder").mkdir()


def _notes(name: str) -> Callable[[Path], None]:
    def write(tmp: Path) -> None:
        (tmp / name).write_text("my notes: call the plumber on monday\n", encoding="utf-8")

    return write


def _empty(name: str) -> Callable[[Path], None]:
    def write(tmp: Path) -> None:
        (tmp / name).write_bytes(b"")

    return write


def _pack(pattern: str) -> Callable[[Path], None]:
    def write(tmp: Path) -> None:
        pack = {"rules": [{"name": "ticket", "pattern": pattern}]}
        (tmp / "pack.json").write_text(json.dumps(pack), encoding="utf-8")

    return write


MISTAKES = [
    # Settings: each names the variable and what it takes.
    Mistake("tools", ("list",), ("MEMWARDEN_TOOLS",), ("core, all",), {"MEMWARDEN_TOOLS": "bogus"}),
    Mistake(
        "hook limit", ("list",), ("MEMWARDEN_HOOK_LIMIT",), ("at most 20",), {"MEMWARDEN_HOOK_LIMIT": "100"}
    ),
    Mistake(
        "timeout not a number",
        ("list",),
        ("MEMWARDEN_VECTOR_TIMEOUT_MS",),
        ("whole number",),
        {"MEMWARDEN_VECTOR_TIMEOUT_MS": "abc"},
    ),
    Mistake("audit flag", ("list",), ("MEMWARDEN_AUDIT",), ("true or false",), {"MEMWARDEN_AUDIT": "maybe"}),
    Mistake(
        "language",
        ("list",),
        ("MEMWARDEN_LANGUAGES", "klingon"),
        ("english",),
        {"MEMWARDEN_LANGUAGES": "klingon"},
    ),
    Mistake("sqlite url", ("list",), ("MEMWARDEN_DB",), ("sqlite:///",), {"MEMWARDEN_DB": "sqlite://bad"}),
    Mistake(
        "vector weight",
        ("list",),
        ("MEMWARDEN_SEARCH_VECTOR_WEIGHT",),
        ("from 0 to 1",),
        {"MEMWARDEN_SEARCH_VECTOR_WEIGHT": "2"},
    ),
    Mistake(
        "redaction mode", ("list",), ("MEMWARDEN_REDACTION",), ("enforce",), {"MEMWARDEN_REDACTION": "strict"}
    ),
    Mistake("empty tenant", ("list",), ("MEMWARDEN_TENANT",), ("characters long",), {"MEMWARDEN_TENANT": ""}),
    Mistake(
        "content limit",
        ("list",),
        ("MEMWARDEN_MAX_CONTENT_BYTES",),
        ("at least 64",),
        {"MEMWARDEN_MAX_CONTENT_BYTES": "1"},
    ),
    Mistake(
        "missing rule pack",
        ("add", "a memory"),
        ("MEMWARDEN_REDACTION_RULES", "{tmp}/nope.json"),
        ("fix",),
        {"MEMWARDEN_REDACTION_RULES": "{tmp}/nope.json"},
    ),
    Mistake(
        "broken rule pack",
        ("add", "a memory"),
        ("{tmp}/pack.json", "ticket"),
        ("regular expression",),
        {"MEMWARDEN_REDACTION_RULES": "{tmp}/pack.json"},
        prepare=_pack("(unclosed"),
    ),
    Mistake(
        "ollama without a model",
        ("add", "a memory"),
        ("MEMWARDEN_EMBED_MODEL",),
        ("needs",),
        {"MEMWARDEN_EMBEDDER": "ollama"},
    ),
    Mistake(
        "openai without a url",
        ("add", "a memory"),
        ("MEMWARDEN_EMBED_URL",),
        ("needs",),
        {"MEMWARDEN_EMBEDDER": "openai"},
    ),
    Mistake(
        "missing audit key",
        ("list",),
        ("{tmp}/audit.key",),
        ("memwarden audit keygen",),
        {"MEMWARDEN_AUDIT_KEY_FILE": "{tmp}/audit.key"},
    ),
    # The database path.
    Mistake(
        "missing database",
        ("--db", "{tmp}/typo.db", "search", "x"),
        ("{tmp}/typo.db", "--db"),
        ("memwarden add",),
    ),
    Mistake(
        "folder as database",
        ("--db", "{tmp}/a-folder", "list"),
        ("{tmp}/a-folder",),
        ("database file",),
        prepare=_folder,
    ),
    Mistake(
        "not sqlite, search",
        ("--db", "{tmp}/junk.db", "search", "x"),
        ("{tmp}/junk.db", "not a memwarden database"),
        ("check the path",),
        prepare=_junk,
    ),
    Mistake(
        "not sqlite, add",
        ("--db", "{tmp}/junk.db", "add", "x"),
        ("{tmp}/junk.db",),
        ("check the path",),
        prepare=_junk,
    ),
    Mistake(
        "not sqlite from the environment",
        ("stats",),
        ("{tmp}/junk.db", "MEMWARDEN_DB"),
        ("check the path",),
        {"MEMWARDEN_DB": "{tmp}/junk.db"},
        prepare=_junk,
    ),
    Mistake(
        "a file in the folder path",
        ("--db", "{tmp}/junk.db/inner.db", "add", "x"),
        ("{tmp}/junk.db",),
        ("set --db",),
        prepare=_junk,
    ),
    # Input.
    Mistake("empty content", ("add", ""), ("content",), ("send some text",)),
    Mistake("no content", ("add",), ("content",), ("--help",), code=2),
    Mistake("unknown kind", ("add", "--kind", "bogus", "x"), ("--kind", "bogus"), ("choose from",), code=2),
    Mistake("bad date", ("add", "--occurred-at", "yesterday", "x"), ("occurred_at",), ("2023-05-08",)),
    Mistake("negative ttl", ("add", "--ttl-hours", "-1", "x"), ("ttl_hours",), ("omit it",)),
    Mistake("line break in project", ("add", "--project", "a\nb", "x"), ("project",), ("choose one",)),
    Mistake("empty tag", ("add", "--tag", "", "x"), ("tags",), ("send some text",)),
    Mistake("not an id", ("get", "NOPE"), ("NOPE",), ("memwarden list",), stored=True),
    Mistake(
        "unknown id", ("delete", ULID_NOT_STORED), (ULID_NOT_STORED,), ("memwarden search",), stored=True
    ),
    Mistake("update nothing", ("update", "{id}"), ("update",), ("pass at least one",), stored=True),
    Mistake(
        "stale version",
        ("update", "{id}", "--if-version", "9", "--content", "y"),
        ("version",),
        ("get it again",),
        stored=True,
    ),
    Mistake("limit too high", ("list", "--limit", "1000"), ("limit",), ("between 1 and 100",), stored=True),
    Mistake(
        "token budget", ("search", "--max-tokens", "0", "x"), ("max_tokens",), ("between 1",), stored=True
    ),
    Mistake("empty project", ("stats", "--project", ""), ("project",), ("send some text",), stored=True),
    # Usage.
    Mistake("misspelt command", ("serch", "x"), ("'serch'",), ("did you mean 'search'",), code=2),
    Mistake("unknown flag", ("backup", "--keep", "1"), ("--keep",), ("--help",), code=2),
    Mistake("unknown hook", ("hook", "bogus"), ("bogus",), ("choose from",), code=2),
    Mistake(
        "unknown flag of a sub-command",
        ("audit", "export", "--out", "{tmp}/audit.jsonl", "--bogus"),
        ("--bogus", "memwarden audit export:"),
        ("`memwarden audit export --help`",),
        code=2,
    ),
    # Serving, files in and out.
    Mistake("address without port", ("serve", "--http", "localhost"), ("--http",), ("127.0.0.1:8765",)),
    Mistake(
        "open address without token",
        ("serve", "--http", "0.0.0.0:8799"),
        ("0.0.0.0",),
        ("MEMWARDEN_HTTP_TOKEN",),
    ),
    Mistake(
        "export into a missing folder",
        ("export", "--out", "{tmp}/no/such/out.json"),
        ("{tmp}/no/such",),
        ("mkdir -p",),
        stored=True,
    ),
    Mistake(
        "restore a missing backup",
        ("restore", "{tmp}/nope.db", "--yes"),
        ("{tmp}/nope.db",),
        ("backup --list",),
    ),
    Mistake(
        "bundle into a missing folder", ("bundle", "--out", "{tmp}/no/x.mcpb"), ("{tmp}/no",), ("create it",)
    ),
    Mistake("vault without folders", ("vault", "sync"), ("MEMWARDEN_VAULT_DIRS",), ("set",)),
    Mistake(
        "vault folder is a file",
        ("vault", "sync"),
        ("{tmp}/junk.db", "not a folder"),
        ("set MEMWARDEN_VAULT_DIRS to a folder",),
        {"MEMWARDEN_VAULT_DIRS": "{tmp}/junk.db"},
        prepare=_junk,
    ),
    Mistake(
        "audit export under a file",
        ("audit", "export", "--out", "{tmp}/junk.db/audit.jsonl"),
        ("{tmp}/junk.db", "not a folder"),
        ("choose another --out",),
        prepare=_junk,
    ),
    # Files read and written by import, eval, backup, restore and the audit commands (U10).
    Mistake(
        "import a missing file",
        ("import", "{tmp}/nope.json"),
        ("{tmp}/nope.json", "no such file"),
        ("check the name", "memwarden export"),
    ),
    Mistake(
        "import a folder",
        ("import", "{tmp}/a-folder"),
        ("{tmp}/a-folder",),
        ("give the path of the file",),
        prepare=_folder,
    ),
    Mistake(
        "import a file that is not JSON",
        ("import", "{tmp}/notes.json"),
        ("{tmp}/notes.json", "not valid JSON"),
        ("supported format",),
        prepare=_notes("notes.json"),
    ),
    Mistake(
        "eval a missing file",
        ("eval", "{tmp}/nope.jsonl"),
        ("{tmp}/nope.jsonl", "no such file"),
        ("check the path",),
    ),
    Mistake(
        "eval a file that is not JSON",
        ("eval", "{tmp}/notes.jsonl"),
        ("{tmp}/notes.jsonl", "line 1"),
        ("one JSON object a line",),
        prepare=_notes("notes.jsonl"),
    ),
    Mistake(
        "eval an empty file",
        ("eval", "{tmp}/empty.jsonl"),
        ("{tmp}/empty.jsonl", "no labelled queries"),
        ("one JSON object a line",),
        prepare=_empty("empty.jsonl"),
    ),
    Mistake(
        "backup folder is a file",
        ("backup",),
        ("{tmp}/junk.db", "MEMWARDEN_BACKUP_DIR"),
        ("a folder you can write",),
        {"MEMWARDEN_BACKUP_DIR": "{tmp}/junk.db"},
        prepare=_junk,
    ),
    Mistake(
        "backup out under a file",
        ("backup", "--out", "{tmp}/junk.db/copy.db"),
        ("{tmp}/junk.db", "not a folder"),
        ("choose another --out",),
        prepare=_junk,
    ),
    Mistake(
        "restore a file that is not a backup",
        ("restore", "{tmp}/junk.db"),
        ("{tmp}/junk.db", "not a usable backup"),
        ("backup --list",),
        prepare=_junk,
    ),
    Mistake(
        "audit key under a file",
        ("audit", "keygen", "--out", "{tmp}/junk.db/chain.key"),
        ("{tmp}/junk.db",),
        ("choose another path",),
        prepare=_junk,
    ),
    Mistake(
        "prune before a bad date",
        ("audit", "prune", "--before", "soon"),
        ("--before 'soon'",),
        ("2026-01-31",),
    ),
    Mistake(
        "audit export from a bad date",
        ("audit", "export", "--from", "last week", "--out", "{tmp}/audit.jsonl"),
        ("--from 'last week'",),
        ("2026-01-31",),
    ),
    Mistake(
        "missing anchor file",
        ("audit", "verify", "--anchor-file", "{tmp}/anchor.json"),
        ("{tmp}/anchor.json",),
        ("check the path", "--anchor SEQ:HASH"),
    ),
    Mistake("malformed anchor", ("audit", "verify", "--anchor", "head"), ("--anchor",), ("SEQ:HASH",)),
    Mistake("dashboard port out of range", ("ui", "--port", "70000"), ("--port 70000",), ("1-65535",)),
    Mistake(
        "health of a server address without a scheme",
        ("health", "--url", "localhost:8765"),
        ("--url localhost:8765",),
        ("http://127.0.0.1:8765",),
    ),
]


def _fill(text: str, tmp: Path, memory_id: str = "") -> str:
    return text.replace("{tmp}", str(tmp)).replace("{id}", memory_id)


def assert_one_line(stdout: str, stderr: str, code: int, mistake: Mistake, tmp: Path) -> None:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, f"{mistake.name}: not one line: {stderr!r}"
    line = lines[0]
    assert "Traceback" not in stderr and not EXCEPTION_NAME.search(line), f"{mistake.name}: {line}"
    assert code == mistake.code, f"{mistake.name}: exit {code}: {line}"
    assert stdout == "", f"{mistake.name}: stdout {stdout!r}"
    for needed in (*mistake.names, *mistake.fix):
        assert _fill(needed, tmp) in line, f"{mistake.name}: {needed!r} not in {line!r}"


def test_the_table_holds_at_least_forty_different_mistakes() -> None:
    assert len(MISTAKES) >= 40 and len({m.name for m in MISTAKES}) == len(MISTAKES)


@pytest.mark.parametrize("mistake", MISTAKES, ids=[m.name for m in MISTAKES])
def test_a_mistake_is_one_line_naming_it_and_the_fix(mistake: Mistake, tmp_path: Path) -> None:
    env = cli_environment(tmp_path / "m.db", tmp_path, HOME=str(tmp_path))
    memory_id = ""
    # A database with one memory, so a mistake is not hidden behind "no database" (rows about
    # the database path bring their own).
    if mistake.stored or ("--db" not in mistake.argv and "MEMWARDEN_DB" not in mistake.env):
        added = run_in_process(env, "add", "a memory to find", "--json")
        assert added.returncode == 0, added.stderr
        memory_id = json.loads(added.stdout)["id"]
    if mistake.prepare is not None:
        mistake.prepare(tmp_path)
    env.update({k: _fill(v, tmp_path) for k, v in mistake.env.items()})
    argv = [_fill(arg, tmp_path, memory_id) for arg in mistake.argv]
    # serve as a process: in this one, its log handlers would outlive the call.
    done = (run_memwarden if argv[:1] == ["serve"] else run_in_process)(env, *argv)
    assert_one_line(done.stdout, done.stderr, done.returncode, mistake, tmp_path)


def test_a_port_in_use_is_one_line_with_another_port(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        mistake = Mistake("port in use", (), (str(port),), ("choose another port",))
        done = run_memwarden(
            cli_environment(tmp_path / "m.db", tmp_path), "serve", "--http", f"127.0.0.1:{port}"
        )
    assert_one_line(done.stdout, done.stderr, done.returncode, mistake, tmp_path)


def test_health_of_a_server_nobody_runs_is_one_line_naming_the_address(tmp_path: Path) -> None:
    with socket.socket() as bound:  # bound, never listening: a connection is refused
        bound.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{bound.getsockname()[1]}"
        mistake = Mistake("nobody answers", (), (f"{url}/healthz", "refused"), ("server is running",))
        done = run_in_process(cli_environment(tmp_path / "m.db", tmp_path), "health", "--url", url)
    assert_one_line(done.stdout, done.stderr, done.returncode, mistake, tmp_path)
    assert not (tmp_path / "m.db").exists()  # probing a server needs no local database


# Without these capabilities root obeys file permissions like any user.
_DROP = "-dac_override,-dac_read_search,-fowner"


def _as_a_user(argv: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return argv
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.fail("these cases need setpriv (util-linux) to run without root's file capabilities")
    return [setpriv, f"--bounding-set={_DROP}", f"--inh-caps={_DROP}", *argv]


def _read_only(path: Path) -> None:
    path.chmod(stat.S_IRUSR | stat.S_IXUSR if path.is_dir() else stat.S_IRUSR)


PERMISSION_MISTAKES = [
    Mistake("read-only database, search", ("search", "memory"), ("{tmp}/m.db", "read-only"), ("chmod u+w",)),
    Mistake("read-only database, add", ("add", "another"), ("{tmp}/m.db", "read-only"), ("chmod u+w",)),
    Mistake(
        "read-only database, restore",
        ("restore", "{tmp}/backup.db", "--yes"),
        ("{tmp}/m.db", "read-only"),
        ("chmod u+w",),
    ),
    Mistake(
        "new database in a read-only folder",
        ("--db", "{tmp}/locked/sub/new.db", "add", "x"),
        ("{tmp}/locked/sub/new.db", "{tmp}/locked"),
        ("set --db",),
    ),
    Mistake(
        "unwritable home",
        ("add", "x"),
        ("{tmp}/locked", "the default location"),
        ("make that folder writable",),
    ),
]


@pytest.mark.parametrize("mistake", PERMISSION_MISTAKES, ids=[m.name for m in PERMISSION_MISTAKES])
def test_a_permission_mistake_is_one_line_naming_the_path(mistake: Mistake, tmp_path: Path) -> None:
    env = cli_environment(tmp_path / "m.db", tmp_path)
    assert run_in_process(env, "add", "a memory to find").returncode == 0
    locked = tmp_path / "locked"
    locked.mkdir()
    if mistake.name == "unwritable home":
        env.pop("MEMWARDEN_DB")
        env.update(HOME=str(locked))
        env.pop("XDG_DATA_HOME", None)
    _read_only(locked)
    _read_only(tmp_path / "m.db")
    tmp_path.chmod(0o755)  # the user may enter it (the database's folder stays writable: root owns it)
    argv = [_fill(arg, tmp_path) for arg in mistake.argv]
    try:
        done = subprocess.run(
            _as_a_user(memwarden_command(*argv)), env=env, capture_output=True, text=True, timeout=120
        )
    finally:
        locked.chmod(0o700)
        (tmp_path / "m.db").chmod(0o600)
    assert_one_line(done.stdout, done.stderr, done.returncode, mistake, tmp_path)
    assert not (tmp_path / "locked" / "sub").exists()


def test_a_read_only_database_can_still_be_backed_up(tmp_path: Path) -> None:
    """A backup only reads the database (its audit row is best effort, said as a warning): it is
    how a database this user cannot write is saved, so it is not refused like a write."""
    env = cli_environment(tmp_path / "m.db", tmp_path)
    assert run_in_process(env, "add", "a memory to keep").returncode == 0
    _read_only(tmp_path / "m.db")
    tmp_path.chmod(0o755)
    try:
        done = subprocess.run(
            _as_a_user(memwarden_command("backup", "--out", str(tmp_path / "copy.db"))),
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        (tmp_path / "m.db").chmod(0o600)
    assert done.returncode == 0, done.stderr
    assert "verified (1 memories" in done.stdout + done.stderr
    assert "not recorded in the audit log" in done.stderr and "Traceback" not in done.stderr


def _unreadable(name: str) -> Callable[[Path], None]:
    def write(tmp: Path) -> None:
        (tmp / name).write_text('{"query": "plumber", "expect": "plumber"}\n', encoding="utf-8")
        (tmp / name).chmod(0)

    return write


# A writable database, and a file or folder this user may not read or write.
ACCESS_MISTAKES = [
    Mistake(
        "backup into a read-only folder",
        ("backup", "--out", "{tmp}/locked/copy.db"),
        ("{tmp}/locked",),
        ("make it writable", "--out"),
    ),
    Mistake(
        "backup folder not writable",
        ("backup",),
        ("{tmp}/locked", "MEMWARDEN_BACKUP_DIR"),
        ("make it writable",),
        {"MEMWARDEN_BACKUP_DIR": "{tmp}/locked/backups"},
    ),
    Mistake(
        "export into a read-only folder",
        ("export", "--out", "{tmp}/locked/memories.json"),
        ("{tmp}/locked", "permission denied"),
        ("chmod u+w", "--out"),
    ),
    Mistake(
        "eval an unreadable file",
        ("eval", "{tmp}/queries.jsonl"),
        ("{tmp}/queries.jsonl", "permission denied"),
        ("chmod u+r",),
        prepare=_unreadable("queries.jsonl"),
    ),
    Mistake(
        "import an unreadable file",
        ("import", "{tmp}/export.json"),
        ("{tmp}/export.json", "permission denied"),
        ("chmod u+r",),
        prepare=_unreadable("export.json"),
    ),
]


@pytest.mark.parametrize("mistake", ACCESS_MISTAKES, ids=[m.name for m in ACCESS_MISTAKES])
def test_a_file_or_folder_without_access_is_one_line_naming_it(mistake: Mistake, tmp_path: Path) -> None:
    env = cli_environment(tmp_path / "m.db", tmp_path)
    assert run_in_process(env, "add", "a memory to find").returncode == 0
    (tmp_path / "locked").mkdir()
    _read_only(tmp_path / "locked")
    if mistake.prepare is not None:
        mistake.prepare(tmp_path)
    env.update({k: _fill(v, tmp_path) for k, v in mistake.env.items()})
    tmp_path.chmod(0o755)
    argv = [_fill(arg, tmp_path) for arg in mistake.argv]
    try:
        done = subprocess.run(
            _as_a_user(memwarden_command(*argv)), env=env, capture_output=True, text=True, timeout=120
        )
    finally:
        (tmp_path / "locked").chmod(0o700)
    assert_one_line(done.stdout, done.stderr, done.returncode, mistake, tmp_path)
    assert list((tmp_path / "locked").iterdir()) == []


@pytest.mark.parametrize("transport", ["memory", "http"])
def test_a_read_only_database_reached_through_mcp_fails_each_call_with_one_clear_line(
    transport: str, tmp_path: Path
) -> None:
    """Past the CLI's own check: a real MCP client session, in memory and over Streamable HTTP,
    on a database this user may only read (tests/read_only_session.py, run without root's file
    capabilities)."""
    import sys

    database = tmp_path / "m.db"
    assert run_in_process(cli_environment(database, tmp_path), "add", "a memory to find").returncode == 0
    before = database.read_bytes()
    _read_only(database)
    tmp_path.chmod(0o755)
    helper = Path(__file__).parents[1] / "read_only_session.py"
    env = {**os.environ, "PYTHONPATH": str(helper.parent)}
    try:
        done = subprocess.run(
            _as_a_user([sys.executable, str(helper), str(database), str(tmp_path), transport]),
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        database.chmod(0o600)
    assert done.returncode == 0, done.stderr
    errors = json.loads(done.stdout)
    for tool in ("memory_add", "memory_search"):
        line = errors[tool]
        assert "\n" not in line and not EXCEPTION_NAME.search(line), f"{tool}: {line}"
        assert line.count(str(database)) == 1 and line.count(" is read-only") == 1, f"{tool}: {line}"
        assert line.count("make the file writable") == 1, f"{tool}: {line}"
    assert "MEMWARDEN_AUDIT_READS_FAIL_OPEN=true" in errors["memory_search"]
    assert "MEMWARDEN_AUDIT_READS_FAIL_OPEN" not in errors["memory_add"]
    assert "not_found" in errors["memory_delete"]
    # The failed add's own row fails for the reason its error already gave: no second line.
    assert "could not record a failed add" not in done.stderr, done.stderr
    assert database.read_bytes() == before
