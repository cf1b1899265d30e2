"""Blind baselines for a generated dataset: can a question be answered WITHOUT its reasoning?

Pure Python + numpy (no bpy, no file reading): give it the QA records and, optionally, a
function that returns a small grey-scale array for an image path. Per task it reports the
answer distribution, letter balance, and the accuracy of guessers that never look at the
molecules' motion or geometry:

- cloze tasks: the majority answer and the majority of each answer feature (axis, sign …);
- choice tasks with text options (T8): the most central / odd-one-out option, nearest the median,
  most / least shared values, smallest / largest move;
- choice tasks with image options (T5, T6): odd one out, most central, nearest to / farthest from
  the reference after-image and from the target's (or the complex's) front view;
- residue–ligand interaction (T4): the majority answer and the residue type alone (leave-one-out);
- every record: images repeated within the record (same file or same bytes).

Each judged guesser is compared with chance by a one-sided Wilson lower bound at the suite's
confidence: it is flagged when that bound exceeds chance + margin, so a small dataset does not
raise false alarms. Ties give fractional credit (the expected accuracy of breaking them at random).
Informational rows (marked "info") use the geometry a careful reader uses too and are not judged.
"""
from __future__ import annotations

import math
from collections import Counter, defaultdict
from statistics import NormalDist

import numpy as np

from .commands import parse_ops

LETTERS = "ABCD"
POLAR_SIDE_CHAINS = {"SER", "THR", "ASN", "GLN", "ASP", "GLU", "LYS", "ARG", "HIS", "TYR", "TRP", "CYS"}


GUESSERS = ("majority answer", "residue type (leave-one-out)", "polar side chain says Yes", "most central",
            "odd one out", "nearest the median", "most shared values", "least shared values", "smallest move",
            "largest move", "odd one out (pixels)", "most central (pixels)")
GUESSER_PATTERNS = (r"always [A-D]", r"majority (move|roll) (axis|sign)",
                    r"(nearest to|farthest from) the (reference after|target front|front)")


def is_guesser(name: str) -> bool:
    """Whether ``name`` is a guesser the audit can report (for checking a suite's known shortcuts)."""
    import re
    return name in GUESSERS or any(re.fullmatch(p, name) for p in GUESSER_PATTERNS)


def wilson_lower(k: float, n: int, confidence: float) -> float:
    """One-sided lower confidence bound of a binomial proportion (Wilson score)."""
    if n == 0:
        return 0.0
    z = NormalDist().inv_cdf(confidence)
    p = k / n
    centre = p + z * z / (2 * n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, (centre - half) / (1 + z * z / n))


def _pick(scores: list[float], best=min) -> list[int]:
    """Indices achieving the best score (all of them: ties share the credit)."""
    target = best(scores)
    return [k for k, s in enumerate(scores) if abs(s - target) <= 1e-9 * max(1.0, abs(target))]


def _credit(picked: list[int], correct: int) -> float:
    return (1.0 / len(picked)) if correct in picked else 0.0


# ------------------------------------------------------------------ option-text guessers (T8)
def _moves(options: list[str]) -> np.ndarray:
    out = []
    for text in options:
        ops = {op.axis: op.value for op in parse_ops(text)}
        out.append([ops.get("x", 0.0), ops.get("y", 0.0)])
    return np.asarray(out, float)


def text_guessers(options: list[str]) -> dict[str, list[int]]:
    """Option indices each text-only guesser picks (several = a tie)."""
    v = _moves(options)
    mean = v.mean(axis=0)
    med = np.median(v, axis=0)
    dist_mean = [float(np.linalg.norm(x - mean)) for x in v]
    dist_med = [float(np.abs(x - med).sum()) for x in v]
    values = Counter(float(a) for row in v for a in row)
    shared = [sum(values[float(a)] - 1 for a in row) for row in v]
    l1 = [float(np.abs(x).sum()) for x in v]
    return {"most central": _pick(dist_mean), "odd one out": _pick(dist_mean, max),
            "nearest the median": _pick(dist_med), "most shared values": _pick(shared, max),
            "least shared values": _pick(shared), "smallest move": _pick(l1), "largest move": _pick(l1, max)}


