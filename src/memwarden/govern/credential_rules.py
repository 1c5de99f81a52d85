"""Credentials as coding agents write them: headers, command lines, credential files, XML config.

A coding agent pastes what it ran and what it read: ``curl -u user:pass``, ``mysql -pSECRET``,
``--token X``, an ``Authorization`` header, a ``.netrc`` or ``.pgpass`` line, a docker
``config.json``, an XML config element. The name or the command says what the value is, so the
value is redacted whatever it looks like; the name, the command and the user stay readable.

Base64 of ``user:password`` (HTTP Basic, docker's ``"auth"``) is also found wherever it stands:
the redactor's decoding layer checks what a base64 run decodes to (``is_credential_pair``).
"""

from __future__ import annotations

import re

from memwarden.govern.rules import Rule
from memwarden.govern.secret_assignment import QUOTED, SECRET_NAME, UNQUOTED

# A value given on a command line: quoted, or one word that is not another flag or a variable.
_ARG = r"(?:" + QUOTED + r"|(?!-)" + UNQUOTED + ")"
# The rest of a command line before a flag, across "\" line continuations, bounded.
_SAME_COMMAND = r"(?:[^\r\n\\]|\\\r?\n|\\){0,400}?[ \t]"
# Names of long options that carry a secret: --password, --token, --api-key, --client-secret …
# (not --password-stdin or --token-file: those name where the secret is read from).
_FLAG = (
    r"--[a-z0-9-]*?(?:password|passwd|passphrase|pass|token|secret|api[_-]?key|apikey|auth[_-]?key)"
    r"(?:[_-]?id)?(?![\w-])"
)

