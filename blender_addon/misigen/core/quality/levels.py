"""Difficulty levels fitted on readers: per task, a model of how often a reader who reads the images by
eye answers a question right, from the question's difficulty features (``difficulty.py``).

A task's level model (``core/tasks/<task>/levels.yaml``, written by ``calibrate-levels`` from the reader
study's answers, ``benchmarks/data/reader_answers.jsonl``; docs/TAKERS.md):

- ``features``: the features it uses, each standardised, ``z = (x - centre) / scale`` (a feature a
  question lacks takes its centre, the fit's mean);
- ``intercept`` and ``coef``: a logistic model of the by-eye score, the paper's composite of one answer
  (0–1; exact match for choices and zooming): ``predicted = 1 / (1 + exp(-(intercept + Σ coef·z)))``,
  fitted as a fractional logit (each answer counts as right with weight ``composite`` and wrong with
  ``1 - composite``), L2-regularised;
- ``bands``: predicted ≥ ``easy`` is easy, ≤ ``hard`` is hard, between is medium. A task whose
  predictions never reach a band has no question of that level (``fit.levels`` says which it has);
- ``fit``: what it was fitted on and how well it predicts questions of complexes it did not see:
  ``heldout`` gives the concordance of out-of-fold predictions (the AUC, generalised to graded scores:
  of two answers with different scores, how often the better-scored one was predicted higher; 0.5 is
  no better than chance) and the measured by-eye score per predicted level, folds split by complex.

Features are chosen per task by forward selection on the cross-validated deviance (folds by complex):
one is kept only when it lowers the held-out deviance by ``MIN_GAIN`` per answer, at most
``MAX_FEATURES``. The whole procedure (selection and fit) is itself cross-validated by complex; where its
held-out concordance stays below ``MIN_CONCORDANCE`` the features it finds are noise, and the task keeps
the intercept alone (every question predicted alike: its measured mean). The fit needs scikit-learn
(``calibrate`` imports it); predicting needs numpy only.
"""
from __future__ import annotations

import functools
import math
from pathlib import Path

import numpy as np

from ..data_files import load_table

LEVELS = ("easy", "medium", "hard")
BANDS = {"easy": 0.85, "hard": 0.55}
DIGITS = 4                  # decimals kept in a model (refits agree to them across machines)
MAX_FEATURES = 3
FOLDS = 5
C = 1.0                     # inverse L2 strength on standardised features
MIN_GAIN = 0.01             # held-out deviance per answer a feature must save to be kept
MIN_CONCORDANCE = 0.55      # below this held-out concordance the selection is no better than noise: no features
MIN_PRESENT = 0.7           # a candidate feature must be present in this share of a task's answers


# ------------------------------------------------------------------ predicting
def predict(features: dict, model: dict) -> float:
    """The predicted by-eye score (0–1) of a question with these difficulty features."""
    t = float(model["intercept"])
    for name, spec in model["features"].items():
        v = features.get(name)
        x = float(spec["centre"]) if v is None else float(v)
        t += float(spec["coef"]) * (x - float(spec["centre"])) / float(spec["scale"])
    return 1.0 / (1.0 + math.exp(-t))


def level_of_prediction(p: float | None, bands: dict | None = None) -> str:
    if p is None:
        return "medium"
    b = bands or BANDS
    return "easy" if p >= float(b["easy"]) else "hard" if p <= float(b["hard"]) else "medium"


@functools.lru_cache(maxsize=64)
def _read(path: str, mtime: float) -> dict:
    from ..look.style import read_yaml
    return read_yaml(Path(path))


def load_level_table(path) -> dict | None:
    """A task's ``levels.yaml`` (cached), or None when it has none."""
    p = Path(path)
    if not p.is_file():
        return None
    return _read(str(p), p.stat().st_mtime)


# ------------------------------------------------------------------ fitting
def _matrix(rows: list, names: list, centre: dict | None = None) -> tuple[np.ndarray, dict]:
    """Answers' features as a matrix (missing values at the column mean) and the column means."""
    cols, means = [], {}
    for n in names:
        vals = [r["features"].get(n) for r in rows]
        present = [float(v) for v in vals if v is not None]
        m = (centre or {}).get(n, float(np.mean(present)) if present else 0.0)
        means[n] = m
        cols.append([m if v is None else float(v) for v in vals])
    return (np.array(cols, float).T if cols else np.zeros((len(rows), 0))), means


