"""The built-in redaction rules, and the optional ones a pack may enable.

Every rule runs on normalised text (``govern.normalization``: NFKC, invisible characters removed,
every decimal digit ASCII), so patterns are written for ASCII digits and plain punctuation.
Word boundaries are ASCII (``_B``): a number glued to Chinese, Japanese, Thai or any other
script written without spaces ("手机号是13800138000，请回电") is still a whole number.
"""

from __future__ import annotations

from memwarden.govern.credential_rules import CREDENTIAL_RULES
from memwarden.govern.pii_rules import NOSPACE_CHARS as NOSPACE_CHARS  # the redactor imports it here
from memwarden.govern.pii_rules import PII_RULES
from memwarden.govern.rules import Rule
from memwarden.govern.secret_assignment import (
    ENV_SECRET,
    ENV_SECRET_HINTS,
    SECRET_ASSIGNMENT,
    SECRET_ASSIGNMENT_ANCHORS,
    SECRET_ASSIGNMENT_HINTS,
    SECRET_ASSIGNMENT_LEAD,
)
from memwarden.govern.secret_tokens import TOKEN_RULES

# What counts as "part of the same word" next to a value: ASCII letters, digits and underscore.
_B = "0-9A-Za-z_"

# Order matters only between rules that match the very same text: the first one names it.
BUILTIN_RULES: tuple[Rule, ...] = (
    Rule(
        "private_key",
        r"-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----"
        r"(?:.*?-----END[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s:,.-]*)",
        "PEM / OpenSSH / PGP private keys, also when the END line is missing",
        hints=("private key",),
    ),
    Rule(
        "jwt",
        rf"eyJ(?<![{_B}-]eyJ)[A-Za-z0-9_-]{{5,}}\.eyJ[A-Za-z0-9_-]{{5,}}(?:\.[A-Za-z0-9_-]*)?(?![{_B}-])",
        "JSON Web Tokens, unsigned ones without the last dot too (header must decode to JSON with an alg)",
        validator="jwt",
        hints=("eyj",),
    ),
    Rule(
        "aws_access_key",
        r"A(?:KIA|SIA|BIA|CCA|GPA|IDA|IPA|NPA|NVA|ROA|PKA|SCA)(?<![A-Za-z0-9]....)[A-Z0-9]{16}(?![A-Za-z0-9])",
        "AWS access key ids",
        hints=(
            "akia",
            "asia",
            "abia",
            "acca",
            "agpa",
            "aida",
            "aipa",
            "anpa",
            "anva",
            "aroa",
            "apka",
            "asca",
        ),
    ),
    Rule(
        "aws_secret_key",
        r"aws[ _-]?secret[ _-]?(?:access[ _-]?)?key\W{0,5}(?P<secret>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])",
        "AWS secret access keys next to their name",
        hints=("secret",),
        ignore_case=True,
        folded=True,
    ),
    Rule(
        "github_token",
        rf"g(?<![{_B}]g)(?:h[pousr]_[A-Za-z0-9]{{36,255}}|ithub_pat_[A-Za-z0-9_]{{22,255}})(?![{_B}])",
        "GitHub personal, OAuth, app and fine-grained tokens",
        hints=("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    ),
    Rule(
        "gitlab_token",
        rf"gl(?<![{_B}]gl)(?:pat|dt|rt|ptt|soat|ft|imt|agent|cbt|oas|ffct)-[A-Za-z0-9_-]{{20,300}}(?![{_B}-])",
        "GitLab personal, deploy, runner, trigger, feed and OAuth tokens (glpat-…, gldt-…)",
        hints=(
            "glpat-",
            "gldt-",
            "glrt-",
            "glptt-",
            "glsoat-",
            "glft-",
            "glimt-",
            "glagent-",
            "glcbt-",
            "gloas-",
            "glffct-",
        ),
    ),
    Rule(
        "slack_token",
        rf"(?P<secret_token>x(?<![{_B}]x)(?:ox[abposre](?:\.xox[abposre])?|app)-\d{{1,13}}"
        rf"(?:-[A-Za-z0-9]{{2,64}}){{2,4}})(?![{_B}-])"
        r"|hooks\.slack\.com/(?:services|workflows|triggers)/(?P<secret>[A-Za-z0-9+/]{20,})",
        "Slack bot, user, app and config tokens (xoxb-…, xoxp-…, xapp-…) and webhook URLs",
        hints=("xox", "xapp-", "hooks.slack.com"),
    ),
    Rule(
        "stripe_key",
        rf"(?:sk|rk)(?<![{_B}]..)_(?:live|test)_[A-Za-z0-9]{{16,247}}(?![{_B}])|whsec_[A-Za-z0-9]{{24,}}(?![{_B}])",
        "Stripe secret and restricted keys (sk_live_…, rk_live_…) and webhook secrets",
        hints=("_live_", "_test_", "whsec_"),
    ),
    Rule(
        "google_api_key",
        rf"AIza(?<![{_B}]....)[0-9A-Za-z_-]{{35}}(?![{_B}-])|GOCSPX(?<![{_B}]......)-[0-9A-Za-z_-]{{28}}(?![{_B}-])",
        "Google API keys (AIza + 35 characters) and OAuth client secrets (GOCSPX-…)",
        hints=("aiza", "gocspx-"),
    ),
    Rule(
        "npm_token",
        rf"npm(?<![{_B}]npm)_[A-Za-z0-9]{{36}}(?![{_B}])",
        "npm access tokens (npm_ + 36 letters and digits)",
        validator="mixed_case_digits",
        hints=("npm_",),
    ),
    Rule(
        "pypi_token",
        rf"pypi(?<![{_B}]pypi)-[A-Za-z0-9_-]{{60,}}(?![{_B}-])",
        "PyPI and TestPyPI API tokens (macaroons naming pypi.org)",
        validator="pypi_macaroon",
        hints=("pypi-",),
    ),
    Rule(
        "openai_key",
        rf"sk-(?<![{_B}-]sk-)(?:proj-|svcacct-|admin-|ant-(?:api\d\d-)?)?[A-Za-z0-9_-]{{20,}}(?![{_B}-])",
        "OpenAI-style secret keys (sk-…, sk-proj-…, sk-ant-…) with mixed case and digits",
        validator="mixed_case_digits",
        hints=("sk-",),
    ),
    Rule(
        "url_password",
        # The password ends at the last "@" before the host. One without "/", "?" or "#" is tried
        # first (so "?email=x@y" in the query stays out of it); one holding them ends at the first
        # "@", and must not start like a port ("host:8080/a@b" is a path, not a password).
        r"://[^\s:/?#@\[\]]*:(?P<secret>[^\s/?#]+(?=@[^\s@/?#])|(?!\d{1,5}[/?#])[^\s@]+(?=@[^\s@/?#]))@",
        "the password in URLs and URL-style connection strings (user and host stay)",
        hints=("://",),
    ),
    *TOKEN_RULES,  # vendor token formats (govern/secret_tokens.py)
    Rule(
        "env_secret",
        ENV_SECRET,
        "environment-style secrets: export DB_PASS=…, set API_TOKEN=…, $env:KEY=…, STRIPE_KEY=…, "
        "SECRET_KEY: … (a variable name saying pass, pwd, secret, token, key or credential); a line "
        "that is only NAME=value keeps its value to the end of the line",
        hints=ENV_SECRET_HINTS,
    ),
    Rule(
        "secret_assignment",
        SECRET_ASSIGNMENT,
        "NAME=value / NAME: value / NAME => value / NAME := value / NAME ?= value / define('NAME', value) "
        '/ setProperty("NAME", value) where NAME says password, pass, secret, token, key or credential',
        hints=SECRET_ASSIGNMENT_HINTS,
        ignore_case=True,
        folded=True,
        lead=SECRET_ASSIGNMENT_LEAD,
        anchors=SECRET_ASSIGNMENT_ANCHORS,
    ),
    *CREDENTIAL_RULES,  # headers, command lines, credential files, XML (govern/credential_rules.py)
) + PII_RULES  # personal data (govern/pii_rules.py)

# Rules a pack turns on with ``"enable"``; they run in dry-run (reported, not replaced) unless the
# pack says ``{"name": …, "mode": "enforce"}``.
OPTIONAL_RULES: tuple[Rule, ...] = (
    Rule(
        "high_entropy",
        r"(?<![A-Za-z0-9+/_=.-])[A-Za-z0-9+/_=.-]{24,512}(?![A-Za-z0-9+/_=.-])",
        "unknown token formats: 24+ characters mixing upper case, lower case and digits with high "
        "Shannon entropy (at least 4 bits per character)",
        validator="high_entropy",
        mode="dry-run",
    ),
)
