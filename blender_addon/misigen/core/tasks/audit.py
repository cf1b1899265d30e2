"""Blind baselines for a generated dataset: can a question be answered WITHOUT its reasoning?

Pure Python + numpy (no bpy, no file reading): give it the QA records and, optionally, a
function that returns a small grey-scale array for an image path. Per task it reports the
answer distribution and the accuracy of guessers that never look at the molecules' motion or
geometry. Which guessers run is the registry's: each task type's ``audit`` hook and its answer
kind's (``core/tasks/guessers.py``: majorities of move/roll answers and their features, letter
balance, option-text and option-image guessers, the residue type of a Yes/No question …); every
record is also checked for images repeated within it (same file or same bytes). Guessers that
compare option images with the question's own images (nearest to the reference after-image …)
may solve part of the reasoning (T5's after-image offset IS the translation): they are *partial
solvers*, judged against what solving one factor of the 2×2 option grid gives (0.5), not chance.

Necessity (``core/quality/necessity.py``), for task types whose registry entry reads each option's steps
from the program (``option_steps``): per step, the share of questions in which an oracle that
knows every other step exactly still cannot be sure, and the share in which the step's magnitude
is needed. A step fails the audit when the one-sided upper Wilson bound of its share is below
``necessity.min_needed`` (0.5); a magnitude when below its task's ``necessity.magnitudes``
minimum (T8: 0.25); it is reported "proven" when even the lower bound clears the minimum.

Guessers that learn from answers (the majority answer, the majority axis or sign of cloze and
docking answers, T4's majority and residue type, T9's majority) are fitted on held-out questions
(``guessers.HeldOut``): a test-split question by the guesser fitted on the task's train-split
questions when it has any, every other question by the guesser fitted on all the other questions
(leave-one-out). Fitted on the very answers they are scored on, a majority of six answers of which
two repeat scores 1/3 against a chance of 1/36. Guessers that apply a fixed rule (always A, smallest
move, odd one out …) learn nothing and score every question as they are.

Each judged guesser then tests "its accuracy is at most chance + margin" (margin and confidence:
the suite's ``audit`` block) with the exact binomial tail, a tie's fractional credit rounded down.
Exact, not Wilson's normal approximation: when questions × chance is small (a handful of
questions, chance 1/16 or 1/360) the Wilson bound of a guesser at chance clears the bar up to 13
times as often as its confidence allows. The correction for the number of guessers tried is Holm's
step-down over every judged guesser of the dataset, at family-wise level α = 1 − confidence: the
audit gives one verdict per dataset (``generate`` exits 4 on it), so the error to bound is the
chance that ANY guesser of ANY task flags an honest dataset; Holm bounds it at α whatever the
dependence between guessers (a majority answer and a majority axis share their data) and is never
less powerful than Bonferroni. A guesser whose task has so few questions that even a perfect one
(every answer right) could not be flagged at the Bonferroni level α/m is reported "too few
questions to judge" (with the size that would do) and is left out of the test: neither FAIL nor
OK, and it does not fail the audit. Informational rows ("info") use the geometry a careful reader
uses too and are not judged. The necessity bounds above stay one-sided Wilson bounds per step.
"""
from __future__ import annotations

import math
from collections import defaultdict
from functools import lru_cache
from statistics import NormalDist

import numpy as np

from ..quality.necessity import necessity
from .catalog import REGISTRY


def wilson_lower(k: float, n: int, confidence: float) -> float:
    """One-sided lower confidence bound of a binomial proportion (Wilson score)."""
    if n == 0:
        return 0.0
    z = NormalDist().inv_cdf(confidence)
    p = k / n
    centre = p + z * z / (2 * n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, (centre - half) / (1 + z * z / n))


def wilson_upper(k: float, n: int, confidence: float) -> float:
    """One-sided upper confidence bound of a binomial proportion (Wilson score)."""
    return 1.0 - wilson_lower(n - k, n, confidence) if n else 1.0


