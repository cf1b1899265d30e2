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

Necessity (``core/necessity.py``), for task types whose registry entry reads each option's steps
from the program (``option_steps``): per step, the share of questions in which an oracle that
knows every other step exactly still cannot be sure, and the share in which the step's magnitude
is needed. A step fails the audit when the one-sided upper Wilson bound of its share is below
``necessity.min_needed`` (0.5); a magnitude when below its task's ``necessity.magnitudes``
minimum (T8: 0.25); it is reported "proven" when even the lower bound clears the minimum.

Each judged guesser is compared with chance by a one-sided Wilson lower bound at the suite's
confidence: it is flagged when that bound exceeds chance + margin, so a small dataset does not
raise false alarms. Ties give fractional credit (the expected accuracy of breaking them at random).
Informational rows (marked "info") use the geometry a careful reader uses too and are not judged.
"""
from __future__ import annotations

import math
from collections import defaultdict
from statistics import NormalDist

from .necessity import necessity
from .tasks.catalog import REGISTRY
from .tasks.guessers import image_guessers, text_guessers  # noqa: F401  (re-exported: the audit's guessers)


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

    def add(self, name, credit, chance, kind):
        """One more question answered by guesser ``name`` with ``credit`` (0..1)."""
        self.credit[name] += credit
        self.n[name] += 1
        self.chance[name] = chance
        self.kind[name] = kind

    def set(self, name, credit, n, chance, kind):
        """A guesser's totals at once (``credit`` right out of ``n``)."""
        self.credit[name], self.n[name], self.chance[name], self.kind[name] = float(credit), n, chance, kind


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
    tasks, flagged, known_hits, unneeded = {}, [], [], []
    images_used = load_image is not None
    for task, recs in sorted(by_task.items()):
        rows = _Rows()
        section: dict = {"n": len(recs)}
        section["distinct_answers"] = len({r["answer"] for r in recs})
        kind = REGISTRY.kind_of(task, recs[0].get("program"))
        tt = REGISTRY.of(task, recs[0].get("program"))
        for hook in (kind.audit, tt.audit):     # the answer kind's guessers first (letters), then the task's
            if hook is not None:
                hook(recs, rows, section, load_image)
        section["guessers"] = []
        for name in sorted(rows.n):
            n, k, chance = rows.n[name], rows.credit[name], rows.chance[name]
            row = {"guesser": name, "kind": rows.kind[name], "n": n, "accuracy": round(k / n, 4) if n else 0.0,
                   "chance": None if chance is None else round(chance, 4)}
            if chance is not None and rows.kind[name] != "info":
                lb = wilson_lower(k, n, confidence)
                row["lower_bound"] = round(lb, 4)
                row["flagged"] = lb > chance + margin
                if row["flagged"]:
                    if (task, name) in known:
                        row["known"] = known[(task, name)]
                        known_hits.append({"task": task, "guesser": name, "accuracy": row["accuracy"],
                                           "reason": known[(task, name)]})
                    else:
                        flagged.append({"task": task, "guesser": name, "accuracy": row["accuracy"],
                                        "lower_bound": row["lower_bound"], "chance": row["chance"]})
            section["guessers"].append(row)
        section["repeated_images"] = _repeats(recs, load_image)
        if tt.option_steps is not None:
            nsec = _necessity(recs, tt.option_steps, min_needed, min_magnitude.get(task), confidence)
            if nsec is not None:
                section["necessity"] = nsec
                unneeded += [{"task": task, **f} for f in nsec.pop("flags")]
        section["levels"] = _by_level(recs, (kind.audit, tt.audit), load_image)
        tasks[task] = section
    repeats = sum(s["repeated_images"] for s in tasks.values())
    return {"settings": {"margin": margin, "confidence": confidence, "images": images_used,
                         "necessity": {"min_needed": min_needed, "magnitudes": min_magnitude}},
            "tasks": tasks, "flagged": flagged, "known": known_hits, "repeated_images": repeats,
            "unneeded": unneeded, "ok": not flagged and not unneeded and repeats == 0}


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
            above = "ABOVE ONE FACTOR" if g["kind"] == "partial solver" else "ABOVE CHANCE"
            verdict = ("known: " + g["known"][:40]) if g.get("known") else \
                (above if g.get("flagged") else ("-" if g.get("chance") is None or g["kind"] == "info" else "ok"))
            chance = "" if g.get("chance") is None else f"{g['chance']:.3f}"
            low = "" if "lower_bound" not in g else f"{g['lower_bound']:.3f}"
            lines.append(f"{task:28s} {g['guesser'][:52]:52s} {g['kind']:14s} {g['n']:5d} {g['accuracy']:6.3f} "
                         f"{chance:>6s} {low:>6s}  {verdict}")
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
    lines.append(f"{len(report['flagged'])} guesser(s) above their bar + {s['margin']:.2f} "
                 f"(one-sided {s['confidence']:.0%} bound), {len(report['known'])} known, "
                 f"{len(report.get('unneeded', []))} step(s) needed too seldom, "
                 f"{report['repeated_images']} record(s) with repeated images: {'OK' if report['ok'] else 'FAIL'}")
    return "\n".join(lines)