def _fit(x: np.ndarray, y: np.ndarray):
    """(intercept, coef, centre, scale) of the fractional logit on ``x`` (raw features)."""
    from sklearn.linear_model import LogisticRegression

    centre = x.mean(axis=0) if x.shape[1] else np.zeros(0)
    scale = x.std(axis=0) if x.shape[1] else np.zeros(0)
    scale = np.where(scale > 1e-12, scale, 1.0)
    z = (x - centre) / scale
    yc = np.clip(y, 0.0, 1.0)
    if x.shape[1] == 0 or yc.min() == yc.max():      # nothing to fit: the mean's log-odds alone
        p = float(np.clip(yc.mean(), 1e-3, 1 - 1e-3))
        return math.log(p / (1 - p)), np.zeros(x.shape[1]), centre, scale
    zz = np.vstack([z, z])
    lab = np.r_[np.ones(len(z)), np.zeros(len(z))]
    w = np.r_[yc, 1.0 - yc]
    keep = w > 0
    lr = LogisticRegression(C=C, max_iter=1000).fit(zz[keep], lab[keep], sample_weight=w[keep])
    return float(lr.intercept_[0]), lr.coef_[0].astype(float), centre, scale


def _predict_raw(fit, x: np.ndarray) -> np.ndarray:
    b0, b, centre, scale = fit
    t = b0 + ((x - centre) / scale) @ b if x.shape[1] else np.full(len(x), b0)
    return 1.0 / (1.0 + np.exp(-t))