# ------------------------------------------------------------------ the audit
class _Rows:
    def __init__(self):
        self.credit = defaultdict(float)
        self.n = defaultdict(int)
        self.chance = {}
        self.kind = {}
        self.fitted = {}

    def add(self, name, credit, chance, kind, fitted=None):
        """One more question answered by guesser ``name`` with ``credit`` (0..1); ``fitted``: how a
        guesser that learns from answers was fitted (``guessers.HeldOut``)."""
        self.credit[name] += credit
        self.n[name] += 1
        self.chance[name] = chance
        self.kind[name] = kind
        if fitted:
            self.fitted[name] = fitted

    def set(self, name, credit, n, chance, kind, fitted=None):
        """A guesser's totals at once (``credit`` right out of ``n``)."""
        self.credit[name], self.n[name], self.chance[name], self.kind[name] = float(credit), n, chance, kind
        if fitted:
            self.fitted[name] = fitted


def audit_records(records: list[dict], load_image=None, settings: dict | None = None) -> dict:
    """The audit of a dataset as a JSON-able dict (see the module docstring)."""
    settings = settings or {}
    margin = float(settings.get("margin", 0.05))
    confidence = float(settings.get("confidence", 0.99))
    known = {(k["task"], k["guesser"]): k["reason"] for k in settings.get("known_shortcuts", [])}
    by_task: dict[str, list[dict]] = defaultdict(list)
    for r in records:
        by_task[r["task"]].append(r)
    nec = settings.get("necessity") or {}
    min_needed = float(nec.get("min_needed", 0.5))
    min_magnitude = {m["task"]: float(m["min_needed"]) for m in nec.get("magnitudes", [])}
    tasks, unneeded = {}, []
    for task, recs in sorted(by_task.items()):
        tasks[task], flags = _task_section(task, recs, load_image, confidence, min_needed, min_magnitude.get(task))
        unneeded += flags
    judged = judge(tasks, margin, confidence)
    flagged, known_hits, too_few = _verdicts(tasks, known)
    repeats = sum(s["repeated_images"] for s in tasks.values())
    return {"settings": {"margin": margin, "confidence": confidence, "images": load_image is not None,
                         "correction": "holm", "judged": judged,
                         "necessity": {"min_needed": min_needed, "magnitudes": min_magnitude}},
            "tasks": tasks, "flagged": flagged, "known": known_hits, "too_few": too_few, "repeated_images": repeats,
            "unneeded": unneeded, "ok": not flagged and not unneeded and repeats == 0}


def _task_section(task: str, recs: list[dict], load_image, confidence: float, min_needed: float,
                  min_magnitude: float | None) -> tuple[dict, list]:
    """One task's section (its guessers' rows, not yet judged) and its necessity flags."""
    rows = _Rows()
    section: dict = {"n": len(recs), "distinct_answers": len({r["answer"] for r in recs})}
    kind = REGISTRY.kind_of(task, recs[0].get("program"))
    tt = REGISTRY.of(task, recs[0].get("program"))
    for hook in (kind.audit, tt.audit):     # the answer kind's guessers first (letters), then the task's
        if hook is not None:
            hook(recs, rows, section, load_image)
    section["guessers"] = []
    for name in sorted(rows.n):
        n, k, chance = rows.n[name], rows.credit[name], rows.chance[name]
        row = {"guesser": name, "kind": rows.kind[name], "n": n, "credit": round(k, 6),
               "accuracy": round(k / n, 4) if n else 0.0, "chance": None if chance is None else round(chance, 4)}
        if name in rows.fitted:
            row["fitted"] = rows.fitted[name]
        section["guessers"].append(row)
    section["repeated_images"] = _repeats(recs, load_image)
    flags = []
    if tt.option_steps is not None:
        nsec = _necessity(recs, tt.option_steps, min_needed, min_magnitude, confidence)
        if nsec is not None:
            section["necessity"] = nsec
            flags = [{"task": task, **f} for f in nsec.pop("flags")]
    section["levels"] = _by_level(recs, (kind.audit, tt.audit), load_image)
    return section, flags


def _is_judged(row: dict) -> bool:
    return row.get("chance") is not None and row["kind"] != "info"


