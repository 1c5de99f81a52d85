"""Second attack round (issue 33 item 6): token guessing on the dashboard's login form.

Before, a script could try about 90 tokens a second on one connection for ever, unlogged and
unthrottled. Now ten wrong tokens within a minute close the form to that guesser for the rest
of the minute, the right token included.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import httpx
from ui_helpers import HOST, TOKEN

from memwarden.token_guesses import LIMIT, FailedLogins
from memwarden.ui.security import COOKIE


def try_token(client: httpx.Client, token: str) -> httpx.Response:
    form = client.get("/ui/login")
    nonce = re.search(r'name="csrf" value="([^"]+)"', form.text)
    assert nonce is not None
    return client.post("/ui/login", data={"csrf": nonce.group(1), "token": token}, headers={"origin": HOST})


def test_ten_wrong_tokens_close_the_login_form_even_to_the_right_one(client: httpx.Client) -> None:
    assert try_token(client, TOKEN).status_code == 303  # the right token works at first
    client.cookies.clear()
    for guess in range(LIMIT):
        assert try_token(client, f"mwt_wrong-guess-{guess}").status_code == 401
    refused = try_token(client, TOKEN)
    assert refused.status_code == 429
    assert 0 < int(refused.headers["retry-after"]) <= 60
    assert "Too many wrong tokens" in refused.text
    assert COOKIE not in refused.cookies and COOKIE not in client.cookies
    assert client.get("/ui/").status_code == 303  # not logged in


def test_the_limit_is_per_guesser_and_lifts_after_the_window() -> None:
    now = [datetime(2026, 3, 1, tzinfo=UTC)]
    limits = FailedLogins(lambda: now[0])
    for _ in range(LIMIT):
        limits.failed("uid:65534")
    assert limits.wait_s("uid:65534") == 60.0
    assert limits.wait_s("uid:1000") == 0.0  # the owner is not locked out by another account
    now[0] += timedelta(seconds=59)
    assert limits.wait_s("uid:65534") == 1.0
    now[0] += timedelta(seconds=1)
    assert limits.wait_s("uid:65534") == 0.0
