"""Vendor token formats: a table of (prefix, body shape) read from the public scanner rule sets.

The prefixes and body shapes come from the rules gitleaks maintains (``cmd/generate/config/
rules/*.go``) and detect-secrets' plugins; the vendors publish them so that scanners can find
leaked tokens. A token is its prefix and a body of the listed characters and length, standing
alone (no letter, digit or ``_`` glued before it or after it). Each row becomes one rule whose
hint is its prefix (``Rule.hints``), so a text without the prefix costs one substring check.

Tokens without a fixed prefix (Discord, Telegram, Mailchimp, Azure AD client secrets, Facebook
app tokens) have a shape distinctive enough on its own and a hint from inside it. Every row's name
is unique among the built-in rules: packs address rules by name. Formats named
only by the key they are assigned to (``adafruitToken = …``) are ``secret_assignment``'s.
"""

from __future__ import annotations

import re

from memwarden.govern.rules import Rule

# No letter, digit or "_" (nor "-" where a body may hold one) glued to a token.
_B = "0-9A-Za-z_"
_HEX = "[0-9a-f]"
_HEXU = "[0-9A-Fa-f]"
_ALNUM = "[0-9A-Za-z]"
_URLSAFE = "[0-9A-Za-z_-]"

# (name, prefix, body, hints): the marker name, the prefix (a regular expression of literals), the
# body's shape, and the lower-case substrings ("a|b") of which one must occur for the row to run
# (the prefix itself when empty).
TOKEN_FORMATS: tuple[tuple[str, str, str, str], ...] = (
    ("huggingface_token", "hf_", _ALNUM + "{30,40}", ""),
    ("huggingface_org_token", "api_org_", _ALNUM + "{30,40}", ""),
    ("age_secret_key", "AGE-SECRET-KEY-1", "[02-9AC-HJ-NP-Z]{58}", "age-secret-key-1"),
    ("digitalocean_token", "do[opr]_v1_", _HEX + "{64}", "_v1_"),
    ("shopify_token", "shp(?:at|ca|pa|ss)_", _HEXU + "{32}", "shp"),
    ("sendgrid_key", r"SG\.", _URLSAFE + r"{22}\." + _URLSAFE + "{43}", "sg."),
    ("sendinblue_key", "xkeysib-", _HEX + "{64}-" + _ALNUM + "{16}", ""),
    (
        "twilio_key",
        "(?:SK|AC)",
        _HEXU + "{32}",
        "|".join(p + c for p in ("sk", "ac") for c in "0123456789abcdef"),
    ),
    ("atlassian_token", "ATATT3", "[A-Za-z0-9_=-]{150,200}", "atatt3"),
    ("sentry_token", "sntry[su]_", "[A-Za-z0-9_=+/-]{40,300}", "sntry"),
    ("planetscale_token", "pscale_(?:tkn|oauth|pw)_", "[A-Za-z0-9=._-]{32,64}", "pscale_"),
    ("flyio_token", "(?:fo1_|fm[12][ar]?_)", "[A-Za-z0-9+/=_-]{40,}", "fo1_|fm1|fm2"),
    ("flutterwave_key", "FLW(?:PUBK|SECK)(?:_TEST)?-", "[0-9a-hA-H]{12,32}(?:-X)?", "flw"),
    ("pulumi_token", "pul-", _HEX + "{40}", ""),
    ("rubygems_token", "rubygems_", _HEX + "{48}", ""),
    ("shippo_token", "shippo_(?:live|test)_", _HEX + "{40}", "shippo_"),
    ("settlemint_token", "sm_(?:pat|aat|sat)_", "[0-9a-z]{16}", "sm_"),
    ("sonar_token", "sq[pua]_", _HEXU + "{40}", "sq"),
    ("sourcegraph_token", "sgp_(?:local_|[A-Fa-f0-9]{16}_)?", _HEXU + "{40}", "sgp_"),
    ("notion_token", "ntn_", r"\d{11}" + _ALNUM + "{35}", ""),
    ("perplexity_key", "pplx-", _ALNUM + "{48}", ""),
    ("grafana_token", "(?:glc_|glsa_)", "[A-Za-z0-9+/_=]{32,400}", "glc_|glsa_"),
    ("grafana_api_key", "eyJrIjoi", "[A-Za-z0-9+/]{70,400}={0,2}", "eyjrijoi"),
    ("vault_token", r"hv[sbr]\.", "[A-Za-z0-9_-]{24,200}", "hvs.|hvb.|hvr."),
    ("doppler_token", r"dp\.(?:pt|st|sa|ct|scim|audit)\.", "[A-Za-z0-9]{40,44}", "dp."),
    ("facebook_token", "EAA[MC]", _ALNUM + "{80,}", "eaa"),
    ("square_token", "(?:sq0csp-|sq0atp-|EAAA)", r"[0-9A-Za-z\\_-]{40,60}", "sq0|eaaa"),
    ("mapbox_token", r"[ps]k\.", "[a-z0-9]{60}" + r"\." + "[a-z0-9]{22}", "pk.|sk."),
    ("typeform_token", "tfp_", "[A-Za-z0-9_=.-]{59,}", ""),
    ("linear_key", "lin_(?:api|oauth)_", _ALNUM + "{40}", "lin_"),
    ("databricks_token", "dapi", _HEX + "{32}(?:-[0-9])?", ""),
    ("google_oauth_token", r"ya29\.", "[0-9A-Za-z_-]{30,}", ""),
    ("airtable_token", "pat", "[A-Za-z0-9]{14}" + r"\." + _HEX + "{64}", "pat"),
    ("frameio_token", "fio-u-", "[A-Za-z0-9_=-]{64}", ""),
    ("mailgun_key", "(?:pubkey|key)-", _HEX + "{32}", "key-"),
    ("newrelic_key", "(?:NRAK-|NRII-|NRJS-|NRAA-)", "[A-Za-z0-9]{19,32}", "nrak-|nrii-|nrjs-|nraa-"),
    ("dynatrace_token", r"dt0c01\.", "[A-Z0-9]{24}" + r"\." + "[A-Z0-9]{64}", ""),
    ("clojars_token", "CLOJARS_", "[a-z0-9]{60}", ""),
    ("alibaba_key", "LTAI", "[A-Za-z0-9]{20}", ""),
    ("lob_key", "(?:live|test)(?:_pub)?_", _HEX + "{31,35}", "_"),
    ("easypost_token", "EZ[AT]K", _ALNUM + "{54}", "ez"),
    ("duffel_token", "duffel_(?:test|live)_", "[A-Za-z0-9_=-]{43}", "duffel_"),
    ("prefect_token", "pnu_", _ALNUM + "{36}", ""),
    ("postman_token", "PMAK-", _HEX + "{24}-" + _HEX + "{34}", ""),
    ("readme_token", "rdme_", "[a-z0-9]{70}", ""),
    ("dropbox_token", r"sl\.", "[A-Za-z0-9_=-]{130,160}", "sl."),
    (
        "artifactory_token",
        "(?:AKCp|AKC|AP[0-9A-F])",
        _ALNUM + "{8,}",
        "akc|" + "|".join("ap" + c for c in "0123456789abcdef"),
    ),
    ("aws_bedrock_key", "(?:bedrock-api-key-|ABSK)", "[A-Za-z0-9+/]{24,300}={0,2}", "bedrock-api-key-|absk"),
    ("gitlab_runner_token", "GR1348941", "[A-Za-z0-9_-]{20}", "gr1348941"),
    ("gitlab_session", "_gitlab_session=", _HEX + "{32}", ""),
    ("docker_hub_token", "dckr_pat_", "[A-Za-z0-9_-]{27}", ""),
    ("nvidia_key", "nvapi-", "[A-Za-z0-9_-]{64}", ""),
    ("replicate_token", "r8_", _ALNUM + "{37}", ""),
    ("groq_key", "gsk_", _ALNUM + "{52}", ""),
    ("xai_key", "xai-", _ALNUM + "{80}", ""),
    ("tailscale_key", "tskey-(?:api|auth|client|scim|webhook)-", "[A-Za-z0-9-]{20,80}", "tskey-"),
    ("figma_token", "fig[dhu]_", "[A-Za-z0-9_-]{40}", "figd_|figh_|figu_"),
    ("langsmith_key", "lsv2_(?:pt|sk)_", _HEX + "{32}_" + _HEX + "{10}", "lsv2_"),
    ("supabase_key", "sbp_", _HEX + "{40}", ""),
    ("heroku_key", "HRKU-", "[A-Za-z0-9_-]{60}", ""),
    ("slack_legacy_token", "xox[abprs]-", r"\d{1,13}-[A-Za-z0-9]{8,40}", "xox"),
    (
        "onepassword_secret_key",
        "A3-",
        "[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}",
        "a3-",
    ),
    ("adobe_secret", "p8e-", "[A-Za-z0-9]{32}", ""),
    ("nuget_key", "oy2", "[a-z0-9]{43}", ""),
    ("aws_key_id", "A3T", "[A-Z0-9]{17}", "a3t"),
    ("llm_api_key", "sk-(?:or-v1-|ant-(?:admin01|api03)-)", "[A-Za-z0-9_-]{40,}", "sk-"),
    ("azure_ad_secret", "", r"[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}", "q~"),
    ("discord_token", "", r"[MNO][A-Za-z\d_-]{23,25}\.[A-Za-z\d_-]{6}\.[A-Za-z\d_-]{27,38}", "."),
    ("telegram_token", "", r"\d{5,16}:A[A-Za-z0-9_-]{34}", ":a"),
    ("mailchimp_key", "", _HEX + r"{32}-us\d{1,2}", "-us"),
    ("facebook_app_token", "", r"\d{15,16}(?:\||%7[Cc])[A-Za-z0-9_-]{27}", ""),
    ("jwe", "", r"eyJ[A-Za-z0-9_-]{10,}(?:\.[A-Za-z0-9_-]+){4}", "eyj"),
)

