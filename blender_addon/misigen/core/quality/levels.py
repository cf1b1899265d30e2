"""Difficulty levels calibrated per task: a continuous score and cut points measured on a reference set.

A task grades the difficulty features its registry entry lists (``TaskType.level_features``; which
way is harder: ``core/data/difficulty.yaml``). Its level table (``core/tasks/<task>/levels.yaml``,
written by ``calibrate-levels``) holds, per stratum, the reference distribution of each graded
feature as quantiles, and two cut points:

- a question's **score** is the mean, over the graded features it has, of its feature's percentile
  rank in the reference (mid-rank for ties; ``1 - rank`` where lower is harder), so 0 is the
  easiest question of the reference and 1 the hardest;
- ranks are taken within the question's **stratum** (``TaskType.level_strata``: keys of the program's
  ``balance_class``, such as T4's Yes/No or a roll's axis) so that every level keeps the answer
  balance the planner made: a level-filtered dataset gives a blind guesser nothing the whole one does
  not; a stratum the reference lacks is ranked in the pooled distribution (``*``);
- **level**: hard from ``cuts.hard``, medium from ``cuts.medium``, else easy; the cut points are the
  reference scores' 1/3 and 2/3 quantiles, so each level holds about a third of the reference.

``calibrate`` recomputes the tables from records (``pipeline/commands/calibrate_levels.py``).
"""
from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from ..data_files import load_table

LEVELS = ("easy", "medium", "hard")
POOLED = "*"
POINTS = 21                 # quantiles stored per feature: 0, 5, …, 100 %
DIGITS = 5                  # decimals kept in a table (a table reproduces exactly from its records)


def harder_of(name: str) -> str:
    """``higher`` or ``lower``: which way feature ``name`` is harder (``core/data/difficulty.yaml``)."""
    return load_table("difficulty.yaml")["features"][name]["harder"]


def stratum(program: dict, keys) -> str:
    """The stratum a record's program falls in: ``axis=x,side=left`` (its ``balance_class`` values of
    ``keys``, in their order); ``*`` without keys or a balance class."""
    cls = program.get("balance_class") or {}
    if not keys or not all(k in cls for k in keys):
        return POOLED
    return ",".join(f"{k}={cls[k]}" for k in keys)


def rank(quantiles, v: float) -> float:
    """Percentile rank (0–1) of ``v`` in a distribution given by equally spaced quantiles: linear
    between two of them, the middle of a run of equal ones (mid-rank of ties), 0 / 1 beyond the ends."""
    q = np.asarray(quantiles, float)
    p = np.linspace(0.0, 1.0, len(q))
    lo, hi = int(np.searchsorted(q, v, "left")), int(np.searchsorted(q, v, "right"))
    if hi > lo:                                  # v is one of the points
        return float((p[lo] + p[hi - 1]) / 2)
    if lo == 0:
        return 0.0
    if lo == len(q):
        return 1.0
    return float(p[lo - 1] + (p[lo] - p[lo - 1]) * (v - q[lo - 1]) / (q[lo] - q[lo - 1]))


def score(features: dict, program: dict, table: dict) -> float | None:
    """The question's difficulty score (0 easiest … 1 hardest) against ``table``; None when it has
    none of the graded features."""
    dist = table["quantiles"].get(stratum(program, table.get("strata") or ()))
    if dist is None:
        dist = table["quantiles"][POOLED]
    ranks = []
    for name, harder in table["features"].items():
        v = features.get(name)
        if v is None or name not in dist:
            continue
        r = rank(dist[name], float(v))
        ranks.append(r if harder == "higher" else 1.0 - r)
    return round(float(np.mean(ranks)), DIGITS) if ranks else None


def level_of_score(s: float | None, table: dict) -> str:
    if s is None:
        return "medium"
    cuts = table["cuts"]
    return "hard" if s >= float(cuts["hard"]) else "medium" if s >= float(cuts["medium"]) else "easy"


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


