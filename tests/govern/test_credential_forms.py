"""Credentials as coding agents write them, and values that end where the secret ends (issue 31).

Each case names the exact text to store: the whole value goes (its tail after ``&``, ``;``, ``'``
or a space too, where the format allows them), and the key, the command, the user and the
sentence around it stay.
"""

from __future__ import annotations

import base64
import time
from pathlib import Path

import pytest

from memwarden.govern import Redactor
from memwarden.service import MemoryService

REDACTOR = Redactor()
WHOLE = Redactor(scoped=False)

VALUE_ENDS = [
    ("password=Tr0ub4dor&3", "password=[REDACTED:secret_assignment]"),
    ("password=p@ss;word!x", "password=[REDACTED:secret_assignment]"),
    ("password=it's-s3cret", "password=[REDACTED:secret_assignment]"),
    ("note: password=Tr0ub4dor&3 for staging", "note: password=[REDACTED:secret_assignment] for staging"),
    ("the password=hunter2, then restart", "the password=[REDACTED:secret_assignment], then restart"),
    ("password=hunter2.", "password=[REDACTED:secret_assignment]."),
    # A separator before the next key of a query or connection string ends the value.
    (
        "GET /login?user=bob&password=hunter22&next=/home",
        "GET /login?user=bob&password=[REDACTED:secret_assignment]&next=/home",
    ),
    (
        "Server=db;User Id=sa;Password=p@ss;word!x;Database=app",
        "Server=db;User Id=sa;Password=[REDACTED:secret_assignment];Database=app",
    ),
    # Quoted: to the closing quote (a quote followed by a letter is inside the value).
    ("password='it's-s3cret' and more", "password=[REDACTED:secret_assignment] and more"),
    ('password="Tr0ub4dor&3 with space" ok', "password=[REDACTED:secret_assignment] ok"),
    # A line that is only NAME=value: to the end of the line.
    ("DB_PASSWORD=correct horse battery staple\nPORT=5432", "DB_PASSWORD=[REDACTED:env_secret]\nPORT=5432"),
    ("export DB_PASS=Tr0ub4dor&3 # prod", "export DB_PASS=[REDACTED:env_secret]"),
    ("dbpass: s3cr3tpw", "dbpass: [REDACTED:secret_assignment]"),
]


@pytest.mark.parametrize(("text", "stored"), VALUE_ENDS, ids=[t for t, _ in VALUE_ENDS])
def test_a_value_ends_where_the_secret_ends(text: str, stored: str) -> None:
    assert REDACTOR.redact(text).text == stored
    assert WHOLE.redact(text).text == stored


_PAIR = base64.b64encode(b"deploy:Tr0ub4dor&3").decode()

AGENT_FORMS = [
    ("curl -H 'Authorization: Bearer 9fQk2LmZ7xTq4WbN8vRc' https://api", "Bearer [REDACTED:auth_header]'"),
    (f"curl -H 'Authorization: Basic {_PAIR}' https://api", "Basic [REDACTED:basic_auth]'"),
    (f"the pair {_PAIR} was in the log", "the pair [REDACTED:basic_auth] was"),
    ("curl -u admin:Tr0ub4dor&3 https://x", "curl -u admin:[REDACTED:command_credential] https://x"),
    ("curl -sS \\\n  --user 'admin:Tr0ub4dor&3' https://x", "--user 'admin:[REDACTED:command_credential]'"),
    ("mysql -h db -u root -pTr0ub4dor&3 shop", "-u root -p[REDACTED:command_credential] shop"),
    ("sshpass -p 'Tr0ub4dor&3' ssh ops@bastion", "sshpass -p [REDACTED:command_credential] ssh"),
    ("app login --password Tr0ub4dor&3 --user ops", "--password [REDACTED:command_credential] --user ops"),
    ("app login --token=ghx7Tq2LmZ9 --user ops", "--token=[REDACTED:secret_assignment] --user ops"),
    ("machine github.com login ops password Tr0ub4dor&3", "login ops password [REDACTED:credential_file]"),
    ("db.internal:5432:shop:ops:Tr0ub4dor&3\n", "db.internal:5432:shop:ops:[REDACTED:credential_file]\n"),
    ("<password>Tr0ub4dor&amp;3</password>", "<password>[REDACTED:secret_element]</password>"),
    ('{"auths": {"r.example.com": {"auth": "' + _PAIR + '"}}}', '"auth": "[REDACTED:basic_auth]"'),
    ("https://ops:Tr0ub4dor@git.example.com/x.git", "https://ops:[REDACTED:url_password]@git.example.com"),
    ('System.setProperty("API_TOKEN", "x9Tq2LmZ7");', 'System.setProperty("API_TOKEN", [REDACTED:'),
    ('var apiToken string = "x9Tq2LmZ7"', "var apiToken string = [REDACTED:secret_assignment]"),
    ('API_TOKEN ?= "x9Tq2LmZ7"', "API_TOKEN ?= [REDACTED:"),
    ('$apiToken .= "x9Tq2LmZ7";', "$apiToken .= [REDACTED:secret_assignment];"),
    (
        "AccountName=acme;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;"
        "EndpointSuffix=core.windows.net",
        "AccountKey=[REDACTED:secret_assignment];EndpointSuffix=core.windows.net",
    ),
]