def deviance(y: np.ndarray, p: np.ndarray) -> float:
    """Mean fractional-logit deviance of predictions ``p`` for scores ``y``."""
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return float(-2.0 * np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def folds(groups: list, k: int = FOLDS) -> list:
    """Fold index per answer, whole complexes to a fold (largest first, to the smallest fold; ties by
    name), so a fold's questions are of complexes the other folds never saw."""
    sizes: dict = {}
    for g in groups:
        sizes[g] = sizes.get(g, 0) + 1
    k = max(2, min(k, len(sizes)))
    load, of = [0] * k, {}
    for g in sorted(sizes, key=lambda g: (-sizes[g], g)):
        f = min(range(k), key=lambda i: (load[i], i))
        of[g] = f
        load[f] += sizes[g]
    return [of[g] for g in groups]


def _cv_deviance(rows: list, y: np.ndarray, names: list, fold: list) -> float:
    pred = np.zeros(len(rows))
    for f in sorted(set(fold)):
        tr = [i for i, g in enumerate(fold) if g != f]
        te = [i for i, g in enumerate(fold) if g == f]
        xtr, centre = _matrix([rows[i] for i in tr], names)
        xte, _ = _matrix([rows[i] for i in te], names, centre)
        pred[te] = _predict_raw(_fit(xtr, y[tr]), xte)
    return deviance(y, pred)


def candidates(rows: list) -> list:
    """Features present in at least ``MIN_PRESENT`` of the answers and not constant there."""
    names = sorted({n for r in rows for n in r["features"]})
    out = []
    for n in names:
        vals = [float(r["features"][n]) for r in rows if r["features"].get(n) is not None]
        if len(vals) >= MIN_PRESENT * len(rows) and len(set(vals)) > 1:
            out.append(n)
    return out


def select(rows: list, y: np.ndarray, pool: list) -> list:
    """Forward selection: add the candidate that lowers the cross-validated deviance most, while it
    saves at least ``MIN_GAIN`` per answer, up to ``MAX_FEATURES``."""
    fold = folds([r["structure"] for r in rows])
    chosen: list = []
    best = _cv_deviance(rows, y, chosen, fold)
    while len(chosen) < MAX_FEATURES:
        trials = [(_cv_deviance(rows, y, chosen + [n], fold), n) for n in pool if n not in chosen]
        if not trials:
            break
        dev, name = min(trials)
        if best - dev < MIN_GAIN:
            break
        chosen.append(name)
        best = dev
    return chosen


def concordance(y, p) -> float | None:
    """Of all pairs of answers with different scores, the share whose better score was predicted
    higher (ties in prediction count half): the AUC for right/wrong answers, graded scores allowed."""
    y, p = np.asarray(y, float), np.asarray(p, float)
    dy = np.sign(y[:, None] - y[None, :])
    dp = np.sign(p[:, None] - p[None, :])
    pairs = dy > 0
    n = int(pairs.sum())
    if not n:
        return None
    return float(((dp[pairs] > 0).sum() + 0.5 * (dp[pairs] == 0).sum()) / n)


def _model(rows: list, y: np.ndarray, names: list) -> dict:
    x, _ = _matrix(rows, names)
    b0, b, centre, scale = _fit(x, y)
    feats = {n: {"centre": round(float(centre[i]), DIGITS), "scale": round(float(scale[i]), DIGITS),
                 "coef": round(float(b[i]), DIGITS)} for i, n in enumerate(names)}
    return {"intercept": round(float(b0), DIGITS), "features": feats}


def heldout(rows: list, y: np.ndarray, pool: list) -> tuple[np.ndarray, dict]:
    """Out-of-fold predictions (selection and fit on the other folds' complexes) and their summary."""
    fold = folds([r["structure"] for r in rows])
    pred = np.zeros(len(rows))
    for f in sorted(set(fold)):
        tr = [rows[i] for i, g in enumerate(fold) if g != f]
        ytr = np.array([y[i] for i, g in enumerate(fold) if g != f])
        te = [i for i, g in enumerate(fold) if g == f]
        model = _model(tr, ytr, select(tr, ytr, pool))
        pred[te] = [predict(rows[i]["features"], model) for i in te]
    by_level = {}
    for lv in LEVELS:
        idx = [i for i, p in enumerate(pred) if level_of_prediction(p) == lv]
        if idx:
            by_level[lv] = {"n": len(idx), "measured": round(float(np.mean(y[idx])), 3),
                            "predicted": round(float(np.mean(pred[idx])), 3)}
    auc = concordance(y, pred)
    return pred, {"folds": len(set(fold)), "concordance": None if auc is None else round(auc, 3),
                  "deviance": round(deviance(y, pred), 4), "by_level": by_level}


def calibrate(rows: list, pool: list | None = None) -> tuple[dict, np.ndarray]:
    """One task's level model from its by-eye answers (each ``{"structure", "composite", "features"}``),
    and the out-of-fold predictions of every answer. ``pool``: the features it may use (a task's
    ``level_features``; None: every feature the answers carry), those the answers lack or never vary
    left out."""
    y = np.array([float(r["composite"]) for r in rows])
    present = candidates(rows)
    pool = present if pool is None else [f for f in pool if f in present]
    pred, summary = heldout(rows, y, pool)
    trusted = summary["concordance"] is not None and summary["concordance"] >= MIN_CONCORDANCE
    if not trusted:          # the intercept alone, held out the same way; the concordance stays the selection's
        pred, alone = heldout(rows, y, [])
        summary = {**summary, "by_level": alone["by_level"], "features_dropped": True}
    model = _model(rows, y, select(rows, y, pool) if trusted else [])
    allp = [predict(r["features"], model) for r in rows]
    model["bands"] = dict(BANDS)
    model["fit"] = {"answers": len(rows), "readers": len({r["reader"] for r in rows}),
                    "questions": len({r["id"] for r in rows}), "complexes": len({r["structure"] for r in rows}),
                    "suites": sorted({r["suite"] for r in rows}), "measured": round(float(y.mean()), 3),
                    "candidates": list(pool),
                    "levels": [lv for lv in LEVELS if any(level_of_prediction(p) == lv for p in allp)],
                    "heldout": summary}
    return model, pred


def default_features() -> list:
    """The features a task without a level model grades by fixed thresholds (``core/data/difficulty.yaml``)."""
    return list(load_table("difficulty.yaml").get("default", []))


HEADER = """\
# This task's difficulty levels (core/quality/levels.py): a model of the by-eye score, fitted on the
# reader study's answers by
#   run_blender.py calibrate-levels --answers benchmarks/data/reader_answers.jsonl --out blender_addon/misigen/core/tasks
# predicted = 1 / (1 + exp(-(intercept + sum(coef * (x - centre) / scale)))); a missing feature takes its
# centre. Level: predicted >= bands.easy is easy, <= bands.hard is hard, else medium. fit: the answers it
# was fitted on and its held-out concordance (out-of-fold by complex) with the measured score per level.
"""


def _yaml(body: dict) -> str:
    import yaml

    class Plain(yaml.SafeDumper):          # no &anchors for lists shared between tables
        def ignore_aliases(self, data):
            return True

    return yaml.dump(body, Dumper=Plain, sort_keys=False, default_flow_style=None, width=100, allow_unicode=True)


def _body(table: dict) -> dict:
    return {k: table[k] for k in ("intercept", "features", "bands", "fit") if k in table}


def dump_table(table: dict) -> str:
    """A level model as the YAML text of a ``levels.yaml`` (header comment, stable key order)."""
    return HEADER + _yaml(_body(table))


def dump_tables(tables: dict) -> str:
    """Every task's model in one YAML file (task type → model)."""
    return _yaml({name: _body(t) for name, t in tables.items()})


__all__ = ["calibrate", "predict", "level_of_prediction", "load_level_table", "dump_table", "dump_tables",
           "default_features", "concordance", "folds", "LEVELS", "BANDS"]
