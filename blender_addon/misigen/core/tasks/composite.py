"""Composite-score rules (MiSI-Bench Table 1) that task types and answer kinds point to.

- ``cloze`` (one move/roll command): 0 unless one command with the right verb and axis; then
  max(0, 1 − |d̂ − d| / span), span = the width of ``program["value_range"]``.
- ``docking`` (roll + move): rotation half + translation half. Rotation: 0 unless one roll about
  the right axis, else 0.5 × max(0, 1 − |â − a| / span), span = width of ``program["roll_range"]``.
  Translation: 0 unless one move along the right axis with sign(d̂) = sign(d), else
  0.5 × max(0, 1 − |d̂ − d| / |d|). The halves are found by verb, so their order does not matter.
- ``list_scores`` (lists of bonds or residues, compared as sets, a repeated entry counts once;
  H-bonds as counted equivalence-class keys, so ASP OD2 for OD1 or a ligand atom of the same
  symmetry class is the same bond and a bidentate pair stays two, core/equivalence.py):
  when the truth is empty, 1 for "No" and 0 otherwise; when it has entries T and the prediction
  lists P: 0 for "No" or when |P| > 2|T|; 0.5 when P ⊋ T; otherwise |P ∩ T| / |P| (precision).
  Also F1 = 2|P ∩ T| / (|P| + |T|) (1 / 0 for an empty truth).
"""
from __future__ import annotations

from collections import Counter

from ..op_grammar import parse_ops


def _closeness(pred: float, true: float, scale: float) -> float:
    return max(0.0, 1.0 - abs(pred - true) / scale)


def cloze(strict: str, truth: str, program: dict, exact: int) -> float:
    (true,) = parse_ops(truth)
    pred = parse_ops(strict)
    if "value_range" not in program:         # a record without its range: all or nothing
        return float(exact)
    if len(pred) != 1 or pred[0].verb != true.verb or pred[0].axis != true.axis:
        return 0.0
    lo, hi = program["value_range"]
    return _closeness(pred[0].value, true.value, float(hi) - float(lo))


def docking(strict: str, truth: str, program: dict, exact: int) -> float:
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


def list_scores(entries, strict: str | None, truth: str) -> dict:
    """Scores of a list answer; ``entries(text)`` → (says there is none, the entries: a set, or a
    Counter when equivalent entries are counted as one key — core/equivalence.py)."""
    said, T = entries(truth)
    T = Counter(T)
    n_true = sum(T.values())
    if strict is None:
        return {"exact": 0, "composite": 0.0, "f1": 0.0, "tp": 0, "n_pred": 0, "n_true": n_true}
    said_no, P = entries(strict)
    P = Counter(P)
    n_pred = sum(P.values())
    tp = sum((P & T).values())
    counts = {"tp": tp, "n_pred": n_pred, "n_true": n_true}
    if not T:
        right = float(said_no)
        return {"exact": int(said_no), "composite": right, "f1": right, **counts}
    if said_no or not P or n_pred > 2 * n_true:
        composite = 0.0
    elif tp == n_true < n_pred:          # every true entry plus extras
        composite = 0.5
    else:
        composite = tp / n_pred
    f1 = 0.0 if said_no else 2 * tp / (n_pred + n_true)
    return {"exact": int(P == T and not said_no), "composite": composite, "f1": f1, **counts}