@pytest.mark.parametrize(("text", "kept"), AGENT_FORMS, ids=[t[:40] for t, _ in AGENT_FORMS])
def test_credentials_as_agents_write_them_are_redacted_and_their_context_kept(text: str, kept: str) -> None:
    out = REDACTOR.redact(text)
    assert kept in out.text, out.text
    for secret in ("Tr0ub4dor", "9fQk2LmZ7xTq4WbN8vRc", "x9Tq2LmZ7", "ghx7Tq2LmZ9", _PAIR, "Eby8vdM02x"):
        assert secret not in out.text, out.text
    assert REDACTOR.redact(out.text).text == out.text  # idempotent


LOOK_ALIKES = [
    "docker run -u 1000:1000 image && mysql -p shop",
    "app --password-file ./pw and --token $GH_TOKEN and curl -u $USER:$PASS https://x",
    "the default password policy is strict; at 10:30:00:12 the job ran",
    "<tokenizer>bert</tokenizer> and <password></password>",
    "credentialsId: 'deploy-key' and access_token_url=https://x/oauth",
    "Authorization: Bearer $TOKEN is read from the environment",
    "the bearer bonds matured in 1999",
    "Use a password manager; rotate tokens monthly.",
    'curl -sL --user "$1:$2" "$3" and curl --user neo4j:[PASSWORD] http://db:7474',
    "SUMO_ACCESS_KEY={SumoAccessKey} and password=${DB_PASSWORD}",
]


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_look_alikes_of_credentials_stay(text: str) -> None:
    assert REDACTOR.redact(text).text == text


@pytest.mark.parametrize(
    "text",
    [
        "password=" + "a;" * 20_000,
        "password=" + "x&y=" * 5_000,
        "<password>" + "x" * 40_000,
        "curl " + "-u " * 10_000,
        "machine h " + "login u " * 5_000,
        ":5432:" * 8_000,
        "A" * 30_000 + ".",
        "password='" + "a'b" * 10_000,
    ],
    ids=["semicolons", "pairs", "open-element", "curl-flags", "netrc", "pgpass", "long-run", "quotes"],
)
def test_hostile_input_is_redacted_in_bounded_time(text: str) -> None:
    started = time.process_time()
    REDACTOR.redact(text)
    assert time.process_time() - started < 2.0


def test_no_tail_of_a_password_reaches_the_database_files(service: MemoryService, db_path: Path) -> None:
    stored = service.memories.add("staging: password=Tr0ub4dor&3 and mysql -pp@ss;word!x app").memory
    assert stored.content == (
        "staging: password=[REDACTED:secret_assignment] and mysql -p[REDACTED:command_credential] app"
    )
    raw = db_path.read_bytes() + Path(f"{db_path}-wal").read_bytes()
    for piece in (b"Tr0ub4dor", b"&3", b"p@ss", b";word!x"):
        assert piece not in raw, piece
