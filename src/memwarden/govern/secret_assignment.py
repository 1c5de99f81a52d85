"""Secrets named by their key: ``NAME=value`` in the many syntaxes configs, shells and code use.

Two built-in rules live here:

- ``secret_assignment``: a name saying password, pass, pwd, secret, token, credential or one of
  the ``*_key`` words, then any assignment operator (``=``, ``:``, ``=>``, ``:=``, Make's
  ``::=`` / ``:::=`` / ``?=`` / ``+=``, PHP's ``.=``, a typed declaration such as Go's
  ``var apiToken string = …``), a quoted subscript (``config["password"] = …``) or a call naming
  the value (``define('DB_PASSWORD', …)``, ``System.setProperty("API_TOKEN", …)``);
- ``env_secret``: shell and environment forms (``export DB_PASS=…``, ``$env:KEY=…``,
  ``STRIPE_KEY=…``), where a line that is only ``NAME=value`` keeps its value to the end of
  the line (dotenv files allow spaces in unquoted values).

Where a value ends is the hard part: a password may hold ``&``, ``;``, ``'`` and ``,``
(``password=Tr0ub4dor&3``, ``password=p@ss;word!x``, ``password=it's-s3cret``). An unquoted value
runs to whitespace; a separator (``& ; ,``) inside it ends it only when the next key of a query
string or connection string follows (``&user=``, ``;Database=``), and closing punctuation at its
very end (``.`` ``,`` ``:`` ``)`` a quote, not ``!``) is the sentence's, not the value's. A quoted value runs to
its closing quote: a quote followed by a letter or digit (``'it's-s3cret'``) is inside it.
"""

from __future__ import annotations

# A name holding one of the words of ``secret_assignment`` (calls and subscripts name the value).
SECRET_NAME = r"[\w.-]*?(?:pass|pwd|secret|token|key|credential)[\w.-]*"
# Quoted values. A closing quote is one not followed by a letter or digit.
_DQ = r"\"(?:[^\"\\\r\n]|\\[^\r\n])+\""
_SQ = r"'(?:[^'\r\n]|'(?=[A-Za-z0-9]))+'"
_BQ = r"`[^`\r\n]+`"
QUOTED = f"{_DQ}|{_SQ}|{_BQ}"
# An unquoted value: not a variable or expansion ($VAR, ${VAR}, $(cmd), $1, %VAR%), running to
# whitespace, a double quote, a backtick, an escaped line break (\n inside a JSON string) or
# a closing tag; "& ; ," end it before another key's "name="; it does not end on punctuation.
_UNQ_TAIL = (
    r"(?:[^\s\"`,;&<\\]|\\(?![nrt])|<(?!/)|[,;&](?![A-Za-z_][\w.-]*=)(?=\S))*"
    r"(?<![.,;:)\]}>'\"])"
)
# Not a placeholder either: [PASSWORD], {ApiKey} (a bracketed word standing for the value).
_PLACEHOLDER = r"(?:\[[^\[\]\s]*\]|\{[^{}\s]*\})(?![^\s\"'`,;&])"
UNQUOTED = r"(?![$%][({A-Za-z_0-9])(?!" + _PLACEHOLDER + r")[^\s\"'`,;&<\\]" + _UNQ_TAIL
# A value in code ("=>" in PHP, Ruby and Perl, Go's ":=", a subscript): quoted, or unquoted and
# looking like a secret (a digit or symbol, 6+ characters), not a variable ($value), a call
# (hash_password(x)) or an expression (token.trim()).
_CODE_VALUE = r"[^\s\"'`,;()\[\]{}<>]"
CODE_SECRET = (
    QUOTED + r"|(?![$@])(?=" + _CODE_VALUE + r"*[\d!#$%&*+/=?@^~-])" + _CODE_VALUE + r"{6,}+(?![(\[])"
)
# After ":" (YAML, JSON, HTTP headers) an unquoted value must look like a secret: 6+ characters
# with a digit or symbol, or 16+ characters.
_COLON_SECRET = (
    r"(?=[^\s\"'`]{6})(?=[^\s\"'`]*?[\d_/+=!@#$%^&*~-])" + UNQUOTED + r"|(?=[^\s\"'`,;]{16})" + UNQUOTED
)
# A quoted argument that looks like a secret: no whitespace, 6+ characters, a digit or symbol.
_SECRET_ARG = r"(?P<q>[\"'])(?=[^\"'\s]*[\d!#$%&*+/=?@^~-])[^\"'\s]{6,}(?P=q)"
# Words that end in "pass" and name no password.
_NOT_PASS = "".join(
    f"(?<!{w})" for w in ("bypass", "compass", "surpass", "trespass", "overpass", "underpass", "impass")
)

