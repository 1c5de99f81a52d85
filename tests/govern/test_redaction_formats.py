"""Formats a security tester found the built-in rules missed, and look-alikes that must stay.

Each positive case names the exact text to store: the value goes, and nothing else does (the
key, the operator, the quotes around a key, the user and host of a URL stay readable).
"""

from __future__ import annotations

import base64
import time

import pytest

from memwarden.govern import Redactor
from memwarden.govern.layers import decoded_runs
from memwarden.govern.normalization import normalize_text

REDACTOR = Redactor()
WHOLE = Redactor(scoped=False)

# (text, what is stored)
SECRET_ASSIGNMENTS = [
    ("'password' => 'Tr0ub4dor&3',", "'password' => [REDACTED:secret_assignment],"),
    (":password => 'Tr0ub4dor&3'", ":password => [REDACTED:secret_assignment]"),
    ("password => 'Tr0ub4dor&3'", "password => [REDACTED:secret_assignment]"),
    ("'api_key' => \"abc123XYZ\"", "'api_key' => [REDACTED:secret_assignment]"),
    ('{ "token" => "abc123XYZ" }', '{ "token" => [REDACTED:secret_assignment] }'),
    (":password => Tr0ub4dor3", ":password => [REDACTED:secret_assignment]"),
    ('password: "Tr0ub4dor&3"', "password: [REDACTED:secret_assignment]"),
    ("os.environ['DB_PASSWORD'] = 'Tr0ub4dor&3'", "os.environ['DB_PASSWORD'] = [REDACTED:secret_assignment]"),
    ('config["password"] = "Tr0ub4dor&3"', 'config["password"] = [REDACTED:secret_assignment]'),
    ("$db['password'] = 'Tr0ub4dor&3';", "$db['password'] = [REDACTED:secret_assignment];"),
    ("ENV['API_TOKEN']='x9Tq2LmZ'", "ENV['API_TOKEN']=[REDACTED:secret_assignment]"),
    ("settings['secret'] = x9Tq2LmZ!", "settings['secret'] = [REDACTED:secret_assignment]"),
    ("define('DB_PASSWORD', 'Tr0ub4dor&3');", "define('DB_PASSWORD', [REDACTED:secret_assignment]);"),
    ('define( "AUTH_KEY", "x9Tq2LmZ" );', 'define( "AUTH_KEY", [REDACTED:secret_assignment] );'),
    ('os.Setenv("DB_PASSWORD", "Tr0ub4dor&3")', 'os.Setenv("DB_PASSWORD", [REDACTED:secret_assignment])'),
    ('password := "Tr0ub4dor&3"', "password := [REDACTED:secret_assignment]"),
    ("dbPassword := `Tr0ub4dor&3`", "dbPassword := [REDACTED:secret_assignment]"),
    ("password=>hunter22", "password=>[REDACTED:secret_assignment]"),
    # Forms that already worked stay as they were.
    ("set password=hunter2 in the env", "set password=[REDACTED:secret_assignment] in the env"),
    ("api_key: 'abcd1234efgh'", "api_key: [REDACTED:secret_assignment]"),
    ('{"client_secret": "x9-Ff_2kq"}', '{"client_secret": [REDACTED:secret_assignment]}'),
]


@pytest.mark.parametrize(("text", "stored"), SECRET_ASSIGNMENTS, ids=[t for t, _ in SECRET_ASSIGNMENTS])
def test_secret_assignments_in_code_redact_the_whole_value_and_nothing_else(text: str, stored: str) -> None:
    outcome = REDACTOR.redact(text)
    assert outcome.text == stored
    assert outcome.rules == ("secret_assignment",)


B64_EMAIL = base64.b64encode(b"mail jane.doe@example.org").decode()  # bWFpbCBqYW5lLmRvZUBleGFtcGxlLm9yZw==
B64_CARD = base64.b64encode(b"card 4111 1111 1111 1111 exp 12/29").decode()


