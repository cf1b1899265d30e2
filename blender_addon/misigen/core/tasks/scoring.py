"""Scoring a model's answer against a QA record: MiSI-Bench's metrics (arXiv 2512.10867,
section 5.1, Tables 1–2), with the normalisers the paper leaves open fixed here.

The raw prediction is first read by ``predictions.read_prediction`` (lenient about form,
strict about content); a prediction that cannot be read scores 0 and is flagged ``unparsed``.

Exact match (Table 2): the canonical prediction equals the canonical answer; H-bond lists
compare as sets, docking's two commands in the stated order.

Composite (Table 1), by rule:
- ``accuracy`` (multiple choice, zooming): the exact match.
- ``cloze`` (move/roll, T1 T2): 0 unless one command with the right verb and axis; then
  max(0, 1 − |d̂ − d| / span), span = the width of the task's value range
  (``program["value_range"]``: 8 Å for T1, 180° for T2). ``move x -3`` vs ``move x 3`` → 0.25.
- ``docking`` (T7): rotation half + translation half. Rotation: 0 unless one roll about
  the right axis, else 0.5 × max(0, 1 − |â − a| / span), span = width of
  ``program["roll_range"]`` (180°). Translation: 0 unless one move along the right axis with
  sign(d̂) = sign(d), else 0.5 × max(0, 1 − |d̂ − d| / |d|). The halves are found by verb, so
  their order does not matter here (it does for the exact match).
- ``hbonds`` (T4, T9; bonds compared as sets, a repeated bond counts once): when the truth
  has no bond, 1 for "No" and 0 otherwise; when it has bonds T and the prediction lists P:
  0 for "No" or when |P| > 2|T|; 0.5 when P ⊋ T (every true bond plus extras); otherwise
  |P ∩ T| / |P| (precision). Also F1 = 2|P ∩ T| / (|P| + |T|) (1 / 0 for a bond-less truth).

Task variants (a spec ``name`` over a task type, ``program["task_type"]``) score as their type;
interaction kinds beyond H-bonds answer ``Yes``/``No`` (accuracy, rows split like T4) or residue
lists (scored as H-bond lists are).
"""
from __future__ import annotations

from ..commands import parse_ops
from .answers import (canonical, parse_letter, parse_pocket_hbonds, parse_residue_answer, parse_residues,
                      parse_yesno, pocket_key, residue_key)
from .predictions import read_prediction
from .registry import answer_kind, task_type

# The composite rule of each move/roll ("ops") task type; every other answer kind has one rule.
# A registry entry may name its own rule in ``extra["composite"]``.
OPS_RULES = {"translation": "cloze", "rotation": "cloze", "zooming": "accuracy", "docking": "docking"}
KIND_RULES = {"letter": "accuracy", "yesno": "accuracy", "residue": "hbonds", "pocket": "hbonds",
              "residues": "hbonds"}
YES_NO_KINDS = ("residue", "yesno")           # rows split into /pos and /neg by the true answer
# MiSI-Bench's "Avg." leaves these two out (near chance for every model it tested).
PAPER_AVERAGE_EXCLUDES = ("translation_rotation", "rotation_rotation")


def base_task(task_name: str, program: dict | None = None) -> str:
    """The task type a record's task belongs to (a spec variant names its type in the program)."""
    return (program or {}).get("task_type", task_name)


def rules_for(task_name: str, program: dict | None = None) -> tuple[str, str]:
    """(answer kind, composite rule) of a task (of a record's task, given its program)."""
    base = base_task(task_name, program)
    try:
        kind = answer_kind(task_name, program)
        rule = task_type(base).extra.get("composite")
    except KeyError:
        raise ValueError(f"no scoring rule for task {task_name!r} (not a registered task)") from None
    return kind, rule or (OPS_RULES.get(base, "accuracy") if kind == "ops" else KIND_RULES[kind])


def in_paper_average(record: dict) -> bool:
    return base_task(record["task"], record.get("program")) not in PAPER_AVERAGE_EXCLUDES


def score_row(record: dict) -> str:
    """The table row of a record: its task; Yes/No questions (residue–ligand interaction)
    split by their true answer into ``/pos`` (Yes) and ``/neg`` (No), as the paper reports them."""
    task = record["task"]
    kind = rules_for(task, record.get("program"))[0]
    if kind in YES_NO_KINDS:
        yes = parse_yesno(record["answer"]) if kind == "yesno" else bool(_hbond_truth(kind, record["answer"])[1])
        return f"{task}/{'pos' if yes else 'neg'}"
    return task