# ------------------------------------------------------------------ option-image guessers (T5, T6)
def image_guessers(options: list[np.ndarray], refs: dict[str, np.ndarray]) -> dict[str, list[int]]:
    """Option indices each image-only guesser picks. ``refs``: role → image (e.g. the reference
    after-image, the target's front view)."""
    flat = [o.ravel() for o in options]
    d = np.array([[float(np.linalg.norm(a - b)) for b in flat] for a in flat])
    total = d.sum(axis=1).tolist()
    out = {"odd one out (pixels)": _pick(total, max), "most central (pixels)": _pick(total)}
    for role, img in refs.items():
        to = [float(np.linalg.norm(f - img.ravel())) for f in flat]
        out[f"nearest to {role}"] = _pick(to)
        out[f"farthest from {role}"] = _pick(to, max)
    return out


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
    tasks, flagged, known_hits = {}, [], []
    images_used = load_image is not None
    for task, recs in sorted(by_task.items()):
        rows = _Rows()
        section: dict = {"n": len(recs)}
        answers = Counter(r["answer"] for r in recs)
        section["distinct_answers"] = len(answers)
        kind = recs[0]["program"].get("kind")
        if kind in ("cloze", "docking"):
            _cloze(recs, rows, answers)
        if kind in ("choice", "location"):
            letters = Counter(r["answer"] for r in recs)
            n_opt = max(len(r["options"] or []) for r in recs) or 4      # a spec may ask 2–4 options
            used = LETTERS[:n_opt]
            section["letters"] = {L: letters.get(L, 0) for L in used}
            section["letter_max_deviation"] = round(max(abs(letters.get(L, 0) / len(recs) - 1 / n_opt)
                                                        for L in used), 4)
            for L in used:
                rows.set(f"always {L}", letters.get(L, 0), len(recs), 1 / n_opt, "prior")
        if kind == "location":
            for r in recs:
                correct = LETTERS.index(r["answer"])
                for name, picked in text_guessers(r["options"]).items():
                    rows.add(name, _credit(picked, correct), 1 / len(r["options"]), "option text")
        if kind == "choice":
            if images_used:
                _image_choice(recs, rows, load_image)
            else:
                section["note"] = "images not rendered: option-image guessers skipped"
        if kind == "residue_hbonds":
            _residue(recs, rows)
        if kind == "pocket_hbonds":
            section["answered_no"] = sum(1 for r in recs if r["answer"] == "No")
            _top, count = answers.most_common(1)[0]
            rows.set("majority answer", count, len(recs), None, "info")
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
        tasks[task] = section
    repeats = sum(s["repeated_images"] for s in tasks.values())
    return {"settings": {"margin": margin, "confidence": confidence, "images": images_used},
            "tasks": tasks, "flagged": flagged, "known": known_hits, "repeated_images": repeats,
            "ok": not flagged and repeats == 0}


def _cloze(recs, rows: _Rows, answers: Counter) -> None:
    top, _count = answers.most_common(1)[0]
    space = max(len(answers), _answer_space(recs[0]["program"]))
    for r in recs:
        rows.add("majority answer", float(r["answer"] == top), 1.0 / space, "prior")
    feats = defaultdict(Counter)
    for r in recs:
        for op in r["program"]["ops"]:
            feats[f"{op['op']} axis"][op["axis"]] += 1
            feats[f"{op['op']} sign"]["+" if op["value"] > 0 else "-"] += 1
    for feat, counts in feats.items():
        values = _feature_space(recs[0]["program"], feat) or len(counts)
        if values < 2:
            continue
        _top, top_n = counts.most_common(1)[0]
        rows.set(f"majority {feat}", top_n, sum(counts.values()), 1.0 / values, "prior")