# secret_assignment starts with one of these words, written in lower case: the rule searches the
# case-folded text (``Rule.folded``). They are grouped by first character, in their order within
# each group: at any position only the words starting with its character can match, so the first
# of them to match is the one a plain list would take, and the engine tests one literal per
# first character at each position instead of one per word (most letters of prose are in the set).
# Every alternative starts with a plain character (no group, no class): ``re`` then knows the
# characters a match can start with and skips, in C, every other position of the text.
_SIGNATURE = r"(?:sig|signature|x-amz-signature|x-goog-signature)(?==)"
_WORDS = (
    r"d(?:efine\()"
    r"|s(?:etenv\(|ecret|(?:igning|hared|as)[_-]?key)"
    r"|\((?=[ \t]*[\"']" + SECRET_NAME + r"[\"'][ \t]*,)"
    r"|p(?:assword|asswd|assphrase|ass" + _NOT_PASS + r"|wd|w(?<=[_.-]pw)(?![a-z])|rivate[_-]?key)"
    r"|t(?:oken)"
    r"|c(?:redentials?|onsumer[_-]?key)"
    r"|a(?:pi[_-]?key|pikey|(?:ccess|ccount)[_-]?key)"
    r"|l(?:icense)[_-]?key|e(?:ncryption)[_-]?key|m(?:aster)[_-]?key|w(?:ebhook)[_-]?key"
    # the signature of a signed URL: Azure SAS "&sig=", S3 and GCS "X-Amz-Signature=".
    r"|\?" + _SIGNATURE + r"|&" + _SIGNATURE
)
# Names that say where a secret is or what it is called, not what it is: credentialsId,
# access_token_url, TokenFile, SECRET_NAME, passwordVariable (written folded, lower case).
_NOT_VALUE_NAME = "".join(
    f"(?<!{w})"
    for w in (
        "id",
        "ids",
        "name",
        "url",
        "uri",
        "file",
        "path",
        "type",
        "variable",
        "field",
        "length",
        "ref",
        "header",
    )
)
# A type between the name and "=": Go's "var apiToken string = …", Rust's "&str", "[]byte".
_TYPE = r"(?:[ \t]+(?:string|str|&str|&'static str|\[\]byte|char\s*\*))?"
SECRET_ASSIGNMENT = (
    r"(?:" + _WORDS + r")(?:"
    # define('DB_PASSWORD', '…') (PHP), os.Setenv("API_TOKEN", "…") (Go): any quoted value;
    rf"(?<=define\(|setenv\()[ \t]*[\"']{SECRET_NAME}[\"'][ \t]*,[ \t]*(?P<secret_arg>{QUOTED})"
    # any other call naming the value, System.setProperty("API_TOKEN", "…"): a value like a secret;
    rf"|(?<=\()[ \t]*[\"']{SECRET_NAME}[\"'][ \t]*,[ \t]*(?P<secret_call>{_SECRET_ARG})"
    # a quoted name in a subscript: config["password"] = …, os.environ['DB_PASSWORD'] = …;
    rf"|[\w.-]*[\"']\][ \t]*=(?![=>])[ \t]*(?P<secret_sub>{CODE_SECRET})"
    # NAME=value and the other operators ("==" and "=>" are not "=": the value is what follows
    # the operator, never a piece of it). With ":" the value must look like a secret.
    r"|[\w.-]*" + _NOT_VALUE_NAME + r"[\"']?" + _TYPE + r"[ \t]*"
    r"(?:=(?![=>])[ \t]*(?P<secret_eq>" + QUOTED + "|" + UNQUOTED + r")"
    r"|(?:=>|:{1,3}=|[?+.]=)[ \t]*(?P<secret_op>" + CODE_SECRET + ")"
    r"|:[ \t]*(?P<secret_colon>" + _DQ + "|" + _SQ + "|" + _COLON_SECRET + ")))"
)
SECRET_ASSIGNMENT_HINTS = (
    "pass",
    "pwd",
    "_pw",
    ".pw",
    "-pw",
    "secret",
    "key",
    "token",
    "credential",
    "sig=",
    "signature=",
)
# Every word of ``_WORDS`` holds one of the hints, starting at most this many characters after the
# word does ("encryption_key": "key" 11 after the "e"; "?x-goog-signature=": 8), or one after it
# ("_pw": the word is the "pw"); the three words that may hold none ("(", "define(", "setenv(")
# end where ``SECRET_ASSIGNMENT_ANCHORS`` matches. A match starts with a word, so it starts in one of those
# stretches (``Rule.near``; tests/govern/test_redaction_scopes.py compares the search from them
# with the search of the whole text).
SECRET_ASSIGNMENT_LEAD = 16
SECRET_ASSIGNMENT_ANCHORS = r"\((?:(?=[ \t]*[\"'])|(?<=define\()|(?<=setenv\())"