def score_answer(task_name: str, predicted, record: dict) -> dict:
    """Score one prediction. Returns {"exact": 0|1, "composite": [0, 1], "unparsed": bool,
    "prediction": the strict answer read (or None)}; list tasks (H-bonds, residues) add "f1",
    "tp" (true entries predicted), "n_pred" and "n_true" (distinct entries) so callers can pool
    counts."""
    program = record.get("program") or {}
    kind, rule = rules_for(task_name, program)
    truth = record["answer"]
    strict = read_prediction(kind, predicted, record.get("options"))
    out = {"exact": 0, "composite": 0.0, "unparsed": strict is None, "prediction": strict}
    if rule == "hbonds":
        out.update(_hbond_scores(kind, strict, truth))
        return out
    if strict is None:
        return out
    out["exact"] = int(canonical(kind, strict) == canonical(kind, truth))
    if rule == "cloze":
        out["composite"] = _cloze(strict, truth, program, out["exact"])
    elif rule == "docking":
        out["composite"] = _docking(strict, truth, program)
    else:
        out["composite"] = float(out["exact"])
    return out


# ------------------------------------------------------------------ move / roll

def _closeness(pred: float, true: float, scale: float) -> float:
    return max(0.0, 1.0 - abs(pred - true) / scale)


def _cloze(strict: str, truth: str, program: dict, exact: int) -> float:
    (true,) = parse_ops(truth)
    pred = parse_ops(strict)
    if "value_range" not in program:         # a record without its range: all or nothing
        return float(exact)
    if len(pred) != 1 or pred[0].verb != true.verb or pred[0].axis != true.axis:
        return 0.0
    lo, hi = program["value_range"]
    return _closeness(pred[0].value, true.value, float(hi) - float(lo))


def _docking(strict: str, truth: str, program: dict) -> float:
    true = parse_ops(truth)
    t_roll = next(o for o in true if o.verb == "roll")
    t_move = next(o for o in true if o.verb == "move")
    pred = parse_ops(strict)
    rolls = [o for o in pred if o.verb == "roll"]
    moves = [o for o in pred if o.verb == "move"]
    lo, hi = program.get("roll_range", (-90.0, 90.0))
    score = 0.0
    if len(rolls) == 1 and rolls[0].axis == t_roll.axis:
        score += 0.5 * _closeness(rolls[0].value, t_roll.value, float(hi) - float(lo))
    if len(moves) == 1 and moves[0].axis == t_move.axis and _sign(moves[0].value) == _sign(t_move.value) != 0:
        score += 0.5 * _closeness(moves[0].value, t_move.value, abs(t_move.value))
    return score


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


# ------------------------------------------------------------------ H-bond lists
def _hbond_truth(kind: str, text: str) -> tuple[bool, frozenset]:
    """(says there is none, the set of bonds) of a strict answer."""
    if kind == "residue":
        yes, pairs = parse_residue_answer(text)
        return (not yes, frozenset(pairs))
    if text.strip().rstrip(".").lower() in ("", "no"):
        return (True, frozenset())
    parse = parse_residues if kind == "residues" else parse_pocket_hbonds
    return (False, frozenset(parse(text)))


def _hbond_scores(kind: str, strict: str | None, truth: str) -> dict:
    _, T = _hbond_truth(kind, truth)
    if strict is None:
        return {"exact": 0, "composite": 0.0, "f1": 0.0, "tp": 0, "n_pred": 0, "n_true": len(T)}
    said_no, P = _hbond_truth(kind, strict)
    tp = len(P & T)
    counts = {"tp": tp, "n_pred": len(P), "n_true": len(T)}
    if not T:
        right = float(said_no)
        return {"exact": int(said_no), "composite": right, "f1": right, **counts}
    if said_no or not P or len(P) > 2 * len(T):
        composite = 0.0
    elif T < P:
        composite = 0.5
    else:
        composite = tp / len(P)
    f1 = 0.0 if said_no else 2 * tp / (len(P) + len(T))
    return {"exact": int(P == T and not said_no), "composite": composite, "f1": f1, **counts}


__all__ = ["score_answer", "score_row", "rules_for", "base_task", "in_paper_average", "OPS_RULES", "KIND_RULES",
           "YES_NO_KINDS", "PAPER_AVERAGE_EXCLUDES",
           "parse_letter", "pocket_key", "residue_key"]
