"""The hostile-values test of every dashboard page (tests/ui/test_ui_hostile_values.py) on the
dashboard the user's daemon serves (``memwarden ui`` with ``MEMWARDEN_DAEMON=auto``): the same
values in every stored field, the same checks, through a real daemon process and a real Chromium.
A file of its own so the two long browser runs go to different test workers."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from test_ui_hostile_values import Site, hostile_site, watched  # noqa: F401 (watched: a fixture)
from test_ui_hostile_values import (
    test_no_hostile_stored_value_runs_requests_or_becomes_markup_on_any_page as test_no_hostile_value_runs_on_the_daemon_dashboard,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # a real daemon and a real browser

__all__ = ["test_no_hostile_value_runs_on_the_daemon_dashboard"]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    yield from hostile_site(tmp_path_factory, daemon=True)
