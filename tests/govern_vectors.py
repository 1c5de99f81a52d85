"""Test vectors for every redaction rule: values it must redact and look-alikes it must leave.

Also the planted secrets of the end-to-end leak tests (``PLANTED``): import these from any test
that writes through a new path (import, vault, backups) and check with ``assert_no_plaintext``.
"""

from __future__ import annotations

from pathlib import Path

JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
    "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
)
PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAq7BFUpkGp3+LQmlQYx2eqzDV+xeG8kx/sQFV18S5JhzGeIJ\n"
    "Zw3sRjCZb4YmQY2bUb9u+o+NVjI9y7Jt1pTGxQmW0Y8Kf0jX3cE=\n-----END RSA PRIVATE KEY-----"
)
GITHUB = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
OPENAI = "sk-proj-Ab3De5Fg7Hj9Kl1Mn3Pq5Rs7Tu9Vw1Xy3"
SLACK_BOT = "xoxb-" + "234567890123-2345678901234-" + "AbCdEfGhIjKlMnOpQrStUvWx"
SLACK_USER = "xoxp-" + "234567890123-234567890123-2345678901234-" + "0123456789abcdef0123456789abcdef"
STRIPE = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc51RrQbGq"
STRIPE_RESTRICTED = "rk_live_" + "51H8xYzAbC3dEfG7hIjKlMnOpQ"
GOOGLE = "AIza" + "5kxsC7tVO-HbkQfyy-KV5zjR3j1twdTKWTd"
GITLAB = "glpat-" + "qOAf1lLQSAJaiXnkU8Is"
NPM = "npm_" + "J7faC9qEwjky40UVsWmflzdE1F8ResqEDusT"
PYPI = (
    "pypi-" + "AgEIcHlwaS5vcmcCJQilTcoYJTC7HW0TLN7WI3su2R4_ch_LGXEXRJTWSTydXDRgvjEgHmn-2qDu6LmZf1x8KZn9r-"
    "WTJTzWVK8"
)

