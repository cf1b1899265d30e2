"""The ``baseline`` command: reference predictors that give every score table its floor.

- ``random``: per question, a uniform draw from the task's answer space (seeded by the
  question id, so the same question always gets the same guess). The draw is the registry's:
  the task type's ``random_answer`` (move/roll tasks: axis × value on the grid their programs
  state) or its answer kind's ``random`` (letters among the options; Yes/No at even odds; lists
  of 0–3 entries drawn from the N/O atoms or residues shown in the question's first image, read
  from its sidecar; without sidecars, a plan-only dataset, the lists are empty);
- ``majority``: per task, the most frequent answer of the train split (ties: the first in
  sorted order). A task without train records falls back to all its records, and says so.
"""
from __future__ import annotations

import functools
import json
import random
from collections import Counter
from pathlib import Path

from ..core.errors import InputError
from .output import dumps, write_text_atomic
from ..core.tasks import REGISTRY
from .records import by_split, load_records

KINDS = ("random", "majority")


def run_baseline(dataset: Path, kind: str, out: Path, split: str = "test", seed: int = 0) -> tuple[int, list[str]]:
    """Write predictions for the chosen split; returns (count, warnings)."""
    if kind not in KINDS:
        raise InputError("--kind", f"must be one of {', '.join(KINDS)}, not {kind!r}")
    records = load_records(dataset)
    chosen = by_split(records, split)
    if kind == "random":
        guess, warnings = RandomGuesser(records, Path(dataset), seed), []
    else:
        guess, warnings = _majority(records)
    lines = [dumps({"id": r["id"], "prediction": guess(r)}) for r in sorted(chosen, key=lambda r: r["id"])]
    write_text_atomic(Path(out), "".join(line + "\n" for line in lines))
    return len(lines), warnings


# ------------------------------------------------------------------ majority
def _majority(records):
    by_task: dict[str, Counter] = {}
    fallback: dict[str, Counter] = {}
    for r in records:
        (by_task if r["split"] == "train" else fallback).setdefault(r["task"], Counter())[r["answer"]] += 1
    warnings, answer = [], {}
    for task in sorted(set(by_task) | set(fallback)):
        counts = by_task.get(task)
        if not counts:
            counts = fallback[task]
            warnings.append(f"{task}: no train records; the majority answer is taken over its other records")
        answer[task] = min(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0]
    return (lambda r: answer[r["task"]]), warnings


# ------------------------------------------------------------------ random
class RandomGuesser:
    """Uniform guesses from each task's answer space, learnt from the dataset's programs."""

    def __init__(self, records, dataset: Path, seed: int):
        self.dataset, self.seed = dataset, seed
        self.guess = {}
        for task in sorted({r["task"] for r in records}):
            mine = [r for r in records if r["task"] == task]
            program = mine[0].get("program")
            tt, kind = REGISTRY.of(task, program), REGISTRY.kind_of(task, program)
            if tt.random_answer is not None and kind.name == tt.answer_kind:
                self.guess[task] = tt.random_answer(mine)
            elif kind.random is not None:
                self.guess[task] = kind.random
            else:
                raise InputError(dataset, f"{task}: its task type has no random answer for {kind.name!r} answers")

    def __call__(self, rec: dict) -> str:
        rng = random.Random(f"{self.seed}/{rec['id']}")
        return self.guess[rec["task"]](rec, rng, self._atoms(rec))

    def _atoms(self, rec: dict) -> list:
        """The atoms of the question's first image (its sidecar), [] without one."""
        if not rec["images"]:
            return []
        return _atoms_of(str((self.dataset / rec["images"][0]).with_suffix(".json")))


@functools.lru_cache(maxsize=256)      # questions of one structure share their views
def _atoms_of(sidecar: str) -> list:
    try:
        return json.loads(Path(sidecar).read_text(encoding="utf-8"))["atoms"]
    except (OSError, ValueError, KeyError):
        return []
