"""Write the bundled demo set ``tw.datasets.llm_demo()``: simulated lm-evaluation-harness logs.

Four simulated language models answer two simulated multiple-choice tasks (``demo_stem`` and
``demo_humanities``, the subtasks of the group ``demo_mmlu``; 200 questions each, 4 options, 8
subjects of 25 questions). Each model's option scores are

    logit[o] = 2.5 * (o == answer) * (ability + easiness_q + subject_s + family_noise_qf)
               + option_noise_qo,

with question easiness ``easiness_q ~ N(0, 0.8)``, a subject effect ``subject_s ~ N(0, 0.6)``
(questions of one subject are correlated: clusters), and a per-family noise shared by the two
models of one family (``demo-7b`` and ``demo-7b-chat`` fail on the same questions more often
than their accuracies imply; ``demo-13b`` and ``demo-1b`` are independent families). The
log-likelihood of an option is ``log_softmax(logit)[o] - 0.04 * len(option text)`` (longer
continuations are less likely, so ``acc`` and ``acc_norm`` differ).

The files are written exactly as lm-evaluation-harness 0.4.x writes them: the record of
``lm_eval/evaluator.py`` (``evaluate``: the ``example`` dict with ``doc_hash`` =
sha256 of ``json.dumps(doc, indent=2, ensure_ascii=False)``, ``prompt_hash`` of the first
request's context, ``target_hash`` of ``str(target)``, then the metrics), sanitised as
``lm_eval/loggers/evaluation_tracker.py`` (``save_results_samples``: ``arguments`` as
``gen_args_<i>.arg_<j>``, ``resps``/``filtered_resps`` as text, ``target`` as text), next to a
``results_<date>.json`` with ``model_name``, ``config.model_args``, ``configs`` and
``group_subtasks``. The ``acc``/``acc_norm`` values follow ``ConfigurableTask.process_results``
(``lm_eval/api/task.py``: argmax of the log-likelihoods, and of them divided by ``len(choice)``).
The sample files are gzip-compressed to keep the package small (``read_lm_eval`` reads both).

Run: ``python benchmarks/data/make_llm_demo.py`` (seed 20261123; rewrites
``src/trialwise/datasets/llm-demo/``).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[2] / "src" / "trialwise" / "datasets" / "llm-demo"
SEED = 20261123
DATE = "2026-11-23T12-00-00.000000"
TASKS = {
    "demo_stem": ["astronomy", "biology", "chemistry", "computer_science", "mathematics", "physics",
                  "statistics", "engineering"],
    "demo_humanities": ["history", "law", "philosophy", "literature", "religion", "ethics", "art",
                        "linguistics"],
}
PER_SUBJECT = 25
WORDS = ("red giant", "mitochondria", "covalent bond", "hash table", "prime", "inertia", "variance", "torque",
         "treaty", "precedent", "syllogism", "sonnet", "monotheism", "duty", "fresco", "phoneme", "none of these",
         "all of the above", "a larger value", "it depends on the context", "zero", "twice as much")
# model: (ability, family)
MODELS = {"demo-13b": (1.0, "a"), "demo-7b": (0.55, "b"), "demo-7b-chat": (0.65, "b"), "demo-1b": (0.0, "c")}


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def documents(rng: np.random.Generator, task: str) -> list[dict]:
    docs = []
    for subject in TASKS[task]:
        for j in range(PER_SUBJECT):
            choices = [str(w) for w in rng.choice(WORDS, 4, replace=False)]
            docs.append({"question": f"{subject.replace('_', ' ').title()} question {j + 1}: which is right?",
                         "subject": subject, "choices": choices, "answer": int(rng.integers(4))})
    return docs


def write_model(folder: Path, model: str, logs: dict[str, list[dict]], accuracy: dict[str, float]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    results = {
        "results": {t: {"alias": t, "acc,none": accuracy[t], "acc_stderr,none": "N/A"} for t in logs},
        "group_subtasks": {"demo_mmlu": sorted(logs)},
        "configs": {t: {"task": t, "output_type": "multiple_choice", "target_delimiter": " "} for t in logs},
        "config": {"model": "hf", "model_args": f"pretrained=sim/{model}", "batch_size": 1},
        "model_name": f"sim/{model}",
        "model_name_sanitized": f"sim__{model}",
        "date": 0.0,
    }
    (folder / f"results_{DATE}.json").write_text(json.dumps(results, indent=2, ensure_ascii=False), encoding="utf-8")
    for task, samples in logs.items():
        text = "".join(json.dumps(sample, ensure_ascii=False) + "\n" for sample in samples)
        with open(folder / f"samples_{task}_{DATE}.jsonl.gz", "wb") as raw:  # no time stamp: reruns are identical
            with gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=9, mtime=0) as fh:
                fh.write(text.encode("utf-8"))


def main() -> None:
    rng = np.random.default_rng(SEED)
    if OUT.exists():
        shutil.rmtree(OUT)
    logs: dict[str, dict[str, list[dict]]] = {m: {} for m in MODELS}
    accuracy: dict[str, dict[str, float]] = {m: {} for m in MODELS}
    for task in TASKS:
        docs = documents(rng, task)
        n = len(docs)
        easiness = rng.normal(0, 0.8, n)
        subject_effect = np.repeat(rng.normal(0, 0.6, len(TASKS[task])), PER_SUBJECT)
        family_noise = {f: rng.normal(0, 0.7, n) for f in "abc"}
        for model, (ability, family) in MODELS.items():
            samples = []
            for q, doc in enumerate(docs):
                gold = doc["answer"]
                logit = rng.normal(0, 1.0, 4)
                logit[gold] += 2.5 * (ability + easiness[q] + subject_effect[q] + family_noise[family][q])
                lls = logit - np.logaddexp.reduce(logit) - 0.04 * np.array([len(c) for c in doc["choices"]])
                context = f"{doc['question']}\nAnswer:"
                arguments = [(context, f" {c}") for c in doc["choices"]]
                pred = int(np.argmax(lls))
                pred_norm = int(np.argmax(lls / np.array([float(len(c)) for c in doc["choices"]])))
                greedy = [False] * 4
                example = {
                    "doc_id": q, "doc": doc, "target": gold,
                    "arguments": arguments,
                    "resps": [[(float(ll), g)] for ll, g in zip(lls, greedy)],
                    "filtered_resps": [(float(ll), g) for ll, g in zip(lls, greedy)],
                    "filter": "none", "metrics": ["acc", "acc_norm"],
                    "doc_hash": sha(json.dumps(doc, indent=2, ensure_ascii=False)),
                    "prompt_hash": sha(context), "target_hash": sha(str(gold)),
                    "acc": 1.0 if pred == gold else 0.0, "acc_norm": 1.0 if pred_norm == gold else 0.0,
                }
                # EvaluationTracker.save_results_samples: sanitise before writing
                example["arguments"] = {f"gen_args_{i}": {f"arg_{j}": v for j, v in enumerate(arg)}
                                        for i, arg in enumerate(arguments)}
                example["resps"] = [[[str(ll), str(g)] for ll, g in r] for r in example["resps"]]
                example["filtered_resps"] = [[str(ll), str(g)] for ll, g in example["filtered_resps"]]
                example["target"] = str(example["target"])
                samples.append(example)
            logs[model][task] = samples
            accuracy[model][task] = float(np.mean([s["acc"] for s in samples]))
    for model in MODELS:
        write_model(OUT / f"sim__{model}", model, logs[model], accuracy[model])
    size = sum(f.stat().st_size for f in OUT.rglob("*") if f.is_file())
    print(f"wrote {OUT} ({size / 1e3:.0f} kB); accuracy: "
          + ", ".join(f"{m} {np.mean(list(a.values())):.3f}" for m, a in accuracy.items()))


if __name__ == "__main__":
    main()
