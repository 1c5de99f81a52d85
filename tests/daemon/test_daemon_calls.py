"""The daemon serves the CLI's and the hooks' calls: one process, each client as itself."""

from __future__ import annotations

import threading

import pytest
from audit_rows import audit_rows
from conftest import alive, wait_until

from memwarden.daemon.client import AttachRefused, DaemonClient
from memwarden.daemon.launch import attach_or_start
from memwarden.daemon.place import DaemonPlace
from memwarden.errors import InvalidInput
from memwarden.settings_reader import HotSettings, load_hot_settings


def test_two_clients_racing_to_start_it_end_with_one_daemon(
    place: DaemonPlace, settings: HotSettings
) -> None:
    pids: list[int] = []
    errors: list[BaseException] = []

    def start() -> None:
        try:
            with attach_or_start(place, settings) as client:
                pids.append(client.call("ping")["pid"])
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    racers = [threading.Thread(target=start) for _ in range(3)]
    for racer in racers:
        racer.start()
    for racer in racers:
        racer.join(timeout=90)
    assert errors == []
    assert len(pids) == 3 and len(set(pids)) == 1, pids


def test_each_connection_acts_as_the_tenant_and_actor_it_names(
    client: DaemonClient, place: DaemonPlace
) -> None:
    added = client.call("add", {"content": "The deploy window is Tuesday at 10:00", "project": "ops"})
    other = load_hot_settings(tenant="acme", actor="bob")
    with DaemonClient.attach(place, other) as acme:
        assert acme.call("search", {"query": "deploy window"})["hits"] == []
        mine = acme.call("add", {"content": "Acme pays invoices within 30 days"})
        recalled = acme.call("recall", {"query": "invoices", "projects": [None], "limit": 3})
        assert [h["id"] for h in recalled["hits"]] == [mine["memory"]["id"]]
    # The recall is one audit row, by the connection's actor in its tenant, over every project.
    rows = [r for r in audit_rows(load_hot_settings().database_url()) if r["actor"] == "bob"]
    assert [r["action"] for r in rows] == ["search", "add", "search"]
    assert (rows[-1]["tenant"], rows[-1]["project"], rows[-1]["memory_ids"]) == (
        "acme",
        None,
        [mine["memory"]["id"]],
    )
    hits = client.call("search", {"query": "deploy window"})["hits"]
    assert [h["id"] for h in hits] == [added["memory"]["id"]]
    assert client.call("search", {"query": "invoices"})["hits"] == []


def test_a_client_whose_shared_settings_differ_is_refused_by_name(
    client: DaemonClient, place: DaemonPlace
) -> None:
    with pytest.raises(AttachRefused) as refused:
        DaemonClient.attach(place, load_hot_settings(languages="english", redaction="off"))
    assert refused.value.code == "settings_differ"
    assert "MEMWARDEN_LANGUAGES" in refused.value.reason and "MEMWARDEN_REDACTION" in refused.value.reason
    with pytest.raises(AttachRefused, match="MEMWARDEN_DB"):
        DaemonClient.attach(place, load_hot_settings(db=str(place.folder / "other.db")))
    assert client.call("ping")["clients"] >= 1  # still serving the others


def test_a_bad_call_gets_the_same_error_as_in_process_and_changes_nothing(client: DaemonClient) -> None:
    with pytest.raises(InvalidInput, match="content"):
        client.call("add", {"content": "   "})
    with pytest.raises(Exception, match="argument limit must be int"):
        client.call("search", {"query": "x", "limit": "ten"})
    with pytest.raises(Exception, match="unknown argument"):
        client.call("add", {"content": "x", "tenant": "someone-else"})
    assert client.call("search", {"query": ""})["hits"] == []


def test_the_daemon_leaves_after_its_idle_time(place: DaemonPlace, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMWARDEN_DAEMON_IDLE_S", "1")
    with attach_or_start(place, load_hot_settings()) as client:
        pid = client.call("ping")["pid"]
    wait_until(lambda: not alive(pid), timeout=30, what="the idle daemon to exit")
    assert not place.socket_path.exists()


def test_a_daemon_killed_with_sigkill_is_replaced_on_the_next_start(
    place: DaemonPlace, settings: HotSettings
) -> None:
    import os
    import signal

    with attach_or_start(place, settings) as client:
        first = client.call("ping")["pid"]
        client.call("add", {"content": "acknowledged before the crash"})
    os.kill(first, signal.SIGKILL)
    wait_until(lambda: not alive(first), what="the daemon to die")
    assert place.socket_path.exists()  # left behind: the next start must cope
    with attach_or_start(place, settings) as client:
        assert client.call("ping")["pid"] != first
        assert len(client.call("search", {"query": "crash"})["hits"]) == 1


def test_stopping_with_idle_clients_logs_no_error(place: DaemonPlace, settings: HotSettings) -> None:
    """anyio wakes a cancelled reader when a client hangs up as the daemon stops; that is not an
    error worth an ERROR line at every stop (server._quiet_late_wakeups)."""
    for _ in range(3):
        with attach_or_start(place, settings) as idle:
            idle.call("ping")
            other = DaemonClient.attach(place, settings)
            with DaemonClient.attach(place, settings) as stopper:
                pid = stopper.call("ping")["pid"]
                stopper.call("stop")
            other.close()
        wait_until(lambda: not alive(pid), timeout=15, what="the daemon to stop")  # noqa: B023
    path = settings.log_path()
    log = path.read_text(encoding="utf-8") if path.exists() else ""
    assert "InvalidStateError" not in log and "ERROR" not in log


def test_only_that_late_wakeup_is_kept_out_of_the_log(caplog: pytest.LogCaptureFixture) -> None:
    import asyncio

    from memwarden.daemon.server import _quiet_late_wakeups

    loop = asyncio.new_event_loop()
    try:
        cancelled, pending = loop.create_future(), loop.create_future()
        cancelled.cancel()
        late = loop.call_soon(cancelled.set_result, None)
        other = loop.call_soon(pending.set_result, None)
        with caplog.at_level("ERROR", logger="asyncio"):
            # Only what the handler logs: an earlier test in this worker may have left asyncio's
            # logger at DEBUG, and creating the loop then logged "Using selector".
            caplog.clear()
            _quiet_late_wakeups(
                loop, {"message": "late", "exception": asyncio.InvalidStateError(), "handle": late}
            )
            assert caplog.records == []
            _quiet_late_wakeups(
                loop, {"message": "odd", "exception": asyncio.InvalidStateError(), "handle": other}
            )
            _quiet_late_wakeups(loop, {"message": "boom", "exception": ValueError("boom"), "handle": late})
        assert [r.getMessage().split("\n")[0] for r in caplog.records] == ["odd", "boom"]
        late.cancel()
        other.cancel()
    finally:
        loop.close()
