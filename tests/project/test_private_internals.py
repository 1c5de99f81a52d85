"""Every private internal memwarden depends on, checked where it is used, failing by name.

docs/architecture.md ("Private internals we depend on") lists each one: what, why, and which
test guards it. A new CPython, MCP SDK or uvicorn release that renames, removes or re-signs one
fails here with a message naming the dependency, instead of somewhere deep in a hook, a
transport or a server (some of the code falls back silently: ``daemon/frames.py`` to ``json``,
``digests.py`` to ``hashlib``, so only this test notices that the saving is gone).
"""

from __future__ import annotations

import asyncio
import hashlib
import inspect
import json
import math
import socket
import subprocess
import sys
from typing import Any

import pytest


def require(condition: object, dependency: str, used_by: str, change: str) -> None:
    """Fail loudly, naming the private dependency, its user in memwarden and what changed."""
    if not condition:
        pytest.fail(
            f"PRIVATE INTERNAL CHANGED: {dependency} (used by {used_by}): {change}. "
            "See docs/architecture.md#private-internals-we-depend-on for why it is used and what to do.",
            pytrace=False,
        )


def parameters(function: Any) -> list[str]:
    return list(inspect.signature(function).parameters)


# --- CPython ---------------------------------------------------------------------------------


def test_cpython_json_encoder_and_scanner_still_serve_the_daemon_frames() -> None:
    from memwarden.daemon import frames

    try:
        import _json
    except ImportError:
        _json = None  # type: ignore[assignment]
    where = "memwarden/daemon/frames.py"
    require(_json is not None, "CPython module _json", where, "it cannot be imported")
    for name in ("make_encoder", "make_scanner", "encode_basestring"):
        require(hasattr(_json, name), f"_json.{name}", where, "the attribute is missing")
    require(
        frames._encode is not None and frames._scan is not None,
        "_json.make_encoder(9 positional arguments) / _json.make_scanner(context)",
        where,
        "building them raised, so every frame now goes through the json package",
    )
    samples: list[Any] = [
        {"a": [1, 2.5, None, True, False], "é": 'ü\u2028\n"', "n": 10**30},
        [],
        "plain",
        {"nested": {"deep": [[[{}]]]}},
        -0.0,
    ]
    for value in samples:
        line = frames.dumps(value)
        require(
            line == json.dumps(value, ensure_ascii=False, separators=(",", ":")),
            "_json.make_encoder",
            where,
            f"encodes {value!r} differently from json.dumps",
        )
        require(
            frames.loads(line.encode()) == json.loads(line),
            "_json.make_scanner",
            where,
            "decodes differently",
        )
    require(math.isnan(frames.loads(b"NaN")), "_json.make_scanner", where, "no longer reads NaN as json does")
    with pytest.raises(ValueError):
        frames.loads(b'{"a": 1} trailing')


def test_cpython_sha256_module_backs_the_per_prompt_digests() -> None:
    from memwarden import digests

    name = "_sha256" if sys.version_info < (3, 12) else "_sha2"
    where = "memwarden/digests.py"
    require(
        getattr(digests.sha256, "__module__", None) == name,
        f"CPython module {name}.sha256",
        where,
        f"digests.sha256 comes from {getattr(digests.sha256, '__module__', '?')}, so hashlib "
        "(and OpenSSL) is imported on every cold search again",
    )
    for data in (b"", b"memwarden", bytes(range(256)) * 10):
        require(
            digests.sha256(data).hexdigest() == hashlib.sha256(data).hexdigest(),
            f"{name}.sha256",
            where,
            "gives a digest different from hashlib's",
        )


def test_cpython_socket_type_connects_the_hook_to_a_loopback_listener() -> None:
    import _socket

    from memwarden.net import connected

    where = "memwarden/net.py, memwarden/daemon/client.py, memwarden/hooks/loopback.py, memwarden/peer.py"
    for name in (
        "socket",
        "AF_INET",
        "AF_INET6",
        "AF_UNIX",
        "SOCK_STREAM",
        "SOCK_DGRAM",
        "IPPROTO_TCP",
        "inet_pton",
    ):
        require(hasattr(_socket, name), f"_socket.{name}", where, "the attribute is missing")
    if sys.platform.startswith("linux"):
        require(hasattr(_socket, "AF_NETLINK"), "_socket.AF_NETLINK", "memwarden/peer.py", "missing on Linux")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port = listener.getsockname()[1]
        sock = connected(_socket.AF_INET, ("127.0.0.1", port), 2.0)
        try:
            peer, _ = listener.accept()
            with peer:
                sock.sendall(b"ping")
                require(peer.recv(4) == b"ping", "_socket.socket", where, "a connection does not carry bytes")
        finally:
            sock.close()
    require(
        _socket.inet_pton(_socket.AF_INET, "127.0.0.1") == b"\x7f\x00\x00\x01",
        "_socket.inet_pton",
        "memwarden/peer.py",
        "packs an address differently",
    )