def binomial_tail(k: int, n: int, p: float) -> float:
    """P(X ≥ k) for X ~ Binomial(n, p), summed in log space (no overflow at any n)."""
    if k <= 0 or p >= 1.0:
        return 1.0
    if k > n or p <= 0.0:
        return 0.0
    return float(_tails(k, n, np.array([p]))[0])


def _tails(k: int, n: int, ps: np.ndarray) -> np.ndarray:
    """P(X ≥ k) for X ~ Binomial(n, p), for each p in ``ps`` (0 < p < 1, 0 < k ≤ n)."""
    j = np.arange(k, n + 1)
    terms = _log_comb(n)[k:] + np.outer(np.log(ps), j) + np.outer(np.log1p(-ps), n - j)
    top = terms.max(axis=1)
    return np.minimum(1.0, np.exp(top) * np.exp(terms - top[:, None]).sum(axis=1))


@lru_cache(maxsize=256)
def _log_comb(n: int) -> np.ndarray:
    """log C(n, j) for j = 0 … n."""
    j = np.arange(1, n + 1)
    return np.concatenate(([0.0], np.cumsum(np.log((n - j + 1) / j))))


def exact_lower(k: int, n: int, confidence: float) -> float:
    """One-sided exact (Clopper–Pearson) lower bound of a binomial proportion: the p at which ``k`` or
    more right out of ``n`` has probability 1 − confidence (the tail grows with p: found on ever
    finer grids, to 1e-10)."""
    if k <= 0:
        return 0.0
    lo, hi = 0.0, 1.0
    while hi - lo > 1e-10:
        grid = np.linspace(lo, hi, 34)
        below = int((_tails(k, n, grid[1:-1]) <= 1.0 - confidence).sum())    # the first ``below`` points
        lo, hi = grid[below], grid[below + 1]
    return float(lo)


def least_judgeable(bar: float, level: float) -> int | None:
    """The fewest questions at which a perfect guesser (every one right) would be flagged at ``level``:
    the least n with bar^n < level; None when no number does (``bar`` ≥ 1)."""
    if bar >= 1.0:
        return None
    if bar <= 0.0:
        return 1
    return math.floor(math.log(level) / math.log(bar)) + 1


def _right(credit: float) -> int:
    """Questions counted right for the exact test: a tie's fractional credit is rounded down, so
    breaking ties never tips a verdict."""
    return math.floor(credit + 1e-9)


def judge(tasks: dict, margin: float, confidence: float) -> int:
    """Give every judged row of every task its verdict, in place; returns how many rows were judged.

    Each row tests "accuracy ≤ chance + margin" with the exact binomial tail (``p_value``). A row
    whose size gives even a perfect guesser no chance of a flag at the Bonferroni level α/m
    (α = 1 − confidence, m = every judged row of the dataset) is "too few" (``needs``: the size that
    would do). The others are tested together with Holm's step-down at family-wise level α: sorted by
    p-value, the i-th (from 0) of m' is flagged when it and every one before it have p below
    α/(m' − i); ``lower_bound`` is the exact lower bound at that row's level (``level``)."""
    alpha = 1.0 - confidence
    rows = [row for sec in tasks.values() for row in sec["guessers"] if _is_judged(row)]
    tested = []
    for row in rows:
        bar = row["chance"] + margin
        needs = least_judgeable(bar, alpha / len(rows))
        p = binomial_tail(_right(row["credit"]), row["n"], bar)
        row["p_value"] = float(f"{p:.3g}")
        if needs is None or row["n"] < needs:
            row.update(verdict="too few", needs=needs, flagged=False)
        else:
            tested.append((p, len(tested), row))
    holding = True                  # Holm stops at the first row it cannot reject
    for i, (p, _, row) in enumerate(sorted(tested, key=lambda t: t[:2])):
        level = alpha / (len(tested) - i)
        holding = holding and p < level
        row["lower_bound"] = round(exact_lower(_right(row["credit"]), row["n"], 1.0 - level), 4)
        row["level"] = float(f"{level:.3g}")
        row.update(flagged=holding, verdict="above" if holding else "ok")
    return len(rows)


