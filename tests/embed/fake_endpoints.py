"""A real HTTP server on a loopback port that speaks Ollama's and OpenAI's embedding APIs.

``mode`` picks the behaviour per test: ``ok``, ``error`` (a 500 with each API's error body),
``slow`` (holds the answer until ``release`` is set, bounded), ``wrong_dimension`` (answers
vectors of another size than before) or ``garbage`` (a 200 that is not the API's shape).
Vectors are derived from the text (hash buckets), so equal texts get equal vectors.
"""

from __future__ import annotations

import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def vector_for(text: str, dimension: int) -> list[float]:
    values = [0.0] * dimension
    for word in text.casefold().split():
        digest = hashlib.sha256(word.encode()).digest()
        values[digest[0] % dimension] += 1.0
    values[0] += 0.01
    return values


class EmbeddingEndpoint:
    def __init__(self, dimension: int = 8) -> None:
        self.dimension = dimension
        self.mode = "ok"
        self.release = threading.Event()
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                endpoint.requests.append(body)
                endpoint.headers.append(dict(self.headers))
                if endpoint.mode == "slow":
                    endpoint.release.wait(10)
                status, answer = endpoint.answer(self.path, body)
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        texts = body.get("input")
        texts = [texts] if isinstance(texts, str) else list(texts or [])
        size = self.dimension + 3 if self.mode == "wrong_dimension" else self.dimension
        vectors = [vector_for(t, size) for t in texts]
        if path == "/api/embed":
            if self.mode == "error":
                return 500, {"error": "model 'nomic-embed-text' not found, try pulling it first"}
            if self.mode == "garbage":
                return 200, {"embedding": "nope"}
            return 200, {
                "model": body.get("model"),
                "embeddings": vectors,
                "total_duration": 1000,
                "load_duration": 10,
                "prompt_eval_count": len(texts),
            }
        if path == "/v1/embeddings":
            if self.mode == "error":
                return 500, {
                    "error": {
                        "message": "The server had an error while processing your request.",
                        "type": "server_error",
                        "param": None,
                        "code": None,
                    }
                }
            if self.mode == "garbage":
                return 200, {"object": "list", "data": [{"object": "embedding"}]}
            data = [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)]
            data.reverse()  # the API allows any order; clients sort by index
            return 200, {
                "object": "list",
                "data": data,
                "model": body.get("model"),
                "usage": {"prompt_tokens": len(texts), "total_tokens": len(texts)},
            }
        return 404, {"error": f"no route {path}"}

    def __enter__(self) -> EmbeddingEndpoint:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()
