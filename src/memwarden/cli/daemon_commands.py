"""``memwarden daemon status|stop|restart``: see and control the user's shared daemon.

Exit codes follow systemctl: ``status`` exits 0 when a daemon serves, 3 when none runs and 1
when something holds the daemon's socket but does not answer; ``stop`` exits 0 once no daemon
runs (also when none did: there was nothing to stop); ``restart`` exits 0 once a new daemon
serves. An unknown subcommand is a usage error (2), said in one line.

A daemon that refuses this client (another memwarden version, other settings) is still
reported and stopped: its refusal names its pid and version (``daemon.server``), and a stop
then goes to that pid as SIGTERM, which the daemon answers as it answers ``stop``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

Handler = Callable[[argparse.Namespace], int]
ACTIONS = ("status", "stop", "restart")
NOT_RUNNING = 3  # systemctl status's code for a unit that is not active
NOT_ANSWERING = 1


def register(command: Callable[[str, Handler, str], argparse.ArgumentParser]) -> None:
    p = command("daemon", cmd_daemon, "show, stop or restart the shared memwarden daemon")
    p.add_argument(
        "action",
        metavar="status|stop|restart",
        help="status: pid, version, socket, uptime, clients, model (exit 3: not running); "
        "stop: let it finish its calls and leave; restart: stop, then start a new one",
    )
    p.add_argument("--json", action="store_true", help="print JSON")


def daemon_status(place: Any, settings: Any) -> dict[str, Any]:
    """What the daemon says of itself; ``running`` False when none is up, None when it does not answer."""
    from memwarden.daemon.client import (
        AttachRefused,
        DaemonAbsent,
        DaemonClient,
        DaemonForeign,
        DaemonUnavailable,
    )
    from memwarden.version import __version__

    status: dict[str, Any] = {"running": False, "client_version": __version__, "folder": str(place.folder)}
    if not place.may_be_up():
        return status
    status["socket"] = place.socket_file if _exists(place.socket_file) else place.token_file
    try:
        with DaemonClient.attach(place, settings, timeout=2.0) as client:
            ping = client.call("ping", timeout=5.0)
            vectors = ping.get("vectors") or {}
            status.update(
                running=True,
                pid=client.info.get("pid"),
                version=client.info.get("version"),
                uptime_s=ping.get("uptime_s"),
                clients=max(int(ping.get("clients", 1)) - 1, 0),  # not counting this status call
                model={
                    "embedder": vectors.get("embedder"),
                    "name": vectors.get("model"),
                    "state": vectors.get("state"),
                    "loaded": vectors.get("state") == "ready",
                },
            )
    except AttachRefused as exc:
        status.update(running=True, note=exc.reason, **exc.details)
    except (DaemonAbsent, DaemonForeign):
        pass  # a socket or token file left by a daemon that was killed: nothing runs
    except DaemonUnavailable as exc:
        status.update(running=None, note=str(exc))
    return status


def _exists(path: str) -> bool:
    import os

    return os.path.exists(path)


def _duration(seconds: float) -> str:
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}h {minutes:02d}m {secs:02d}s" if hours else f"{minutes}m {secs:02d}s"


def _model_line(model: dict[str, Any]) -> str:
    if model.get("embedder") in (None, "none"):
        return "none (MEMWARDEN_EMBEDDER=none: keyword search only)"
    name = f"{model.get('embedder')}" + (f", {model['name']}" if model.get("name") else "")
    return f"{'loaded' if model.get('loaded') else 'not loaded'} ({name}; {model.get('state')})"


def _print_status(status: dict[str, Any]) -> None:
    if status["running"] is False:
        print("memwarden daemon: not running")
        return
    if status["running"] is None:
        print(f"memwarden daemon: not answering ({status.get('note')}); socket {status.get('socket')}")
        return
    print(f"memwarden daemon: running (pid {status.get('pid')}, memwarden {status.get('version')})")
    rows = [("socket", status.get("socket"))]
    if "uptime_s" in status:
        rows += [
            ("uptime", _duration(float(status["uptime_s"] or 0))),
            ("clients", status.get("clients")),
            ("model", _model_line(status.get("model") or {})),
        ]
    if status.get("note"):
        rows.append(("note", status["note"]))
    for name, value in rows:
        print(f"  {name:<8} {value}")


def stop_daemon(place: Any, settings: Any) -> dict[str, Any]:
    """Stop the running daemon and wait until it has gone; ``stopped`` None when none ran."""
    from memwarden.daemon.client import DaemonClient, DaemonUnavailable
    from memwarden.daemon.launch import STOP_WAIT_S, terminate_daemon, wait_gone

    status = daemon_status(place, settings)
    if status["running"] is False:
        return {"stopped": None, "pid": None}
    pid = status.get("pid")
    if not isinstance(pid, int):
        raise DaemonUnavailable(f"the daemon does not answer and its pid is unknown ({status.get('note')})")
    if "uptime_s" in status:  # it serves this client: ask it as a client
        try:
            with DaemonClient.attach(place, settings, timeout=2.0) as client:
                client.call("stop", timeout=5.0)
        except DaemonUnavailable:
            pass  # it left between the status and the stop; wait_gone sees it
        gone = wait_gone(pid, STOP_WAIT_S)
    else:  # it refused this client (another version or settings): SIGTERM, which it handles alike
        gone = terminate_daemon(pid, STOP_WAIT_S)
    if not gone:
        raise DaemonUnavailable(f"the daemon (pid {pid}) did not stop within {STOP_WAIT_S:.0f} s")
    return {"stopped": True, "pid": pid}


def cmd_daemon(args: argparse.Namespace) -> int:
    if args.action not in ACTIONS:
        print(
            f"memwarden daemon: unknown subcommand {args.action!r}; use status, stop or restart",
            file=sys.stderr,
        )
        return 2
    from memwarden.cli.output import emit_json
    from memwarden.daemon.attach import daemon_place
    from memwarden.daemon.client import DaemonUnavailable
    from memwarden.settings_reader import load_hot_settings

    settings = load_hot_settings(**({"db": args.db} if getattr(args, "db", None) else {}))
    place = daemon_place()
    if args.action == "status":
        status = daemon_status(place, settings)
        if args.json:
            emit_json(status)
        else:
            _print_status(status)
        return 0 if status["running"] else NOT_RUNNING if status["running"] is False else NOT_ANSWERING
    try:
        stopped = stop_daemon(place, settings)
        if args.action == "restart":
            from memwarden.daemon.launch import attach_or_start

            with attach_or_start(place, settings) as client:
                stopped["started"] = client.info.get("pid")
    except DaemonUnavailable as exc:
        print(f"memwarden daemon {args.action}: {exc}", file=sys.stderr)
        return 1
    if args.json:
        emit_json(stopped)
    elif args.action == "stop":
        pid = stopped["pid"]
        print(f"memwarden daemon: stopped (pid {pid})" if pid else "memwarden daemon: not running")
    else:
        before = f"pid {stopped['pid']} stopped, " if stopped["pid"] else ""
        print(f"memwarden daemon: restarted ({before}pid {stopped['started']} serving)")
    return 0