def test_cpython_thread_module_gives_locks_and_thread_locals() -> None:
    import _thread  # documented low-level API; listed because the SQLite store relies on it

    where = "memwarden/store/sqlite/database.py, shm.py, audit.py"
    for name in ("allocate_lock", "_local", "get_ident"):
        require(hasattr(_thread, name), f"_thread.{name}", where, "the attribute is missing")
    lock = _thread.allocate_lock()
    require(lock.acquire(False) and not lock.acquire(False), "_thread.allocate_lock", where, "not a lock")
    lock.release()


def test_atexit_run_exitfuncs_runs_the_handlers_before_the_fast_exit() -> None:
    code = (
        "import atexit\n"
        "from memwarden.cli.entry import exit_without_teardown\n"
        "atexit.register(print, 'handler ran', flush=True)\n"
        "print('output', end=' ')\n"
        "exit_without_teardown(3)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    require(
        hasattr(__import__("atexit"), "_run_exitfuncs"),
        "atexit._run_exitfuncs",
        "memwarden/cli/entry.py",
        "the function is missing",
    )
    require(
        done.returncode == 3 and done.stdout == "output handler ran\n",
        "atexit._run_exitfuncs",
        "memwarden/cli/entry.py",
        f"the handlers no longer run before os._exit (exit {done.returncode}, stdout {done.stdout!r}, "
        f"stderr {done.stderr[-300:]!r})",
    )


def test_argparse_keeps_its_actions_list() -> None:
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--flag")
    require(
        isinstance(getattr(parser, "_actions", None), list)
        and any(getattr(a, "option_strings", None) == ["--flag"] for a in parser._actions),
        "argparse.ArgumentParser._actions",
        "memwarden/cli/main.py",
        "no longer the list of the parser's actions",
    )


# --- uvicorn ---------------------------------------------------------------------------------


def test_uvicorn_h11_protocol_offers_what_the_connection_guard_overrides() -> None:
    where = "memwarden/http/connections.py (guarded_protocol)"
    try:
        from uvicorn.protocols.http.h11_impl import H11Protocol
    except ImportError as exc:
        require(False, "uvicorn.protocols.http.h11_impl.H11Protocol", where, f"cannot be imported ({exc})")
        return
    expected = {
        "connection_made": ["self", "transport"],
        "data_received": ["self", "data"],
        "connection_lost": ["self", "exc"],
    }
    for method, names in expected.items():
        require(
            hasattr(H11Protocol, method) and parameters(getattr(H11Protocol, method)) == names,
            f"H11Protocol.{method}{tuple(names[1:])}",
            where,
            "the method is missing or its parameters changed",
        )
    from uvicorn.config import Config
    from uvicorn.server import ServerState

    async def app(scope: Any, receive: Any, send: Any) -> None:  # pragma: no cover - never called
        raise AssertionError

    config = Config(app=app, lifespan="off", log_config=None)
    config.load()
    loop = asyncio.new_event_loop()
    try:
        protocol = H11Protocol(config, ServerState(), {}, _loop=loop)
    finally:
        loop.close()
    for attribute in ("conn", "connections", "loop"):
        require(
            hasattr(protocol, attribute),
            f"H11Protocol.{attribute}",
            where,
            "the instance attribute the guard reads is gone",
        )
    require(
        hasattr(protocol.conn, "their_state") and hasattr(protocol.conn, "trailing_data"),
        "h11.Connection.their_state / trailing_data (through H11Protocol.conn)",
        where,
        "the attributes the head deadline reads are gone",
    )
    from memwarden.http.connections import guarded_protocol

    require(
        issubclass(guarded_protocol(4), H11Protocol),
        "H11Protocol",
        where,
        "the guard no longer subclasses it",
    )