# Hints for the rows without a prefix that name no substring of their own.
_SHAPE_HINTS: dict[str, tuple[str, ...]] = {"facebook_app_token": ("|", "%7c")}


# The first piece of a pattern when it is one character: a literal, an escape or a class, with an
# optional count ("[MNO]", "\\d{5,16}", "h"), not optional ("h?", "\\d{0,3}" keep the lookbehind).
_FIRST_CHARACTER = re.compile(r"(\\.|\[(?:\\.|[^\]\\])+\]|[0-9A-Za-z_])(?:\{(\d+)(?:,(\d*))?\})?(?![?*+{])")


def _top_level(pattern: str) -> tuple[list[str], int]:
    """``pattern`` cut at each "|" outside every group and class, and where its first group closes
    (0 when it has none)."""
    depth, escaped, in_class = 0, False, False
    pieces, start, closes = [], 0, 0
    for at, char in enumerate(pattern):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char in "()":
            depth += 1 if char == "(" else -1
            if depth == 0 and not closes:
                closes = at + 1
        elif char == "|" and depth == 0:
            pieces.append(pattern[start:at])
            start = at + 1
    return [*pieces, pattern[start:]], closes


def _boundary_after_first(pattern: str) -> str | None:
    """``pattern`` with ``(?<![B].)`` after its first character, or None when that character is not
    one piece of every alternative."""
    alternatives, closes = _top_level(pattern)
    if len(alternatives) > 1:
        moved = [_boundary_after_first(alternative) for alternative in alternatives]
        return None if None in moved else "|".join(m for m in moved if m is not None)
    if pattern.startswith("(?:") and closes and pattern[closes : closes + 1] not in ("?", "*", "+", "{"):
        group = _boundary_after_first(pattern[3 : closes - 1])  # "(?:SK|AC)…" → "(?:S(?<!…)K|A(?<!…)C)…"
        return None if group is None else f"(?:{group}){pattern[closes:]}"
    first = _FIRST_CHARACTER.match(pattern)
    if first is None:
        return None
    atom, least, most = first.groups()
    rest = pattern[first.end() :]
    if least is not None:  # "\\d{5,16}" → "\\d" and "\\d{4,15}" after the boundary
        if int(least) == 0:
            return None
        upper = "" if most == "" else str(int(most) - 1) if most is not None else None
        count = f"{{{int(least) - 1}}}" if upper is None else f"{{{int(least) - 1},{upper}}}"
        rest = f"{atom}{count}{rest}"
    return f"{atom}(?<![{_B}].){rest}"


