"""A fake Ollama embed endpoint over real HTTP (``POST /api/embed``), for servers in subprocesses.

Vectors are deterministic: each word of a small synonym table maps to its concept's direction,
other words hash into buckets, so "automobile" is near "car" although they share no keyword.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DIMENSION = 32
CONCEPTS = {"car": 0, "automobile": 0, "vehicle": 0, "invoice": 1, "bill": 1}
_WORD = re.compile(r"\w+")


def embed(text: str) -> list[float]:
    vector = [0.0] * DIMENSION
    for word in _WORD.findall(text.casefold()):
        if word in CONCEPTS:
            vector[CONCEPTS[word]] += 3.0
        else:
            digest = hashlib.blake2b(word.encode(), digest_size=4).digest()
            vector[2 + int.from_bytes(digest, "little") % (DIMENSION - 2)] += 1.0
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    return [v / norm for v in vector]


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
        if self.path != "/api/embed" or not isinstance(body.get("input"), list):
            payload, status = {"error": "unknown route or missing input"}, 404
        else:
            payload, status = (
                {"model": body.get("model"), "embeddings": [embed(t) for t in body["input"]]},
                200,
            )
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def fake_ollama() -> Iterator[str]:
    """Serve the fake on a free loopback port; yields its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