# (rule, text, the value that must disappear)
POSITIVE: list[tuple[str, str, str]] = [
    ("email", "write to jane.doe@example.co.uk today", "jane.doe@example.co.uk"),
    ("email", "müşteri: ayşe.yılmaz@örnek.com.tr", "ayşe.yılmaz@örnek.com.tr"),
    ("email", "link mailto:ops+alerts@acme.io please", "ops+alerts@acme.io"),
    ("phone_e164", "call +44 20 7946 0958 after nine", "+44 20 7946 0958"),
    ("phone_e164", "whatsapp +4915112345678", "+4915112345678"),
    ("phone_cn", "手机 13800138000 联系", "13800138000"),
    ("phone_cn", "mobile 138 0013 8000", "138 0013 8000"),
    ("phone_cn", "mobile +86 138-0013-8000", "+86 138-0013-8000"),
    ("phone_tr", "cep 0532 123 45 67 arayın", "0532 123 45 67"),
    ("phone_tr", "ofis +90 212 555 12 34", "+90 212 555 12 34"),
    ("phone_tr", "cep (532) 123 45 67", "(532) 123 45 67"),
    ("phone_us", "office (415) 555-2671", "(415) 555-2671"),
    ("phone_us", "office 415-555-2671 ext", "415-555-2671"),
    ("phone_us", "office +1 415 555 2671", "+1 415 555 2671"),
    ("phone", "Rappelle-moi au 06 12 34 56 78 demain", "06 12 34 56 78"),
    ("phone", "dial 0044 20 7946 0958 from abroad", "0044 20 7946 0958"),
    ("phone", "Ruf mich unter 030/1234567 an", "030/1234567"),
    ("id_number", "My ID number is K12Z34567, thanks", "K12Z34567"),
    ("national_id", "codice fiscale RSSMRA85T10A562S in the file", "RSSMRA85T10A562S"),
    ("national_id", "NI number AB 12 34 56 C", "AB 12 34 56 C"),
    ("email_spelled", "write to jane [at] example [dot] org", "jane [at] example [dot] org"),
    ("id_number", "护照号码E12345678，明年到期", "E12345678"),
    ("cn_resident_id", "身份证 11010519491231002X 已登记", "11010519491231002X"),
    ("cn_resident_id", "id 320106198503151236", "320106198503151236"),
    ("tr_identity", "T.C. Kimlik No 10000000146", "10000000146"),
    ("tr_identity", "TCKN: 12345678950", "12345678950"),
    ("us_ssn", "SSN 123-45-6789 on file", "123-45-6789"),
    ("us_ssn", "ssn 078 05 1121", "078 05 1121"),
    ("us_ssn", "file ssn-123-45-6789", "123-45-6789"),
    ("payment_card", "visa 4111 1111 1111 1111 exp 12/29", "4111 1111 1111 1111"),
    ("payment_card", "mc 5500-0000-0000-0004", "5500-0000-0000-0004"),
    ("payment_card", "amex 378282246310005", "378282246310005"),
    ("payment_card", "card 4111111111111111 12", "4111111111111111"),
    # Glued to a word by a hyphen or a dot (an identifier a user wrote: "call-…", "ref.…").
    ("payment_card", "thread call-4111111111111111 ok", "4111111111111111"),
    ("payment_card", "ref.5500000000000004", "5500000000000004"),
    ("iban", "IBAN DE89 3704 0044 0532 0130 00 is ours", "DE89 3704 0044 0532 0130 00"),
    ("iban", "pay GB82WEST12345698765432", "GB82WEST12345698765432"),
    ("iban", "hesap TR33 0006 1005 1978 6457 8413 26", "TR33 0006 1005 1978 6457 8413 26"),
    ("ipv4", "db at 10.0.0.12 port 5432", "10.0.0.12"),
    ("ipv4", "bind 192.168.1.254:8080.", "192.168.1.254"),
    ("ipv6", "host 2001:db8::8a2e:370:7334 up", "2001:db8::8a2e:370:7334"),
    ("ipv6", "link-local fe80::1 only", "fe80::1"),
    ("ipv6", "mapped ::ffff:192.0.2.1 too", "::ffff:192.0.2.1"),
    ("aws_access_key", "key AKIAIOSFODNN7EXAMPLE in env", "AKIAIOSFODNN7EXAMPLE"),
    (
        "aws_secret_key",
        "aws secret key: wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    ),
    ("github_token", f"token {GITHUB} for CI", GITHUB),
    (
        "github_token",
        "pat github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
    ),
    ("openai_key", f"OPENAI {OPENAI} rotate", OPENAI),
    ("jwt", f"Authorization: Bearer {JWT}", JWT),
    ("private_key", f"deploy key:\n{PEM}\nend", PEM),
    (
        "private_key",
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nBG5vbmU=",
        "b3BlbnNzaC1rZXktdjEAAAAA",
    ),
    ("url_password", "DATABASE_URL postgres://app:s3cretPass@db.internal:5432/app", "s3cretPass"),
    ("url_password", "mongodb+srv://ops:p%40ss@w0rd@cluster0.mongo.net/x", "p%40ss@w0rd"),
    ("secret_assignment", "set password=hunter2 in the env", "hunter2"),
    ("secret_assignment", "api_key: 'abcd1234efgh'", "abcd1234efgh"),
    ("secret_assignment", "Server=db;User Id=sa;Password=Secr3t!;Encrypt=true", "Secr3t!"),
    ("secret_assignment", '{"client_secret": "x9-Ff_2kq"}', "x9-Ff_2kq"),
    ("secret_assignment", "host=db user=app password=s3cret dbname=x", "s3cret"),
    ("secret_assignment", "mysql -u root --pass=Tr0ub4dor now", "Tr0ub4dor"),
    ("slack_token", f"bot {SLACK_BOT} posts alerts", SLACK_BOT),
    ("slack_token", f"user token {SLACK_USER}", SLACK_USER),
    (
        "slack_token",
        "webhook https://hooks.slack.com/services/T0ABCDEF1/B0ABCDEF2/aBcDeFgHiJkLmNoPqRsTuVwX",
        "T0ABCDEF1/B0ABCDEF2/aBcDeFgHiJkLmNoPqRsTuVwX",
    ),
    ("stripe_key", f"STRIPE {STRIPE} in prod", STRIPE),
    ("stripe_key", f"restricted {STRIPE_RESTRICTED}.", STRIPE_RESTRICTED),
    ("google_api_key", f"maps key {GOOGLE} for the web", GOOGLE),
    ("gitlab_token", f"CI uses {GITLAB}", GITLAB),
    ("npm_token", f"//registry.npmjs.org/:_authToken={NPM}", NPM),
    ("pypi_token", f"twine upload -p {PYPI}", PYPI),
    ("env_secret", "export DB_PASS=correcthorse", "correcthorse"),
    ("env_secret", "STRIPE_KEY=abcdefgh1234 in .env", "abcdefgh1234"),
    ("env_secret", "set GITHUB_TOKEN=tokenvalue42", "tokenvalue42"),
    ("env_secret", "SECRET_KEY: 'django-insecure-x'", "django-insecure-x"),
]

# (rule that must not fire, text)
NEGATIVE: list[tuple[str, str]] = [
    ("email", "write to jane at example dot com"),
    ("email", "ping @channel about it"),
    ("email", "postgres://app:pw@db.internal/x"),
    ("phone_e164", "the score was +3 to 1"),
    ("phone_cn", "order 12800138000 shipped"),
    ("phone_cn", "id 138001380001"),
    ("phone_tr", "invoice 5321234567 paid"),
    ("phone_tr", "code 012 345 67 89"),
    ("phone_us", "released 2024-11-29"),
    ("phone_us", "call 555-1234 at the desk"),
    ("phone", "order #48213977 shipped 2024-01-15"),
    ("phone", "version 3.4.2.8861, build 20251230.13, unix time 1600986323"),
    ("id_number", "the passport office is in room 1204"),
    ("id_number", "set uid 1000, see RFC 4122"),
    ("national_id", "code RSSMRA85T10A562X with a wrong check letter"),
    ("national_id", "order 12345678 shipped"),
    ("email_spelled", "write to jane at example dot org"),
    ("cn_resident_id", "id 110105194912310021"),  # wrong check digit
    ("cn_resident_id", "id 11010519491331002X"),  # month 13
    ("tr_identity", "TCKN 10000000147"),  # wrong check digit
    ("tr_identity", "number 01234567890"),
    ("us_ssn", "SSN 000-12-3456"),
    ("us_ssn", "part 1-123-45-6789 of a longer number"),
    ("us_ssn", "SSN 666-12-3456"),
    ("us_ssn", "SSN 912-12-3456"),
    ("us_ssn", "SSN 123-00-4567"),
    ("us_ssn", "SSN 123-45-0000"),
    ("payment_card", "order 4111 1111 1111 1112"),
    ("payment_card", "ticket 123456789012"),
    ("iban", "IBAN DE89 3704 0044 0532 0130 01"),
    ("iban", "code XX12 3456 7890 1234 56"),
    ("ipv4", "version 1.2.3.4.5 released"),
    ("ipv4", "value 999.1.1.1"),
    ("ipv4", "python 3.11.2"),
    ("ipv6", "meet at 12:30:45"),
    ("ipv6", "use std::vector here"),
    ("ipv6", "mac 00:1a:2b:3c:4d:5e"),
    ("aws_access_key", "AKIA123 is too short"),
    ("aws_access_key", "AKIAIOSFODNN7EXAMPLEXYZ is too long"),
    ("aws_secret_key", "aws secret key rotation is monthly"),
    ("github_token", "ghp_short"),
    ("openai_key", "pip install sk-learn-tutorial-for-beginners"),
    ("openai_key", "task-force-meeting-notes-for-monday"),
    ("jwt", "eyJub3QiOiJqd3QifQ.eyJzdWIiOiIxIn0.abcdefgh"),
    ("private_key", "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A\n-----END PUBLIC KEY-----"),
    ("url_password", "see https://example.com/path?q=1"),
    ("url_password", "postgres://app@db.internal/app"),
    ("secret_assignment", "the password policy requires rotation"),
    ("secret_assignment", "reset your password: please"),
    ("secret_assignment", "the token bucket algorithm"),
    ("secret_assignment", "bypass=true skips the cache"),
    ("slack_token", "set SLACK_BOT_TOKEN to xoxb-your-token-here"),
    ("slack_token", "see https://hooks.slack.com/services for setup"),
    ("stripe_key", "pk_live_51H8xYzAbC3dEfG7hIjKlMnOpQ is publishable"),
    ("stripe_key", "the sk_live_ prefix marks live keys"),
    ("google_api_key", "AIzaShort is not a key"),
    ("gitlab_token", "glpat- tokens expire after a year"),
    ("npm_token", "npm_config_registry is a variable"),
    ("pypi_token", "pypi-simple-index-mirror-for-the-office-and-the-build-farm-and-the-ci-runners"),
    ("env_secret", "export PATH=/usr/local/bin"),
    ("env_secret", "the KEY is on the desk"),
]

# Values written through every path by the leak tests; none may reach disk or logs.
PLANTED = {
    "email": "planted.person@secret-example.org",
    "phone_cn": "13912345678",
    "phone_tr": "0532 987 65 43",
    "phone_us": "(646) 555-0187",
    "cn_resident_id": "11010519491231002X",
    "tr_identity": "10000000146",
    "us_ssn": "219-09-9999",
    "payment_card": "4539 1488 0343 6467",
    "iban": "GB82WEST12345698765432",
    "ipv4": "203.0.113.77",
    "aws_access_key": "AKIAZ7PLANTEDKEY0001",
    "github_token": GITHUB,
    "openai_key": OPENAI,
    "jwt": JWT,
    "url_password": "Plant3dUrlPass",
    "secret_assignment": "Plant3dAssignedPw",
    "slack_token": SLACK_BOT,
    "stripe_key": STRIPE,
    "google_api_key": GOOGLE,
    "gitlab_token": GITLAB,
    "npm_token": NPM,
    "pypi_token": PYPI,
    "env_secret": "Plant3dEnvValue",
}


def planted_text() -> str:
    """One memory holding every planted value, around business words that must stay searchable."""
    return (
        f"Quarterly invoice reconciliation: contact {PLANTED['email']} or {PLANTED['phone_cn']}, "
        f"Istanbul desk {PLANTED['phone_tr']}, New York {PLANTED['phone_us']}. "
        f"Resident id {PLANTED['cn_resident_id']}, TCKN {PLANTED['tr_identity']}, SSN {PLANTED['us_ssn']}. "
        f"Card {PLANTED['payment_card']} and IBAN {PLANTED['iban']}; gateway {PLANTED['ipv4']}. "
        f"Keys {PLANTED['aws_access_key']} {PLANTED['github_token']} {PLANTED['openai_key']} "
        f"session {PLANTED['jwt']} db postgres://billing:{PLANTED['url_password']}@db.internal/ledger "
        f"password={PLANTED['secret_assignment']} bot {PLANTED['slack_token']} billing {PLANTED['stripe_key']} "
        f"maps {PLANTED['google_api_key']} ci {PLANTED['gitlab_token']} {PLANTED['npm_token']} {PLANTED['pypi_token']}\n"
        f"export DB_PASS={PLANTED['env_secret']}"
    )


def plaintext_fragments() -> list[str]:
    """What must never be found on disk: each value, plus its digits-only form for numbers."""
    found = set(PLANTED.values())
    for value in PLANTED.values():
        digits = "".join(c for c in value if c.isdigit())
        if len(digits) >= 9 and digits == "".join(c for c in value if c.isalnum()):
            found.add(digits)
    return sorted(found)


def assert_no_plaintext(paths: list[Path], extra_text: str = "") -> None:
    """No planted value in the raw bytes of these files (UTF-8) or in ``extra_text``."""
    for path in paths:
        if not path.exists():
            continue
        raw = path.read_bytes()
        for value in plaintext_fragments():
            assert value.encode("utf-8") not in raw, f"{value!r} found in {path}"
    for value in plaintext_fragments():
        assert value not in extra_text, f"{value!r} found in captured output"