CREDENTIAL_RULES: tuple[Rule, ...] = (
    Rule(
        "auth_header",
        # Authorization: Bearer …, Basic …, Token …, or a bare value; also a "Bearer <token>"
        # anywhere (with a digit and 16+ characters: "bearer bonds" stays).
        r"authorization[\"']?[ \t]*[:=][ \t]*[\"']?(?:(?:bearer|basic|token|bot|apikey|api-key|sso-key|otr)[ \t]+)?"
        r"(?P<secret>(?![$<{%])(?!(?:bearer|basic|token)(?![\w-]))[^\s\"',;]{6,})"
        r"|bearer[ \t]+(?P<secret_bearer>(?=[^\s\"']*\d)(?![$<{%])[a-z0-9._~+/=-]{16,})",
        "HTTP Authorization header values (Bearer, Basic, Token …) and bearer tokens",
        hints=("authorization", "bearer"),
        ignore_case=True,
        folded=True,
    ),
    Rule(
        "command_credential",
        # curl -u user:pass / --user user:pass (the user stays);
        r"curl\b" + _SAME_COMMAND + r"(?:-u|--user)(?:[ \t]+|=)?(?:"
        r"\"[^\"\s:]*:(?![$%][({A-Za-z_0-9])(?P<secret_curl_dq>[^\"\r\n]+)\""
        r"|'[^'\s:]*:(?![$%][({A-Za-z_0-9])(?P<secret_curl_sq>[^'\r\n]+)'"
        r"|[^\s\"':]*:(?P<secret_curl>" + QUOTED + r"|" + UNQUOTED + "))"
        # mysql -pSECRET (glued: "-p value" asks for the password and names a database);
        r"|(?:mysql|mysqldump|mysqladmin|mariadb|mysqlimport|mysqlsh)\b"
        + _SAME_COMMAND
        + r"-p(?P<secret_mysql>"
        r"\"[^\"\r\n]+\"|'[^'\r\n]+'|[^\s\"'-][^\s]*)"
        # sshpass -p SECRET;
        r"|sshpass\b" + _SAME_COMMAND + r"-p[ \t]*(?P<secret_sshpass>" + _ARG + ")"
        # --password X, --password=X, --token X, --api-key=X …;
        r"|" + _FLAG + r"(?<!stdin)(?<!file)(?<!path)(?<!env)(?:=|[ \t]+)(?P<secret_flag>" + _ARG + ")"
        # Bundler's per-host credentials: BUNDLE_GEMS__EXAMPLE__COM=user:pass.
        r"|bundle_[a-z0-9_]+__[a-z0-9_]+[ \t]*[=:][ \t]*[\"']?(?P<secret_bundle>[^\s\"']{6,})",
        "credentials on command lines: curl -u user:pass, mysql -pSECRET, sshpass -p, --password X, "
        "--token X, Bundler host credentials",
        hints=("curl", "mysql", "mariadb", "sshpass", "--", "bundle_"),
        ignore_case=True,
        folded=True,
    ),
    Rule(
        "credential_file",
        # .netrc: machine HOST login USER password SECRET (one line or several);
        r"machine[ \t]+[^\s]+(?:\s+(?:login|account|port)[ \t]+[^\s]+)*\s+password[ \t]+"
        r"(?P<secret_netrc>[^\s]+)"
        # .pgpass: host:port:database:user:password, the whole line (database and user hold a letter).
        r"|:(?<=[\w*.]:)(?:\d{2,5}|\*):[^\s:]*[a-z_*][^\s:]*:[^\s:]*[a-z_*][^\s:]*:"
        r"(?P<secret_pgpass>[^\s:][^\s]*)(?=[ \t]*(?:\r?\n|$))",
        ".netrc password entries and .pgpass lines (host:port:database:user:password)",
        hints=("machine", ":"),
        ignore_case=True,
        folded=True,
    ),
    Rule(
        "secret_element",
        # <password>…</password>, <apiToken>…</apiToken>, <db:secret attr="x">…</db:secret>;
        # the element's name ends with the word (<tokenizer> names no token);
        r"<(?P<tag>[\w:.-]*?(?:pass(?:word|wd|phrase)?|pwd|secret|token|key|credentials?)s?)(?:[ \t][^<>]*)?>"
        r"\s*(?P<secret>[^<\s](?:[^<]*[^<\s])?)\s*</(?P=tag)[ \t]*>"
        # <add key="ClearTextPassword" value="…"/> (NuGet, .NET appSettings), <param name="token" value="…">.
        r"|(?:key|name)[ \t]*=[ \t]*[\"']" + SECRET_NAME + r"[\"'][ \t]+value[ \t]*=[ \t]*"
        r"(?:\"(?P<secret_dq>[^\"\r\n]+)\"|'(?P<secret_sq>[^'\r\n]+)')",
        "XML elements and key/value attributes naming a password, secret, token or key",
        hints=("</", "value"),
        ignore_case=True,
        folded=True,
    ),
    Rule(
        "webhook_url",
        # Incoming-webhook URLs carry their secret in the path: Microsoft Teams, Discord.
        r"\.webhook\.office\.com/webhookb2/(?P<secret>[^\s\"'<>]{20,})"
        r"|discord(?:app)?\.com/api/webhooks/(?P<secret_discord>\d{5,}/[A-Za-z0-9_-]{20,})",
        "incoming-webhook URLs (Microsoft Teams, Discord): the path after the host",
        hints=("webhook.office.com", "/api/webhooks/"),
    ),
    Rule(
        "putty_private_key",
        # PuTTY's .ppk: the header line to the MAC line (or the end of the text when it is cut).
        r"PuTTY-User-Key-File-\d+:.*?(?:Private-MAC:[ \t]*[0-9a-fA-F]+|$)",
        "PuTTY private key files (.ppk), also cut before the MAC line",
        hints=("putty-user-key-file",),
    ),
    Rule(
        "basic_auth",
        # docker config.json: "auth": "<base64 of user:password>", "identitytoken": "…".
        r"\"(?:auth|identitytoken|registrytoken)\"[ \t]*:[ \t]*\"(?P<secret>[^\"\s]{8,})\"",
        "base64 of user:password (docker config auth, HTTP Basic); any base64 run that decodes to "
        "user:password is redacted under this name by the decoding layer",
        hints=('"auth"', "identitytoken", "registrytoken"),
        ignore_case=True,
        folded=True,
    ),
)

# What a base64 run must decode to for the decoding layer to call it a credential pair: a user
# name (letters, digits and . _ @ + -, possibly empty, as docker allows a token alone) and a
# password of 3+ non-space characters; nothing else.
_PAIR = re.compile(r"[\w.@+-]{0,64}:[^\s:]\S{2,127}")


def is_credential_pair(decoded: str) -> bool:
    """Whether ``decoded`` (what a base64 run decodes to) is a ``user:password`` pair."""
    return _PAIR.fullmatch(decoded) is not None and not decoded.startswith(("http:", "https:"))


__all__ = ["CREDENTIAL_RULES", "is_credential_pair"]