def _answer_space(program: dict) -> int:
    return int(program.get("answer_space", 1))


def _feature_space(program: dict, feat: str) -> int:
    if program.get("kind") == "cloze":
        if feat.endswith("axis"):
            return len(program["axes"])
        lo, hi = program["value_range"]
        return 2 if lo < 0 < hi else 1
    if program.get("kind") == "docking":
        return {"roll axis": len(program.get("roll_axes", "xyz")), "roll sign": 2, "move axis": 1,
                "move sign": 2}.get(feat, 0)
    return 0


def _residue(recs, rows: _Rows) -> None:
    yes = [r["answer"] != "No" for r in recs]
    majority = Counter(yes).most_common(1)[0][0]
    by_type = defaultdict(list)
    for r, y in zip(recs, yes):
        by_type[r["program"]["residue"]["resname"]].append(y)
    for r, y in zip(recs, yes):
        rows.add("majority answer", float(y == majority), 0.5, "prior")
        others = list(by_type[r["program"]["residue"]["resname"]])
        others.remove(y)
        n_yes = sum(others)
        guess = 0.5 if 2 * n_yes == len(others) else float((2 * n_yes > len(others)) == y)
        rows.add("residue type (leave-one-out)", guess, 0.5, "question text")
        rows.add("polar side chain says Yes", float((r["program"]["residue"]["resname"] in POLAR_SIDE_CHAINS) == y),
                 0.5, "question text")
        d = r["program"].get("min_polar_distance")
        if d is not None:
            rows.add("polar atoms within 3.5 Å say Yes (uses geometry)", float((d <= 3.5) == y), 0.5, "info")


def _image_choice(recs, rows: _Rows, load_image) -> None:
    for r in recs:
        roles = r["program"].get("image_roles", [])
        refs = {}
        for role in ("reference after", "target front", "front"):
            if role in roles:
                img = load_image(r["images"][roles.index(role)])
                if img is not None:
                    refs[f"the {role}"] = img
        opts = [load_image(p) for p in r["options"]]
        if any(o is None for o in opts):
            continue
        correct = LETTERS.index(r["answer"])
        for name, picked in image_guessers(opts, refs).items():
            rows.add(name, _credit(picked, correct), 1 / len(opts), "option images")


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
    """The audit as a plain-text table."""
    lines = [f"{'task':28s} {'guesser':52s} {'kind':14s} {'n':>5s} {'acc':>6s} {'chance':>6s} {'low':>6s}  verdict"]
    for task, sec in report["tasks"].items():
        for g in sec["guessers"]:
            verdict = ("known: " + g["known"][:40]) if g.get("known") else \
                ("ABOVE CHANCE" if g.get("flagged") else ("-" if g.get("chance") is None or g["kind"] == "info"
                                                          else "ok"))
            chance = "" if g.get("chance") is None else f"{g['chance']:.3f}"
            low = "" if "lower_bound" not in g else f"{g['lower_bound']:.3f}"
            lines.append(f"{task:28s} {g['guesser'][:52]:52s} {g['kind']:14s} {g['n']:5d} {g['accuracy']:6.3f} "
                         f"{chance:>6s} {low:>6s}  {verdict}")
        if sec.get("repeated_images"):
            lines.append(f"{task:28s} repeated images in {sec['repeated_images']} record(s)")
        if sec.get("note"):
            lines.append(f"{task:28s} note: {sec['note']}")
    s = report["settings"]
    lines.append(f"{len(report['flagged'])} guesser(s) above chance + {s['margin']:.2f} "
                 f"(one-sided {s['confidence']:.0%} bound), {len(report['known'])} known, "
                 f"{report['repeated_images']} record(s) with repeated images: {'OK' if report['ok'] else 'FAIL'}")
    return "\n".join(lines)
