"""The switches that keep third-party libraries from calling home or writing outside memwarden's
folders, set in the process before any of them is imported.

onnxruntime writes a device id and queues a telemetry event under
``~/.cache/Microsoft/DeveloperTools/.onnxruntime/`` as soon as it is imported, unless
``ORT_DISABLE_TELEMETRY`` is set before the import (``onnxruntime.disable_telemetry_events()``
afterwards is too late: the files are written by then). memwarden never downloads a model, so
the Hugging Face hub, should anything import it, is told to stay offline and send nothing.
tokenizers, numpy and threadpoolctl send nothing and write nothing: none of their switches is
needed (``TOKENIZERS_PARALLELISM`` only silences a warning after a fork, which memwarden does
not do once a tokenizer has run, and would slow batches).

``quiet_vendor_libraries()`` is called before every import of onnxruntime (``embed/builtin.py``)
and at the start of the CLI (``cli/entry.py``),
which starts the server and the daemon. It only sets values; ``settings_reader.py`` stays the only
reader of the environment. The values are forced, not defaulted: the promise that nothing
leaves the machine does not depend on what the shell exported. Children memwarden starts
inherit them.
"""

from __future__ import annotations

import os

#: Variable → value, for the libraries memwarden may import.
VENDOR_SWITCHES = {
    # onnxruntime: no device id file, no telemetry event (read when the library loads).
    "ORT_DISABLE_TELEMETRY": "1",
    # huggingface_hub (not imported by memwarden; a dependency of a dependency might): no
    # network at all, and no telemetry should it be asked to go online anyway.
    "HF_HUB_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
}

# onnxruntime's default logger: errors only. Its warnings (a cache folder it cannot create when
# HOME is read-only, say) are printed in colour on stderr, in the middle of a command's output.
ORT_LOG_SEVERITY_ERROR = 3


def quiet_vendor_libraries() -> None:
    """Set every ``VENDOR_SWITCHES`` variable in this process (and so in its children)."""
    for name, value in VENDOR_SWITCHES.items():
        os.environ[name] = value


def quiet_onnxruntime_logger(onnxruntime: object) -> None:
    """Lower onnxruntime's default logger to errors, once it is imported (sessions carry their
    own ``log_severity_level``)."""
    setter = getattr(onnxruntime, "set_default_logger_severity", None)
    if callable(setter):
        setter(ORT_LOG_SEVERITY_ERROR)
