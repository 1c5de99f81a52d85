"""How memwarden counts tokens when a caller gives a token budget (``max_tokens``).

There is no tokenizer here (no model, nothing downloaded), so the count is an estimate that
errs high, the safe side for a context budget: one token per 4 ASCII characters (English and
code run at 3.5-4.5 characters per token in common BPE tokenizers) and one token per non-ASCII
character (CJK characters are usually 1-2 tokens each; accented Latin letters often split a
word). The hooks use the same rule, so a budget means the same thing everywhere.
"""

from __future__ import annotations


def estimate_tokens(text: str) -> int:
    """Estimated tokens of ``text``: ceil(ASCII characters / 4) + non-ASCII characters."""
    ascii_chars = len(text.encode("ascii", "ignore"))
    return -(-ascii_chars // 4) + (len(text) - ascii_chars)