@pytest.mark.parametrize(
    ("text", "stored"),
    [
        (f"payload={B64_EMAIL}", "payload=[REDACTED:email]"),
        (f"payload={B64_EMAIL}&next=1", "payload=[REDACTED:email]&next=1"),
        (f"https://x.com/u/{B64_EMAIL}", "https://x.com/u/[REDACTED:email]"),
        (f"https://x.com/u/{B64_EMAIL}/edit", "https://x.com/u/[REDACTED:email]/edit"),
        (f"id-{B64_EMAIL}", "id-[REDACTED:email]"),
        (f"x_{B64_EMAIL}", "x_[REDACTED:email]"),
        (f"v+{B64_EMAIL}", "v+[REDACTED:email]"),
        (f"{B64_EMAIL}-v2", "[REDACTED:email]-v2"),
        (f"ref=a/{B64_CARD}", "ref=a/[REDACTED:payment_card]"),
        (f"see {B64_EMAIL}", "see [REDACTED:email]"),
    ],
)
def test_base64_after_a_separator_is_decoded(text: str, stored: str) -> None:
    assert REDACTOR.redact(text).text == stored


def test_base64_holding_slashes_and_pluses_is_still_decoded_after_a_prefix() -> None:
    # "/" and "+" inside the value: a split at every separator would cut it into pieces.
    value = base64.b64encode(b"mail jane.doe@example.org ?>>>?").decode()
    assert "/" in value and "+" in value
    assert REDACTOR.redact(f"blob=x-{value}").text == "blob=x-[REDACTED:email]"
    assert REDACTOR.redact(f"https://x.com/u/{value}/edit").text == "https://x.com/u/[REDACTED:email]/edit"


def test_url_safe_base64_after_an_underscore_or_a_dash_is_decoded() -> None:
    value = base64.urlsafe_b64encode(b"mail jane.doe@example.org ?>>>?").decode()
    assert "-" in value and "_" in value
    assert REDACTOR.redact(f"token_{value}").text == "token_[REDACTED:email]"
    assert REDACTOR.redact(f"id-{value.rstrip('=')}").text == "id-[REDACTED:email]"


def test_segment_decoding_leaves_ordinary_identifiers_alone() -> None:
    for text in (
        "see https://github.com/acme/memwarden-server_v2/blob/main/README.md",
        "state-of-the-art_implementation-details",
        "build_2024-01-15_release-candidate-3",
        "sha256=n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=",
        "https://cdn.example.com/assets/app-3f9a2c1b7d.min.js",
        "uuid=123e4567-e89b-12d3-a456-426614174000",
    ):
        assert REDACTOR.redact(text).text == text, text


def test_segment_decoding_of_a_long_binary_blob_stays_fast() -> None:
    blob = base64.b64encode(bytes(range(256)) * 40).decode()  # 13,656 characters, many "/" and "+"
    text = f"attachment=data/{blob} and more"
    started = time.process_time()
    for _ in range(5):
        assert REDACTOR.redact(text).text == text
    assert time.process_time() - started < 1.0  # typically a few ms each
    assert list(decoded_runs(text)) == []


PHONES = [
    ("call +44 (0)20 7946 0958 today", "call [REDACTED:phone_e164] today"),
    ("call +49 (0)30 12345678 today", "call [REDACTED:phone_e164] today"),
    ("call +44 (20) 7946 0958 today", "call [REDACTED:phone_e164] today"),
    ("call +86 (138) 0013 8000 today", "call [REDACTED:phone_cn] today"),
    ("call +44.20.7946.0958 today", "call [REDACTED:phone_e164] today"),
    ("call (415) 555-2671 today", "call [REDACTED:phone_us] today"),
    ("call +44 20 7946 0958 today", "call [REDACTED:phone_e164] today"),
]


@pytest.mark.parametrize(("text", "stored"), PHONES, ids=[t for t, _ in PHONES])
def test_phone_numbers_with_trunk_prefixes_parentheses_and_dots(text: str, stored: str) -> None:
    assert REDACTOR.redact(text).text == stored
    assert WHOLE.redact(text).text == stored


