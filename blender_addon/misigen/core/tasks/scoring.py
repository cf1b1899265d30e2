"""Scoring a model's answer against a QA record (DESIGN.md, "Scoring").

- Exact match for every task: the prediction, parsed and re-formatted by the task's one
  parser/formatter, equals the record's answer.
- Composite:
  * move/roll cloze (translation, rotation): 0 unless verb and axis are right; then
    0.5 for the axis + 0.5 × max(0, 1 − |error| / span of the value range);
  * zooming and multiple choice: accuracy;
  * docking: half the credit for the roll, half for the move, each scored like a cloze;
  * H-bond lists (T9; T4 when the residue has H-bonds): predicted set P, true set T:
    1 if P = T; 0 if |P| > 2|T|; 0.5 if P ⊋ T (all true bonds plus extras);
    otherwise |P ∩ T| / max(|P|, |T|) (the fraction of predicted bonds that are right,
    missing bonds counting as wrong). T4: a wrong Yes/No scores 0; a right 'No' 1.
"""
from __future__ import annotations

from ..commands import parse_ops
from .answers import canonical, parse_letter, parse_residues, parse_pocket_hbonds, parse_residue_answer, pocket_key, residue_key

from .registry import answer_kind


def _exact(kind: str, predicted: str, answer: str) -> int:
    try:
        return int(canonical(kind, predicted) == canonical(kind, answer))
    except ValueError:
        return 0


def _op_score(pred_op, true_op, span: float) -> float:
    if pred_op is None or pred_op.verb != true_op.verb or pred_op.axis != true_op.axis:
        return 0.0
    err = abs(pred_op.value - true_op.value) / span if span > 0 else float(pred_op.value != true_op.value)
    return 0.5 + 0.5 * max(0.0, 1.0 - err)


def _set_score(pred: list, true: list) -> float:
    P, T = set(pred), set(true)
    if not T:
        return float(not P)
    if P == T:
        return 1.0
    if len(pred) > 2 * len(T):
        return 0.0
    if T < P:
        return 0.5
    return len(P & T) / max(len(P), len(T))


def _score_variant(kind: str, predicted: str, answer: str) -> dict:
    """Interaction-kind variants: Yes/No is accuracy; residue lists score as H-bond lists do."""
    exact = _exact(kind, predicted, answer)
    if kind == "yesno" or exact:
        return {"exact": exact, "composite": float(exact)}
    try:
        return {"exact": 0, "composite": _set_score(parse_residues(predicted), parse_residues(answer))}
    except ValueError:
        return {"exact": 0, "composite": 0.0}


def score_answer(task_name: str, predicted: str, record: dict) -> dict:
    """{"exact": 0|1, "composite": float in [0, 1]} for one prediction."""
    kind = answer_kind(task_name, record.get("program"))
    task_name = record.get("program", {}).get("task_type", task_name)     # variants score as their type
    if kind in ("yesno", "residues"):
        return _score_variant(kind, predicted if isinstance(predicted, str) else "", record["answer"])
    answer, program = record["answer"], record.get("program", {})
    predicted = predicted if isinstance(predicted, str) else ""
    exact = _exact(kind, predicted, answer)
    if exact or task_name in ("zooming", "translation_rotation", "rotation_rotation", "interaction_location"):
        return {"exact": exact, "composite": float(exact)}
    try:
        if task_name in ("translation", "rotation"):
            true = parse_ops(answer)[0]
            pred = parse_ops(predicted)
            lo, hi = program["value_range"]
            return {"exact": exact, "composite": _op_score(pred[0] if len(pred) == 1 else None, true, hi - lo)}
        if task_name == "docking":
            true = parse_ops(answer)
            pred = parse_ops(predicted)
            t_roll = next(o for o in true if o.verb == "roll")
            t_move = next(o for o in true if o.verb == "move")
            p_roll = next((o for o in pred if o.verb == "roll"), None)
            p_move = next((o for o in pred if o.verb == "move"), None)
            rlo, rhi = program["roll_range"]
            mlo, mhi = program["move_range"]
            return {"exact": exact, "composite": 0.5 * _op_score(p_roll, t_roll, rhi - rlo)
                    + 0.5 * _op_score(p_move, t_move, mhi - mlo)}
        if task_name == "residue_ligand_interaction":
            t_yes, t_pairs = parse_residue_answer(answer)
            p_yes, p_pairs = parse_residue_answer(predicted)
            if t_yes != p_yes:
                return {"exact": 0, "composite": 0.0}
            if not t_yes:
                return {"exact": exact, "composite": 1.0}
            return {"exact": exact, "composite": _set_score(p_pairs, t_pairs)}
        if task_name == "pocket_ligand_interaction":
            return {"exact": exact, "composite": _set_score(parse_pocket_hbonds(predicted),
                                                            parse_pocket_hbonds(answer))}
    except (ValueError, StopIteration, KeyError, IndexError):
        return {"exact": 0, "composite": 0.0}
    return {"exact": exact, "composite": float(exact)}


__all__ = ["score_answer", "parse_letter", "pocket_key", "residue_key"]
