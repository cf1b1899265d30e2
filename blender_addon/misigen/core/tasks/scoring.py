"""Scoring a model's answer against a QA record: MiSI-Bench's metrics (arXiv 2512.10867,
section 5.1, Tables 1–2), with the normalisers the paper leaves open fixed here.

The raw prediction is first read by ``predictions.read_prediction`` with the record's answer
kind (lenient about form, strict about content); a prediction that cannot be read scores 0 and
is flagged ``unparsed``.

Exact match (Table 2): the canonical prediction equals the canonical answer; lists compare as
sets, commands in the stated order. Composite (Table 1): list kinds score as sets
(``composite.list_scores``, with F1); otherwise the task type's ``composite`` rule (in its
folder: ``shared/cloze.py``, ``docking/checks.py`` …), else the exact match. Which tasks count in the
paper's average is each task type's ``paper_average``.

Task variants (a spec ``name`` over a task type, ``program["task_type"]``) score as their type.
"""
from __future__ import annotations

from .answers import parse_letter, pocket_key, residue_key
from .catalog import REGISTRY
from .predictions import read_prediction


def base_task(task_name: str, program: dict | None = None) -> str:
    """The task type a record's task belongs to (a spec variant names its type in the program)."""
    return (program or {}).get("task_type", task_name)


def in_paper_average(record: dict) -> bool:
    return REGISTRY.of(record["task"], record.get("program")).paper_average


def is_list_task(record: dict) -> bool:
    """Whether a record's answer is a list scored as a set (its score rows carry F1)."""
    return REGISTRY.kind_of(record["task"], record.get("program")).is_list


def score_row(record: dict) -> str:
    """The table row of a record: its task; Yes/No questions split by their true answer into
    ``/pos`` (Yes) and ``/neg`` (No), as the paper reports them."""
    task = record["task"]
    kind = REGISTRY.kind_of(task, record.get("program"))
    if kind.yes is not None:
        return f"{task}/{'pos' if kind.yes(record['answer']) else 'neg'}"
    return task


def score_answer(task_name: str, predicted, record: dict) -> dict:
    """Score one prediction. Returns {"exact": 0|1, "composite": [0, 1], "unparsed": bool,
    "prediction": the strict answer read (or None)}; list answers add "f1", "tp" (true entries
    predicted), "n_pred" and "n_true" (distinct entries) so callers can pool counts."""
    program = record.get("program") or {}
    tt = REGISTRY.of(task_name, program)
    kind = REGISTRY.kind_of(task_name, program)
    truth = record["answer"]
    strict = read_prediction(kind, predicted, record.get("options"))
    out = {"exact": 0, "composite": 0.0, "unparsed": strict is None, "prediction": strict}
    if kind.is_list:
        out.update(kind.score(strict, truth, program))
        return out
    if strict is None:
        return out
    out["exact"] = int(kind.canonical(strict) == kind.canonical(truth))
    # a variant whose answer kind differs from its type's (Yes/No) is scored by accuracy
    rule = tt.composite if kind.name == tt.answer_kind else None
    out["composite"] = rule(strict, truth, program, out["exact"]) if rule else float(out["exact"])
    return out


__all__ = ["score_answer", "score_row", "base_task", "in_paper_average", "is_list_task",
           "parse_letter", "pocket_key", "residue_key"]
