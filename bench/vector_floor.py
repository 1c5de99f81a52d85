"""What a builtin model's similarity floor keeps and drops, per XQuAD-dev language.

    python bench/vector_floor.py                       # the default model, six languages
    python bench/vector_floor.py --languages en,zh --floors 0.78,0.8 --json out.json
    python bench/vector_floor.py --model all-MiniLM-L6-v2-int8

For each of the first ``--articles`` articles of a language, the first ``--questions`` questions
of each paragraph are embedded as queries and the article's sentences as passages (sentences cut
as ``bench/xquad.py`` cuts them). Two shares per floor: answer sentences whose cosine to their
question is below the floor (relevant memories the floor would drop), and questions whose best
sentence of the next article, which does not hold the answer, reaches the floor (a question with
no answer among the memories that would still bring one back by meaning). The data is read at
run time from ``../shared/data/xquad-dev`` (or ``--data``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

from xquad import default_data, sentence_spans  # noqa: E402


def articles(
    data: Path, code: str, count: int, per_paragraph: int
) -> list[tuple[list[str], list[tuple[str, int]]]]:
    """``count`` articles of one language: their sentences and (question, answer sentence) pairs."""
    raw = json.loads((data / f"xquad.{code}.json").read_text(encoding="utf-8-sig"))
    out = []
    for article in raw["data"][:count]:
        sentences: list[str] = []
        questions: list[tuple[str, int]] = []
        for paragraph in article["paragraphs"]:
            context = paragraph["context"]
            spans = sentence_spans(code, context)
            base = len(sentences)
            sentences += [context[start:end].strip() for start, end in spans]
            for qa in paragraph["qas"][:per_paragraph]:
                offset = qa["answers"][0]["answer_start"]
                owner = next((i for i, (s, e) in enumerate(spans) if s <= offset < e), len(spans) - 1)
                questions.append((qa["question"], base + owner))
        out.append((sentences, questions))
    return out


def measure(
    embedder: Any, data: Path, code: str, args: argparse.Namespace, floors: list[float]
) -> dict[str, Any]:
    import numpy as np

    arts = articles(data, code, args.articles, args.questions)
    vectors = [embedder.embed_documents(sentences) for sentences, _ in arts]
    answer, unrelated = [], []
    for index, (_, questions) in enumerate(arts):
        other = vectors[(index + 1) % len(arts)]
        for question, owner in questions:
            query = embedder.embed_query(question)
            answer.append(float(vectors[index][owner] @ query))
            unrelated.append(float((other @ query).max()))
    a, u = np.array(answer), np.array(unrelated)
    return {
        "questions": len(a),
        "floors": {
            f"{floor:.2f}": {
                "answers_below": round(float((a < floor).mean()), 3),
                "unrelated_at_or_above": round(float((u >= floor).mean()), 3),
            }
            for floor in floors
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="", help="builtin model name (empty: the default)")
    parser.add_argument("--languages", default="en,de,zh,tr,ar,hi")
    parser.add_argument("--floors", default="0.76,0.78,0.79,0.80,0.81,0.82")
    parser.add_argument("--articles", type=int, default=12)
    parser.add_argument("--questions", type=int, default=2, help="questions per paragraph")
    parser.add_argument("--data", type=Path, default=None)
    parser.add_argument("--json", dest="json_file", type=Path, default=None)
    args = parser.parse_args(argv)
    from memwarden.embed.builtin import open_builtin

    embedder = open_builtin(args.model)
    embedder.load()
    data = args.data or default_data()
    floors = [float(f) for f in args.floors.split(",")]
    results = {}
    print(f"model {embedder.identity.model_id}, its floor {embedder.min_similarity}")
    print(f"{'lang':5} {'questions':>9}  " + "  ".join(f"{f:>13.2f}" for f in floors))
    print(f"{'':5} {'':>9}  " + "  ".join(f"{'below / above':>13}" for _ in floors))
    for code in args.languages.split(","):
        row = measure(embedder, data, code, args, floors)
        results[code] = row
        cells = "  ".join(
            f"{v['answers_below']:>6.3f}/{v['unrelated_at_or_above']:<6.3f}" for v in row["floors"].values()
        )
        print(f"{code:5} {row['questions']:>9}  {cells}", flush=True)
    print("below: answer sentences under the floor; above: unrelated articles' best sentence at or over it")
    if args.json_file is not None:
        args.json_file.write_text(
            json.dumps({"model": embedder.identity.model_id, "languages": results}, indent=1),
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
