"""SHA-256 for the per-prompt paths, without loading OpenSSL.

``import hashlib`` loads OpenSSL's libcrypto (``_hashlib``), a cost every cold ``memwarden
search`` and prompt hook would pay, daemon or not, and more than the search itself spends
hashing (docs/performance.md#cold-start). CPython ships its own SHA-256 module (``_sha256`` up
to 3.11, ``_sha2`` from 3.12), which ``hashlib`` falls back to when OpenSSL is missing; it gives
the same digests. That module is used when this interpreter has it, and ``hashlib``'s otherwise.

Only the modules a cold search, hook or daemon client imports use this; the rest of the code
keeps ``hashlib``. HMAC (keyed audit rows) still goes through ``hmac``, imported when a key is
configured.
"""

from __future__ import annotations

# Not typing's: the prompt hook asking the daemon never imports typing, whose import is a
# large share of that hook's CPU (docs/performance.md#cold-start). mypy reads it as True.
TYPE_CHECKING = False

if TYPE_CHECKING:  # the same constructor, as typeshed types it
    from hashlib import sha256
else:
    try:  # CPython 3.11
        from _sha256 import sha256
    except ImportError:  # pragma: no cover - the interpreter decides
        try:  # CPython 3.12 and later
            from _sha2 import sha256
        except ImportError:  # other interpreters, or a build without it
            from hashlib import sha256

__all__ = ["sha256"]