# --- MCP SDK ---------------------------------------------------------------------------------


def _sdk_server() -> Any:
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("internals")

    @server.tool()
    def add_one(value: int) -> int:
        return value + 1

    @server.prompt()
    def greet(name: str) -> str:
        return f"hello {name}"

    @server.resource("memo://{key}")
    def memo(key: str) -> str:
        return key

    return server


def test_mcp_sdk_managers_still_hold_the_registries_memwarden_wraps() -> None:
    from mcp.server.mcpserver.tools.base import Tool

    where = "memwarden/mcp/server.py (limit_tool_rates), memwarden/mcp/arguments.py (explain_argument_errors)"
    server = _sdk_server()
    tools = getattr(getattr(server, "_tool_manager", None), "_tools", None)
    require(
        isinstance(tools, dict) and "add_one" in tools,
        "MCPServer._tool_manager._tools",
        where,
        "not a dict of tools",
    )
    tool = tools["add_one"]  # type: ignore[index]
    for field in ("fn", "context_kwarg", "model_copy"):
        require(hasattr(tool, field), f"mcp Tool.{field}", where, "the field is missing")
    require(
        parameters(Tool.run) == ["self", "arguments", "context", "convert_result"],
        "mcp Tool.run(arguments, context, convert_result)",
        "memwarden/mcp/arguments.py (ExplainedTool.run overrides it)",
        f"the parameters are now {parameters(Tool.run)}",
    )
    prompts = getattr(getattr(server, "_prompt_manager", None), "_prompts", None)
    require(
        isinstance(prompts, dict) and "greet" in prompts,
        "MCPServer._prompt_manager._prompts",
        where,
        "not a dict",
    )
    templates = getattr(getattr(server, "_resource_manager", None), "_templates", None)
    require(
        isinstance(templates, dict) and "memo://{key}" in templates,
        "MCPServer._resource_manager._templates",
        where,
        "not a dict of resource templates",
    )


def test_mcp_sdk_low_level_server_and_context_streams_serve_stdio_and_daemon_connections() -> None:
    where = "memwarden/mcp/stdio.py, memwarden/mcp/stream.py"
    server = _sdk_server()
    lowlevel = getattr(server, "_lowlevel_server", None)
    require(lowlevel is not None, "MCPServer._lowlevel_server", where, "the attribute is missing")
    require(
        parameters(lowlevel.run)[:3] == ["read_stream", "write_stream", "initialization_options"],
        "Server.run(read_stream, write_stream, initialization_options)",
        where,
        f"the parameters are now {parameters(lowlevel.run)}",
    )
    require(
        callable(getattr(lowlevel, "create_initialization_options", None)),
        "Server.create_initialization_options()",
        where,
        "the method is missing",
    )
    try:
        from mcp.shared._context_streams import (
            ContextReceiveStream,
            ContextSendStream,
            create_context_streams,
        )
    except ImportError as exc:
        require(False, "mcp.shared._context_streams", "memwarden/mcp/stdio.py", f"cannot be imported ({exc})")
        return
    from mcp.shared.message import SessionMessage

    send, receive = create_context_streams[SessionMessage](0)
    require(
        isinstance(send, ContextSendStream) and isinstance(receive, ContextReceiveStream),
        "create_context_streams[T](size) -> (ContextSendStream, ContextReceiveStream)",
        "memwarden/mcp/stdio.py",
        "it returns other types or another order",
    )
    send.close()
    receive.close()


def test_mcp_sdk_session_manager_still_tracks_and_discards_http_sessions() -> None:
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

    where = "memwarden/mcp/server.py (McpSessions)"
    manager = StreamableHTTPSessionManager(app=_sdk_server()._lowlevel_server)
    require(
        isinstance(getattr(manager, "_server_instances", None), dict),
        "StreamableHTTPSessionManager._server_instances",
        where,
        "no longer the dict of open sessions",
    )
    discard = getattr(StreamableHTTPSessionManager, "_discard_session", None)
    require(
        discard is not None
        and inspect.iscoroutinefunction(discard)
        and parameters(discard) == ["self", "session_id", "transport"],
        "StreamableHTTPSessionManager._discard_session(session_id, transport)",
        where,
        "missing, not async, or its parameters changed",
    )