def _verdicts(tasks: dict, known: dict) -> tuple[list, list, list]:
    """(the flagged rows, the flagged rows that are known shortcuts, the rows with too few questions)."""
    flagged, known_hits, too_few = [], [], []
    for task, sec in tasks.items():
        for row in sec["guessers"]:
            if row.get("verdict") == "too few":
                too_few.append({"task": task, "guesser": row["guesser"], "n": row["n"], "needs": row["needs"]})
            elif row.get("flagged") and (task, row["guesser"]) in known:
                row["known"] = known[(task, row["guesser"])]
                known_hits.append({"task": task, "guesser": row["guesser"], "accuracy": row["accuracy"],
                                   "reason": row["known"]})
            elif row.get("flagged"):
                flagged.append({"task": task, "guesser": row["guesser"], "accuracy": row["accuracy"],
                                "lower_bound": row["lower_bound"], "chance": row["chance"]})
        judged = [row for row in sec["guessers"] if _is_judged(row)]
        if judged and all(row["verdict"] == "too few" for row in judged):
            sec["judged"] = "too few questions to judge"
    return flagged, known_hits, too_few


def _necessity(recs, option_steps, min_needed: float, min_magnitude: float | None, confidence: float) -> dict | None:
    """The necessity section of one task (shares with one-sided upper bounds) and its flags."""
    counts = necessity([r["program"] for r in recs], option_steps)
    if counts is None:
        return None
    n, steps, flags = counts["n"], [], []
    for st in counts["steps"]:
        row = {"step": st["step"], "label": st["label"]}
        for key, least in (("needed", min_needed), ("magnitude_needed", min_magnitude)):
            k = st[key]
            row[key] = k
            row[key.replace("needed", "share")] = round(k / n, 4)
            up, low = wilson_upper(k, n, confidence), wilson_lower(k, n, confidence)
            row[key.replace("needed", "upper_bound")] = round(up, 4)
            row[key.replace("needed", "lower_bound")] = round(low, 4)
            if least is not None:
                row[key.replace("needed", "min")] = least
                row[key.replace("needed", "flagged")] = up < least
                # proven: even the lower bound clears the minimum; too seldom (fails): even the upper
                # bound is below it; in between the set is too small to tell either way
                row[key.replace("needed", "verdict")] = ("too seldom" if up < least else
                                                         "proven" if low >= least else "unproven")
                if up < least:
                    flags.append({"step": st["label"], "what": "magnitude" if key != "needed" else "step",
                                  "share": round(k / n, 4), "upper_bound": round(up, 4), "min": least})
        steps.append(row)
    return {"n": n, "steps": steps, "flags": flags}


LEVELS = ("easy", "medium", "hard")


def _by_level(recs, hooks, load_image) -> dict:
    """Per difficulty level (``program.difficulty.level``): how many questions, and each guesser's
    accuracy on them (information only: the verdicts above are on the whole task)."""
    out = {}
    for level in LEVELS:
        sub = [r for r in recs if ((r.get("program") or {}).get("difficulty") or {}).get("level") == level]
        if not sub:
            continue
        rows = _Rows()
        for hook in hooks:
            if hook is not None:
                hook(sub, rows, {}, load_image)
        out[level] = {"n": len(sub), "guessers": {name: round(rows.credit[name] / rows.n[name], 4)
                                                  for name in sorted(rows.n) if rows.n[name] and
                                                  rows.kind[name] != "info"}}
    return out


def _repeats(recs, load_image) -> int:
    """Records whose images (and option images) repeat a file or its bytes."""
    bad = 0
    for r in recs:
        paths = list(r["images"]) + [o for o in (r["options"] or []) if str(o).startswith("images/")]
        if len(set(paths)) != len(paths):
            bad += 1
            continue
        if load_image is not None and hasattr(load_image, "digest"):
            digests = [load_image.digest(p) for p in paths]
            digests = [d for d in digests if d is not None]
            if len(set(digests)) != len(digests):
                bad += 1
    return bad