CARDS = [
    ("card 4111  1111  1111  1111 ok", "card [REDACTED:payment_card] ok"),
    ("card 4111 - 1111 - 1111 - 1111 ok", "card [REDACTED:payment_card] ok"),
    ("card 4111 . 1111 . 1111 . 1111 ok", "card [REDACTED:payment_card] ok"),
    ("card 4111--1111--1111--1111 ok", "card [REDACTED:payment_card] ok"),
    ("amex 3782  822463  10005 ok", "amex [REDACTED:payment_card] ok"),
    # What the dash folding of normalisation makes of en dashes and non-breaking hyphens.
    ("card 4111-1111-1111-1111 ok", "card [REDACTED:payment_card] ok"),
    ("card 4111\t1111\t1111\t1111 ok", "card [REDACTED:payment_card] ok"),
    ("card\n4111\n1111\n1111\n1111\nok", "card\n[REDACTED:payment_card]\nok"),
    ("card 4111\r\n1111\r\n1111\r\n1111 ok", "card [REDACTED:payment_card] ok"),
    ("card 4111 / 1111 / 1111 / 1111 ok", "card [REDACTED:payment_card] ok"),
    ("card 4111/1111/1111/1111 ok", "card [REDACTED:payment_card] ok"),
    ("card 4111 · 1111 · 1111 · 1111 ok", "card [REDACTED:payment_card] ok"),
    ("card 4111·1111·1111·1111 ok", "card [REDACTED:payment_card] ok"),
]

IBANS = [
    ("iban DE89-3704-0044-0532-0130-00 ok", "iban [REDACTED:iban] ok"),
    ("iban DE89  3704  0044  0532  0130  00 ok", "iban [REDACTED:iban] ok"),
    ("iban GB82 WEST 1234 5698 7654 32 ok", "iban [REDACTED:iban] ok"),
]


@pytest.mark.parametrize(("text", "stored"), IBANS, ids=[t for t, _ in IBANS])
def test_ibans_with_dashes_or_double_spaces(text: str, stored: str) -> None:
    assert REDACTOR.redact(text).text == stored
    assert WHOLE.redact(text).text == stored


@pytest.mark.parametrize(("text", "stored"), CARDS, ids=[t for t, _ in CARDS])
def test_cards_with_wider_separators_between_groups(text: str, stored: str) -> None:
    assert REDACTOR.redact(text).text == stored
    assert WHOLE.redact(text).text == stored


URL_PASSWORDS = [
    ("amqp://guest:gu/est99@rabbit//", "amqp://guest:[REDACTED:url_password]@rabbit//"),
    ("postgres://app:Xy9/kL2q@db:5432/app", "postgres://app:[REDACTED:url_password]@db:5432/app"),
    ("redis://:p#ss?w0rd@cache:6379/0", "redis://:[REDACTED:url_password]@cache:6379/0"),
    ("https://bob:a/b?c#d@gitlab/x.git", "https://bob:[REDACTED:url_password]@gitlab/x.git"),
    (
        "mongodb+srv://ops:p%40ss@w0rd@cluster0.mongo.net/x",
        "mongodb+srv://ops:[REDACTED:url_password]@cluster0.mongo.net/x",
    ),
    (
        "postgres://app:s3cret@db/app?user=jane@example.org",
        "postgres://app:[REDACTED:url_password]@db/app?user=[REDACTED:email]",
    ),
]


@pytest.mark.parametrize(("text", "stored"), URL_PASSWORDS, ids=[t for t, _ in URL_PASSWORDS])
def test_url_passwords_with_slashes_hashes_and_question_marks(text: str, stored: str) -> None:
    assert REDACTOR.redact(text).text == stored


def test_a_url_password_with_a_slash_before_a_dotted_host_is_gone_with_the_host() -> None:
    # "kL2q@db.example.com" is an e-mail address to the email rule; overlapping matches are merged
    # into one marker named after the longer one, so the host goes too, never a piece of the password.
    out = REDACTOR.redact("postgres://app:Xy9/kL2q@db.example.com/app")
    assert out.text == "postgres://app:[REDACTED:email]/app"
    assert set(out.rules) == {"email"}


