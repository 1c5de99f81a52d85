"""A small network over a memory's multilingual embedding: does it mean what injections mean?

The n-gram model (``attack_model``) reads characters, so it transfers poorly to a language or
a wording its training rows did not hold. The default embedder (multilingual-e5-small, 100
languages) places texts of the same intent near each other in any language, and every memory
gets its vector from the background embedder anyway; a head over that vector costs a few
microseconds once the vector exists.

The head is one hidden layer (ReLU) over the 384 floats of the passage vector
(``search.vector_path.embedding_text``: title and content) and one output, the mean of a few
networks trained with different seeds folded into one (their hidden units side by side). It was
fitted on the same rows as the n-gram model by ``scripts/train_semantic_screening.py`` and
standardised on the same benign calibration sentences, so its scores are in units of its spread
on ordinary text. A memory is flagged (``semantic_injection``) when no other flag was raised and
the head's score passes the threshold of its script (Latin letters, or others, as for the
n-gram model); the thresholds were chosen with the phrase rules and the n-gram model in front,
at the benign shares the n-gram model is held to.

The head applies only to vectors of the space it was trained in (``space`` in
``semantic_model.json``): another embedder, another model or ``MEMWARDEN_EMBEDDER=none`` leaves
screening as it is at write time. Weights ship as ``semantic_model.npy`` (float32: the input
layer with its bias as a last row, then the output weights as one more row) beside
``semantic_model.json``.
"""

from __future__ import annotations

import functools
import io
import json
from collections.abc import Sequence
from importlib import resources
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:  # numpy is imported by the functions that score
    import numpy as np
    import numpy.typing as npt

    from memwarden.models import VectorSpace

SEMANTIC_FILE = "semantic_model.json"
SEMANTIC_WEIGHTS_FILE = "semantic_model.npy"
#: The flag the head raises (``screening.FLAGS``).
SEMANTIC_FLAG = "semantic_injection"


class SemanticHead(NamedTuple):
    space: str  # the vector space's model id the head was trained in
    dimension: int
    hidden: npt.NDArray[np.float32]  # (dimension, units)
    hidden_bias: npt.NDArray[np.float32]  # (units,)
    output: npt.NDArray[np.float32]  # (units,)
    bias: float
    threshold: float  # for text mostly in Latin letters
    threshold_other: float  # for text mostly in other scripts


@functools.cache
def semantic_head() -> SemanticHead:
    """The shipped head, read on first use."""
    import numpy as np

    folder = resources.files(__package__)
    raw = json.loads(folder.joinpath(SEMANTIC_FILE).read_text("utf-8"))
    weights = np.load(io.BytesIO(folder.joinpath(SEMANTIC_WEIGHTS_FILE).read_bytes()), allow_pickle=False)
    dimension = int(raw["dimension"])
    if weights.shape[0] != dimension + 2:
        raise ValueError(
            f"{SEMANTIC_WEIGHTS_FILE} has {weights.shape[0]} rows, {SEMANTIC_FILE} says {dimension} + 2"
        )
    weights = weights.astype(np.float32)
    return SemanticHead(
        space=str(raw["space"]),
        dimension=dimension,
        hidden=np.ascontiguousarray(weights[:dimension]),
        hidden_bias=weights[dimension],
        output=weights[dimension + 1],
        bias=float(raw["bias"]),
        threshold=float(raw["threshold"]),
        threshold_other=float(raw["threshold_other"]),
    )


def head_for(space: VectorSpace) -> SemanticHead | None:
    """The shipped head when vectors of ``space`` are what it was trained on, else None."""
    head = semantic_head()
    if space.model_id != head.space or space.dimension != head.dimension:
        return None
    return head


def semantic_scores(head: SemanticHead, vectors: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """The head's score of each row of ``vectors`` (unit-length passage vectors of its space)."""
    import numpy as np

    hidden = np.maximum(np.asarray(vectors, dtype=np.float32) @ head.hidden + head.hidden_bias, 0.0)
    return hidden @ head.output + np.float32(head.bias)  # type: ignore[no-any-return]


def semantic_flagged(
    head: SemanticHead, vectors: npt.NDArray[np.float32], texts: Sequence[str]
) -> list[bool]:
    """Which of these memories (their vectors, and the text each was embedded from) the head flags:
    a score above the threshold of the text's script. The script is read only for the few scores
    above the lower of the two thresholds."""
    from memwarden.screening import model_view
    from memwarden.screening.attack_model import other_script

    scores = semantic_scores(head, vectors)
    lowest = min(head.threshold, head.threshold_other)
    flagged = []
    for score, text in zip(scores.tolist(), texts, strict=True):
        if score <= lowest:
            flagged.append(False)
            continue
        threshold = head.threshold_other if other_script(model_view(text)) else head.threshold
        flagged.append(score > threshold)
    return flagged


__all__ = [
    "SEMANTIC_FILE",
    "SEMANTIC_FLAG",
    "SEMANTIC_WEIGHTS_FILE",
    "SemanticHead",
    "head_for",
    "semantic_flagged",
    "semantic_head",
    "semantic_scores",
]
