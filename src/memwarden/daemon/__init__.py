"""One warm memwarden per user: a daemon that every local client shares (``MEMWARDEN_DAEMON``).

The daemon owns one ``MemoryService`` (one database, one loaded embedding model) and listens
on a Unix socket in a folder only its user can open (Windows, or ``transport="tcp"``: a
loopback port whose token sits in a 0600 file in that folder). Clients speak newline-delimited
JSON (``protocol``): a hello that names who they are and the settings they run with, then
either calls (``search``, ``add``, ``recall``; the CLI and the hooks) or a raw MCP session
(``memwarden serve`` relays its stdin/stdout). See docs/daemon.md.

Modules: ``place`` (where the files live, who may open them), ``protocol`` (frames, hello,
settings fingerprint), ``client`` (stdlib only: the hot paths import it), ``launch`` (start one,
race-safe), ``server`` (the daemon's event loop), ``calls`` (the call operations), ``relay``
(stdio <-> socket for ``serve``), ``__main__`` (``python -m memwarden.daemon``).
"""