# ------------------------------------------------------------------ calibration
def _quantiles(values) -> list:
    q = np.quantile(np.asarray(values, float), np.linspace(0.0, 1.0, POINTS))
    return [round(float(x), DIGITS) for x in q]


def calibrate(records: list[dict], features: tuple, strata: tuple = ()) -> dict:
    """One task's level table from its reference ``records`` (each with ``program.difficulty``):
    the graded ``features`` with their direction, the quantiles per stratum (and pooled), and the cut
    points at the 1/3 and 2/3 quantiles of the reference's own scores."""
    feats = [r["program"]["difficulty"] for r in records]
    progs = [r["program"] for r in records]
    groups: dict = {POOLED: list(range(len(records)))}
    for k, p in enumerate(progs):
        s = stratum(p, strata)
        if s != POOLED:
            groups.setdefault(s, []).append(k)
    quantiles = {}
    for name in sorted(groups, key=lambda g: (g != POOLED, g)):
        dist = {}
        for f in features:
            vals = [feats[k][f] for k in groups[name] if feats[k].get(f) is not None]
            if vals:
                dist[f] = _quantiles(vals)
        quantiles[name] = dist
    table = {"features": {f: harder_of(f) for f in features}, "strata": list(strata), "quantiles": quantiles,
             "cuts": {"medium": 0.0, "hard": 0.0}}
    scores = [s for f, p in zip(feats, progs) if (s := score(f, p, table)) is not None]
    if scores:
        lo, hi = np.quantile(np.asarray(scores), [1 / 3, 2 / 3])
        table["cuts"] = {"medium": round(float(lo), DIGITS), "hard": round(float(hi), DIGITS)}
    table["reference"] = {"questions": len(records), "scored": len(scores)}
    return table


def default_features() -> list:
    """The features a task without its own ``level_features`` grades (``core/data/difficulty.yaml``)."""
    return list(load_table("difficulty.yaml").get("default", []))


HEADER = """\
# This task's calibrated difficulty levels (core/quality/levels.py), written by
#   run_blender.py calibrate-levels --structures REFERENCE… --out blender_addon/misigen/core/tasks
# features: the graded features (the task's level_features) and which way is harder; strata: the
# balance-class keys ranks are taken within (each level keeps the answer balance); quantiles: per
# stratum ('*' = all), each feature's reference distribution at 0, 5, …, 100 %; a question's score
# is the mean percentile rank of its features there (0 easiest, 1 hardest); cuts: score from which
# a question is medium / hard (the reference scores' 1/3 and 2/3 points); reference: what it was.
"""


def _yaml(body: dict) -> str:
    import yaml

    class Plain(yaml.SafeDumper):          # no &anchors for lists shared between tables
        def ignore_aliases(self, data):
            return True

    return yaml.dump(body, Dumper=Plain, sort_keys=False, default_flow_style=None, width=100, allow_unicode=True)


def _body(table: dict) -> dict:
    return {k: table[k] for k in ("features", "strata", "cuts", "reference", "quantiles") if k in table}


def dump_table(table: dict) -> str:
    """A level table as the YAML text of a ``levels.yaml`` (header comment, stable key order)."""
    return HEADER + _yaml(_body(table))


def dump_tables(tables: dict) -> str:
    """Every task's table in one YAML file (task type → table)."""
    return _yaml({name: _body(t) for name, t in tables.items()})


def level_shares(records: list[dict], table: dict) -> dict:
    """{level: share} of ``records`` graded by ``table`` (their stored features)."""
    got = [level_of_score(score(r["program"]["difficulty"], r["program"], table), table) for r in records]
    n = max(len(got), 1)
    return {lv: round(got.count(lv) / n, 3) for lv in LEVELS}


__all__ = ["calibrate", "score", "rank", "stratum", "level_of_score", "load_level_table", "level_shares", "dump_table",
           "dump_tables", "default_features", "LEVELS", "POOLED"]
