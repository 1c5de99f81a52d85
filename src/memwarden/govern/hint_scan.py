"""Which of the rules' hints a (case-folded) text holds, with fewer substring scans than one per hint.

Every rule with hints runs only when one of them occurs in the text (``Rule.hints``), so the
redactor asks, for every text, which of about a hundred hints occur. Most hints hold a punctuation
character (``ghp_``, ``glpat-``, ``sig=``, ``at]``, ``"auth"``) that prose rarely holds: the hints
are put in buckets by the rarest such character, and a bucket is scanned only when one search
for that single character (in C) finds it. Hints made of letters alone are always scanned.

What ``present`` returns is exactly ``{hint for hint in hints if hint in text}``
(tests/govern/test_redaction_speed.py checks it on generated text).
"""

from __future__ import annotations

# Punctuation by how rarely prose holds it: a hint is bucketed under the first of these it holds.
_RARE_FIRST = '"$}{][><=_@/+)(:-.'


class HintScan:
    """The hints of a set of rules, bucketed by the rarest punctuation character each holds."""

    def __init__(self, hints: tuple[str, ...]) -> None:
        self.hints = tuple(dict.fromkeys(hints))
        buckets: dict[str, list[str]] = {}
        for hint in self.hints:
            guard = next((ch for ch in _RARE_FIRST if ch in hint), "")
            buckets.setdefault(guard, []).append(hint)
        self._letters = tuple(buckets.pop("", ()))
        self._buckets = tuple((guard, tuple(bucket)) for guard, bucket in buckets.items())

    def present(self, text: str) -> set[str]:
        """The hints that occur in ``text``."""
        found = {hint for hint in self._letters if hint in text}
        for guard, bucket in self._buckets:
            if guard in text:
                found.update(hint for hint in bucket if hint in text)
        return found


__all__ = ["HintScan"]