NEGATIVES = [
    # dates, versions, times, order numbers, short phone-like numbers
    "The release on 2024-01-15 at 09:30 shipped version 3.12.1 and build 2024.01.15.",
    "Order 4111-2222-3333 shipped; invoice 2024 - 0042 - 17 is paid.",
    "Room 12  34  56  78 is booked for 2024  01  15.",
    "Store numbers 5512  8890  1234 are open; ext. 4471 or 555-0142.",
    "Scores were +3 to 1 and +12 (2) on day 3; temperature +21.5 C.",
    "Totals: +1.5%, +44 (0) and (2024) 12 34.",
    "pi is +3.14159265 roughly, and the delta was +1.2.3",
    "Serial 2024 . 0115 . 0930 from the log.",
    "Dates 2024/01/15 and 15/01/2024; ratio 1/2/3; path 4111/docs/1111.",
    "A list:\n2019\n2020\n2021\nand a table 12\t34\t56\t78.",
    "Parts DE-12-34 and the code AB12-CD34-EF56 are not bank accounts.",
    # URLs without passwords
    "see https://example.com:8443/users/jane/profile and http://localhost:3000/api/v1?x=1",
    "open http://host:8080/a/b@c and https://example.com/path?q=a:b",
    "file:///home/jane/notes.md and http://[fe80]:8080/a@b",
    # `=>` and `=` in code that is not a secret
    "const f = token => token.trim(); items.map(x => x * 2)",
    "foreach ($tokens as $token => $value) { echo $value; }",
    "'password' => $request->input('password'),",
    "password => hash_password(raw_value)",
    "callback = lambda key: key.lower()",
    "timeout = 30; retries = 3; name = 'alpha'",
    "if password == expected: return True",
    "t('password', 'Enter your password')",
    'frame["token"] = token; credentials["password"] = password',
    "_styles[token] = style; tokens[level][token] = 'Text'",
    "data['password'] = raw_input('Password: ')",
    'aggregation: Optional["TokenStrategy"] = None',
    "[InvalidTokenError.errorCode]: 'invalid_token',",
    "user_name := strings.TrimSpace(input)",
    'passwordField := form.Field("password")',
    "the password policy requires rotation",
]


@pytest.mark.parametrize("text", NEGATIVES)
def test_ordinary_text_and_code_stay_unredacted(text: str) -> None:
    assert REDACTOR.redact(text).text == text


# Normalisation folds every dash-like character (Unicode Pd and U+2212) to "-": values written
# with them reach the number rules as ASCII, and the original characters are replaced.
DASHED = [
    ("card 4111\u20131111\u20131111\u20131111 ok", "card [REDACTED:payment_card] ok"),
    ("card 4111 \u2014 1111 \u2014 1111 \u2014 1111 ok", "card [REDACTED:payment_card] ok"),
    ("ssn 123\u201145\u20116789 ok", "ssn [REDACTED:us_ssn] ok"),
    ("call +44\u201020\u20107946\u20100958 ok", "call [REDACTED:phone_e164] ok"),
    ("call (415) 555\u22122671 ok", "call [REDACTED:phone_us] ok"),
    ("released 2024\u201301\u201315, build 3\u20132", "released 2024\u201301\u201315, build 3\u20132"),
]


@pytest.mark.parametrize(("text", "stored"), DASHED, ids=[ascii(t) for t, _ in DASHED])
def test_values_written_with_unicode_dashes_are_redacted_whole(text: str, stored: str) -> None:
    assert normalize_text("\u2013\u2014\u2010\u2011\u2212") == "-----"
    assert REDACTOR.redact(text).text == stored


def test_loopback_and_unspecified_addresses_stay_other_addresses_go() -> None:
    """127.x and 0.0.0.0 name no machine (the log line "no answer from 127.0.0.1:8765" stays
    useful); any other IPv4 address is redacted as before."""
    text = "dev on 127.0.0.1:8000, bind 0.0.0.0, db at 10.0.0.5 and 192.168.1.20, 0.0.0.12 too"
    assert REDACTOR.redact(text).text == (
        "dev on 127.0.0.1:8000, bind 0.0.0.0, db at [REDACTED:ipv4] and [REDACTED:ipv4], [REDACTED:ipv4] too"
    )
