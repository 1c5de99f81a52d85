"""The ``memwarden`` command (the console script and ``python -m memwarden``): ``cli.main.main``
with the cyclic garbage collector off while the command starts.

A cold ``memwarden search`` or prompt hook lives about 100 ms and frees what it allocates by
reference counting, yet the collector made 24 passes while its modules loaded, one of them over
every object of every module imported so far: about 7 ms of a cold search's wall time on the
2-core machine of bench/core.py. ``cli.main.main`` turns the collector back on before any other
command runs (servers, daemons, imports and re-indexing run long and may build cycles), so
only ``--version``, ``search`` and the hooks run without it, to their end.

Only these two entry points import this module: importing ``memwarden.cli.main`` (tests, the
MCP bundle) leaves the collector alone.
"""

import gc

gc.disable()


def main() -> int:
    from memwarden.cli.main import main as run_command

    return run_command()