# What counts as "part of the same word" next to a value: ASCII letters, digits and underscore.
_B = "0-9A-Za-z_"
_ENV_NAME = r"[A-Za-z_][A-Za-z0-9_]*?(?:pass|pwd|secret|token|key|credentials?)[A-Za-z0-9_]*"
_ENV_WORDS = r"(?:PASS|PWD|SECRET|TOKEN|KEY|CREDENTIALS?)"
ENV_SECRET = (
    # Every alternative starts with one of these characters (``re`` skips, in C, to the places
    # holding one, where a leading lookbehind was tried at every position of the text); what the
    # first character was is read back with a lookbehind ("ſ" is an "s" to the case-blind words).
    r"[ \t$A-Zesſ](?:"
    # A line that is only NAME=value (upper-case name, "export " allowed): the value runs to the
    # end of the line. Each branch reads up to the name's first letter.
    r"(?<![^\n].)(?:(?<=[ \t])[ \t]*(?:export[ \t]+)?[A-Z]|(?<=e)xport[ \t]+[A-Z]|(?<=[A-Z]))"
    r"[A-Z0-9_]*?"
    + _ENV_WORDS
    + "[A-Z0-9_]*"
    + _NOT_VALUE_NAME.upper()
    + r"[ \t]*=[ \t]*(?P<secret_line>(?![\"'$%])(?!"
    + _PLACEHOLDER
    + r")[^\s][^\r\n]*?)[ \t]*(?=\r?\n|$)"
    rf"|(?:(?:(?<=[eE])(?i:xport|nv)|(?<=[sSſ])(?i:etx?)|(?<=\$)(?i:env:))"
    rf"(?<![{_B}]export)(?<![{_B}]set)(?<![{_B}]setx)(?<![{_B}]env)"
    rf"[ \t]*(?<=[ \t:])(?i:{_ENV_NAME})"
    rf"|(?<=[A-Z])(?<![{_B}].)[A-Z0-9_-]*?" + _ENV_WORDS + "[A-Z0-9_]*" + _NOT_VALUE_NAME.upper() + ")"
    r"[\"']?[ \t]*[=:][ \t]*(?P<secret>" + QUOTED + "|" + UNQUOTED + "))"
)
# The shell forms name their command; the upper-case form's name joins words with "_" (a plain
# PASSWORD= or TOKEN= is secret_assignment's).
ENV_SECRET_HINTS = (
    "export",
    "set",
    "$env:",
    "_pass",
    "_pwd",
    "_secret",
    "_token",
    "_key",
    "_credential",
    "secret_",
    "token_",
    "pass_",
    "key_",
)
