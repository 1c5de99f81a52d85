"""Claude Code hooks: recall on every prompt, pinned memories at session start, and one nudge
to store what was learned before a session ends.

Each hook reads Claude Code's hook JSON on stdin and prints the hook output JSON Claude Code
documents (``hookSpecificOutput.additionalContext``, or ``decision: "block"`` with a ``reason``
for Stop). A hook never breaks a session: on any failure it prints nothing, exits 0 and writes
one line to the log file. The prompt hook runs before every message, so its path imports no
pydantic, MCP SDK, numpy or logging (see ``settings_reader`` and bench/hooks.py).

    payload.py   hook input: parsing, the project a session belongs to, trivial prompts
    render.py    memories as quoted data within a token budget
    recall.py    the search itself: through a loopback server, or on the database
    loopback.py  a minimal HTTP client (importing http.client would cost more than the request);
                 the socket and line helpers it shares with the daemon client are in ``net``
    paths.py     the HTTP routes the hooks post to (the server imports them from here)
    sessions.py  per-session state for SessionStart/Stop, and the service the hooks read through
    prompt.py    the prompt hook's answer to one hook JSON (run by the hook, or by the daemon)
    prompt_request.py   a whole prompt hook asked of the daemon or server: checks and answer
    quick.py     the prompt hook through a running daemon, with the fewest imports
    commands.py  the three hook commands and their fail-silent wrapper
    claude_install.py, skill.py   ``memwarden install claude-code`` and the skill it writes
"""