def format_audit(report: dict) -> str:
    """The audit as plain-text tables: the guessers, then the necessity of each step."""
    lines = [f"{'task':28s} {'guesser':52s} {'kind':14s} {'n':>5s} {'acc':>6s} {'chance':>6s} {'low':>6s}  verdict"]
    for task, sec in report["tasks"].items():
        for g in sec["guessers"]:
            chance = "" if g.get("chance") is None else f"{g['chance']:.3f}"
            low = "" if "lower_bound" not in g else f"{g['lower_bound']:.3f}"
            name = g["guesser"][:50] + (" *" if g.get("fitted") else "")
            lines.append(f"{task:28s} {name:52s} {g['kind']:14s} {g['n']:5d} {g['accuracy']:6.3f} "
                         f"{chance:>6s} {low:>6s}  {_verdict(g)}")
        if sec.get("judged"):
            lines.append(f"{task:28s} {sec['judged']} ({sec['n']} question(s))")
        if sec.get("repeated_images"):
            lines.append(f"{task:28s} repeated images in {sec['repeated_images']} record(s)")
        for level, lv in (sec.get("levels") or {}).items():
            best = max(lv["guessers"].items(), key=lambda kv: (kv[1], kv[0]), default=None)
            lines.append(f"{task:28s} level {level:6s}: {lv['n']} question(s)"
                         + (f", best guesser {best[0][:40]} {best[1]:.3f}" if best else ""))
        if sec.get("note"):
            lines.append(f"{task:28s} note: {sec['note']}")
    necessity_lines = []
    for task, sec in report["tasks"].items():
        for st in (sec.get("necessity") or {}).get("steps", []):
            n = sec["necessity"]["n"]
            cells = []
            for key in ("", "magnitude_"):
                share, low, up = st[f"{key}share"], st[f"{key}lower_bound"], st[f"{key}upper_bound"]
                least = st.get(f"{key}min")
                verdict = "-" if least is None else st[f"{key}verdict"].replace("too seldom", "TOO SELDOM")
                cells.append(f"{share:6.3f} {low:6.3f} {up:6.3f} {'' if least is None else f'{least:.2f}':>5s} "
                             f"{verdict:10s}")
            necessity_lines.append(f"{task:28s} {st['label'][:22]:22s} {n:5d}  " + "  ".join(cells))
    if necessity_lines:
        header = (f"{'task':28s} {'step':22s} {'n':>5s}  {'needed':>6s} {'low':>6s} {'up':>6s} {'min':>5s} "
                  f"{'verdict':10s}  {'|v|':>6s} {'low':>6s} {'up':>6s} {'min':>5s} verdict")
        lines += ["", header, *necessity_lines]
    s = report["settings"]
    if any(g.get("fitted") for sec in report["tasks"].values() for g in sec["guessers"]):
        lines.append("* learns from answers: fitted on held-out questions (the train split's for test questions "
                     "when there are any, else every other question)")
    family = f", Holm over {s['judged']} judged" if s.get("correction") == "holm" else ""
    lines.append(f"{len(report['flagged'])} guesser(s) above their bar + {s['margin']:.2f} "
                 f"(one-sided {s['confidence']:.0%} bound{family}), {len(report['known'])} known, "
                 f"{len(report.get('too_few', []))} with too few questions to judge, "
                 f"{len(report.get('unneeded', []))} step(s) needed too seldom, "
                 f"{report['repeated_images']} record(s) with repeated images: {'OK' if report['ok'] else 'FAIL'}")
    return "\n".join(lines)


def _verdict(g: dict) -> str:
    """One guesser row's verdict as the table prints it."""
    if g.get("known"):
        return "known: " + g["known"][:40]
    if g.get("verdict") == "too few":
        return "too few questions to judge" + (f" (needs {g['needs']})" if g.get("needs") else "")
    if g.get("flagged"):
        return "ABOVE ONE FACTOR" if g["kind"] == "partial solver" else "ABOVE CHANCE"
    return "-" if g.get("chance") is None or g["kind"] == "info" else "ok"
