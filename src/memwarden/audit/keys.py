"""The optional key of a keyed audit chain (HMAC-SHA256), kept in a file outside the database.

With a key, each row's hash is ``hmac:<key id>:<HMAC-SHA256 hex>`` instead of a plain SHA-256:
someone who can write the database file but cannot read the key file cannot compute a valid
row, so rewriting history (or appending a forged ``prune`` row) is detected by ``audit verify``
given the key. The key id (the first 12 hex digits of SHA-256 of the key) names which key made
a row, so a wrong key and a forged row are told apart. The key file holds 64 hex digits and must
not be readable by group or others (mode 0600): ``memwarden audit keygen`` writes one.
"""

import os
import stat
from pathlib import Path
from typing import NamedTuple

from memwarden.digests import sha256
from memwarden.errors import ConfigError, InvalidInput

KEYED_PREFIX = "hmac:"
KEY_BYTES = 32


class AuditKey(NamedTuple):
    """A chain key and its public id."""

    secret: bytes
    path: str = ""

    @property
    def key_id(self) -> str:
        return sha256(self.secret).hexdigest()[:12]

    def sign(self, message: bytes) -> str:
        import hmac  # only with a key: it loads OpenSSL (see memwarden/digests.py)

        return f"{KEYED_PREFIX}{self.key_id}:{hmac.new(self.secret, message, 'sha256').hexdigest()}"


def key_id_of(row_hash: object) -> str | None:
    """The key id a keyed row hash names; None for a plain SHA-256 hash."""
    if isinstance(row_hash, str) and row_hash.startswith(KEYED_PREFIX):
        return row_hash[len(KEYED_PREFIX) :].partition(":")[0]
    return None


def load_key(path: Path) -> AuditKey:
    """Read a key file; refuse one that others can read or that does not hold a key."""
    try:
        info = path.stat()
        text = path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        raise ConfigError(
            f"the audit key file {path} does not exist; make one with `memwarden audit keygen`"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read the audit key file {path}: {exc}") from None
    if info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise ConfigError(
            f"the audit key file {path} is readable by others (mode {stat.S_IMODE(info.st_mode):o}); "
            f"run `chmod 600 {path}`"
        )
    try:
        secret = bytes.fromhex(text)
    except ValueError:
        secret = b""
    if len(secret) != KEY_BYTES:
        raise ConfigError(
            f"the audit key file {path} does not hold a key (64 hex digits); "
            "make one with `memwarden audit keygen`"
        )
    return AuditKey(secret, str(path))


def write_new_key(path: Path) -> AuditKey:
    """Create ``path`` (mode 0600, never over an existing file) holding a fresh random key."""
    import secrets  # only here: keygen is rare, and every `memwarden search` imports this module

    secret = secrets.token_bytes(KEY_BYTES)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise InvalidInput(
            f"{path} exists; a key file is never overwritten (rows signed with it "
            "could no longer be checked)",
            field="out",
        ) from None
    except OSError as exc:
        raise InvalidInput(f"cannot create {path}: {exc.strerror}", field="out") from None
    try:
        os.fchmod(fd, 0o600)  # whatever the umask
        os.write(fd, (secret.hex() + "\n").encode("ascii"))
        os.fsync(fd)
    finally:
        os.close(fd)
    return AuditKey(secret, str(path))
