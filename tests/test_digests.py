"""memwarden.digests: the SHA-256 of the per-prompt paths is hashlib's SHA-256."""

import hashlib
import subprocess
import sys

import pytest

from memwarden.digests import sha256


@pytest.mark.parametrize("data", [b"", b"abc", "çay ☕ 記憶 \U0001f600".encode(), bytes(range(256)) * 300])
def test_the_digest_is_hashlibs(data: bytes) -> None:
    assert sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()
    assert sha256(data).digest() == hashlib.sha256(data).digest()
    incremental = sha256()
    for start in range(0, len(data), 7):
        incremental.update(data[start : start + 7])
    assert incremental.hexdigest() == hashlib.sha256(data).hexdigest()


def test_it_loads_no_openssl() -> None:
    code = "import sys, memwarden.digests; print(sorted({'_hashlib', 'hashlib', 'hmac'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == "[]"


def test_a_keyed_audit_row_is_hmac_sha256() -> None:
    import hmac

    from memwarden.audit.keys import AuditKey

    key = AuditKey(b"k" * 32)
    signed = key.sign(b"message")
    assert (
        signed
        == f"hmac:{hashlib.sha256(b'k' * 32).hexdigest()[:12]}:"
        + hmac.new(b"k" * 32, b"message", hashlib.sha256).hexdigest()
    )
