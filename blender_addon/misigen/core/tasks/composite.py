"""Composite-score rules (MiSI-Bench Table 1) shared by answer kinds and tasks; each task's own rule
is its folder's (``shared/cloze.py``: one command, T1 and T2; ``docking/checks.py``: roll + move).

- ``closeness``: 1 at the truth, falling linearly to 0 at a given span away (the rules above use it).
- ``list_scores`` (lists of bonds or residues, compared as sets, a repeated entry counts once;
  H-bonds as counted equivalence-class keys, so ASP OD2 for OD1 or a ligand atom of the same
  symmetry class is the same bond and a bidentate pair stays two, core/chemistry/equivalence.py):
  when the truth is empty, 1 for "No" and 0 otherwise; when it has entries T and the prediction
  lists P: 0 for "No" or when |P| > 2|T|; 0.5 when P ⊋ T; otherwise |P ∩ T| / |P| (precision).
  Also F1 = 2|P ∩ T| / (|P| + |T|) (1 / 0 for an empty truth).
"""
from __future__ import annotations

from collections import Counter


def closeness(pred: float, true: float, scale: float) -> float:
    """1 at the truth, falling linearly to 0 at ``scale`` away."""
    return max(0.0, 1.0 - abs(pred - true) / scale)


def list_scores(entries, strict: str | None, truth: str) -> dict:
    """Scores of a list answer; ``entries(text)`` → (says there is none, the entries: a set, or a
    Counter when equivalent entries are counted as one key — core/chemistry/equivalence.py)."""
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
