"""The attach protocol's JSON (daemon/frames.py) reads and writes exactly as ``json`` does."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memwarden.daemon import frames
from memwarden.daemon.protocol import ProtocolError, decode, encode

SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text()
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


def same(a: object, b: object) -> bool:
    """Equal, counting NaN equal to NaN (json round-trips it)."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


@given(VALUES)
def test_dumps_writes_what_json_writes_and_loads_reads_it_back(value: object) -> None:
    text = frames.dumps(value)
    assert text == json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    assert same(frames.loads(text), json.loads(text))
    assert same(frames.loads(text.encode("utf-8")), value if not isinstance(value, tuple) else list(value))


@given(st.text(max_size=40))
def test_any_line_reads_as_json_reads_it_or_fails_as_json_fails(line: str) -> None:
    try:
        expected: object = json.loads(line)
    except ValueError as exc:
        with pytest.raises(type(exc)) as failed:
            frames.loads(line)
        assert str(failed.value) == str(exc)
    else:
        assert same(frames.loads(line), expected)


def test_whitespace_extra_data_bad_utf8_and_a_byte_order_mark_behave_as_in_json() -> None:
    assert frames.loads(b' \t{"a": [1, 2.5, null]}\r\n') == {"a": [1, 2.5, None]}
    for bad in (b'{"a": 1} x', b"", b"\xff\xfe{", b"[1,]", b'{"a" 1}', b"NaNa"):
        with pytest.raises(ValueError) as mine:
            frames.loads(bad)
        with pytest.raises(ValueError) as theirs:
            json.loads(bad)
        assert (type(mine.value), str(mine.value)) == (type(theirs.value), str(theirs.value))
    assert frames.loads("\ufeff".encode() + b"[1]") == json.loads("\ufeff".encode() + b"[1]")
    with pytest.raises(TypeError, match="set is not JSON serializable"):
        frames.dumps({"a": {1, 2}})


def test_the_protocol_names_a_frame_that_is_not_json() -> None:
    assert decode(encode({"id": 1, "op": "ping", "args": {"é": "ü\n"}})) == {
        "id": 1,
        "op": "ping",
        "args": {"é": "ü\n"},
    }
    with pytest.raises(ProtocolError, match=r"not a JSON line \(Expecting value: line 1 column 1"):
        decode(b"hello\n")


def test_a_bad_line_fails_as_in_json_even_before_json_is_imported() -> None:
    """The scanner names a syntax error with json.decoder's class, which it finds only once json
    is imported; the quick prompt hook never imports json until then."""
    code = (
        "import sys\n"
        "from memwarden.daemon import frames\n"
        "assert 'json' not in sys.modules\n"
        "for bad in ('{not json', '[1,', 'x', '{\"a\": 1} 2'):\n"
        "    try:\n"
        "        frames.loads(bad)\n"
        "    except ValueError as exc:\n"
        "        print(type(exc).__name__, exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    expected = []
    for bad in ("{not json", "[1,", "x", '{"a": 1} 2'):
        with pytest.raises(ValueError) as failed:
            json.loads(bad)
        expected.append(f"{type(failed.value).__name__} {failed.value}")
    assert done.stdout.splitlines() == expected