def bounded(prefix: str, body: str) -> str:
    """``(?<![B])(?:prefix)body``, not glued after a letter, digit or "_", with the boundary tested
    after the first character where that character is one piece ("hf_" → ``h(?<![B].)f_``): a
    pattern starting with a lookbehind is tried at every position of the text, one starting with a
    character is tried only where ``re``, skipping in C, finds that character (a token row whose
    hint is "." ran over every text holding a dotted number). ``(?<![B].)`` right after the first
    character tests the character before it, as the leading lookbehind did (none at the start of
    the text; tests/govern/test_secret_tokens.py compares the two)."""
    pattern = f"(?:{prefix}){body}" if prefix else body
    moved = _boundary_after_first(pattern) if len(_top_level(pattern)[0]) == 1 else None
    if moved is not None:
        return moved
    return f"(?<![{_B}])(?:{prefix}){body}" if prefix else f"(?<![{_B}]){body}"


def _rule(name: str, prefix: str, body: str, hint: str) -> Rule:
    if not hint and name in _SHAPE_HINTS:
        hints = _SHAPE_HINTS[name]
    else:
        hints = tuple((hint or re.sub(r"\\(.)", r"\1", prefix).lower()).split("|"))  # "SG\." → "sg."
    if any(re.search(r"[()\[\]?*+{}]", h) for h in hints):
        raise ValueError(f"token row {name} {prefix!r} needs literal hints")
    return Rule(
        name,
        f"{bounded(prefix, body)}(?![{_B}])",
        f"{name.replace('_', ' ')} ({prefix or 'shape'}: public scanner rule sets)",
        hints=hints,
        standalone=True,
    )


TOKEN_RULES: tuple[Rule, ...] = tuple(_rule(*row) for row in TOKEN_FORMATS)

__all__ = ["TOKEN_FORMATS", "TOKEN_RULES", "bounded"]
