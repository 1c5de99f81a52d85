"""A memory the CLI adds through the daemon records the CLI as its route and the client's actor."""

from __future__ import annotations

from memwarden.daemon.client import DaemonClient
from memwarden.daemon.place import DaemonPlace
from memwarden.settings_reader import load_hot_settings


def test_an_add_through_the_daemon_records_cli_and_the_connections_actor(
    client: DaemonClient, place: DaemonPlace
) -> None:
    added = client.call("add", {"content": "The deploy window is Tuesday at 10:00"})
    assert added["memory"]["source"] == "cli"
    with DaemonClient.attach(place, load_hot_settings(tenant="acme", actor="bob")) as other:
        theirs = other.call("add", {"content": "Acme pays invoices within 30 days"})
    assert (theirs["memory"]["source"], theirs["memory"]["actor"]) == ("cli", "bob")
