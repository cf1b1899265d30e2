"""Blind guessers of the audit (``core/tasks/audit.py``) that answer kinds and several tasks share (letters,
move/roll majorities, option texts, option images); a task's own guessers are in its folder.

Each hook adds rows to the audit's ``rows`` (``add(name, credit, chance, kind)`` per question,
``set(name, credit, n, chance, kind)`` for totals) and may note things in the task's ``section``.
Ties give fractional credit (the expected accuracy of breaking them at random).

A guesser that learns from answers (a majority, a per-answer frequency) never sees the answer it is
scored on: ``HeldOut`` fits it, per question, on the train split's questions when the question is in
the test split and the task has train questions, else on every other question (leave-one-out). Fitted
on the very answers it is scored on, a majority of a handful of answers looks like a shortcut as soon
as one answer repeats. Guessers that only apply a fixed rule to the options (always A, smallest move …)
learn nothing and are scored on every question as they are.
"""
from __future__ import annotations

from collections import Counter, defaultdict

import numpy as np

from ..op_grammar import parse_ops

LETTERS = "ABCD"


def _pick(scores: list[float], best=min) -> list[int]:
    """Indices achieving the best score (all of them: ties share the credit)."""
    target = best(scores)
    return [k for k, s in enumerate(scores) if abs(s - target) <= 1e-9 * max(1.0, abs(target))]


def _credit(picked: list[int], correct: int) -> float:
    return (1.0 / len(picked)) if correct in picked else 0.0


# ------------------------------------------------------------------ guessers fitted on held-out questions
LEAVE_ONE_OUT = "leave-one-out"
TRAIN_SPLIT = "train split (test questions), leave-one-out (the others)"


class HeldOut:
    """Counts of the questions' values (``values_of(record)``: a list, e.g. one answer or an op's
    axis) as the guesser scoring question ``i`` may learn them: from the train split's questions
    when question ``i`` is in the test split and the task has train questions, else from all the
    other questions."""

    def __init__(self, recs: list[dict], values_of):
        self.own = [Counter(values_of(r)) for r in recs]
        self.total = sum(self.own, Counter())
        self.train = sum((c for r, c in zip(recs, self.own) if r.get("split") == "train"), Counter())
        self.from_train = [bool(self.train) and r.get("split") == "test" for r in recs]
        self.fitted = TRAIN_SPLIT if any(self.from_train) else LEAVE_ONE_OUT
        self._total_levels, self._train_levels = _levels(self.total), _levels(self.train)

    def _fit(self, i: int) -> tuple[Counter, tuple, Counter]:
        """(the counts question ``i``'s guesser starts from, their ``_levels``, what to take away)."""
        if self.from_train[i]:
            return self.train, self._train_levels, Counter()
        return self.total, self._total_levels, self.own[i]

    def count(self, i: int, value) -> int:
        """How often ``value`` occurs in what question ``i``'s guesser learns from."""
        counts, _, minus = self._fit(i)
        return counts[value] - minus[value]

    def majority_credit(self, i: int, value, chance: float) -> float:
        """The credit of guessing the most frequent value learnt (ties share it) when the truth is
        ``value``; ``chance`` when there is nothing to learn from (one question, no others)."""
        counts, levels, minus = self._fit(i)
        top, tied = _top(counts, levels, minus)
        if top <= 0:
            return chance
        return 1.0 / tied if counts[value] - minus[value] == top else 0.0


def _levels(counts: Counter) -> tuple[list[int], Counter]:
    """(the distinct counts, highest first; how many values have each count)."""
    per_count = Counter(counts.values())
    return sorted(per_count, reverse=True), per_count


def _top(counts: Counter, levels, minus: Counter) -> tuple[int, int]:
    """(the highest count of ``counts`` less ``minus``, how many values reach it), without copying
    ``counts``: only the values in ``minus`` change, so the others' highest count is found among the
    first few distinct counts."""
    distinct, per_count = levels
    changed = {v: counts[v] - m for v, m in minus.items() if m}
    lowered = Counter(counts[v] for v in changed)
    rest = next((c for c in distinct if per_count[c] > lowered[c]), 0)
    top = max([rest, *changed.values()])
    tied = (per_count[top] - lowered[top] if top == rest else 0) + sum(1 for c in changed.values() if c == top)
    return top, tied


# ------------------------------------------------------------------ letters (any choice task)
LETTER_GUESSERS = (r"always [A-D]",)


def letters(recs, rows, section, load_image=None) -> None:
    """The letter balance and "always A" … rows; chance from the number of options (2–4)."""
    counts = Counter(r["answer"] for r in recs)
    n_opt = max(len(r["options"] or []) for r in recs) or 4
    used = LETTERS[:n_opt]
    section["letters"] = {L: counts.get(L, 0) for L in used}
    section["letter_max_deviation"] = round(max(abs(counts.get(L, 0) / len(recs) - 1 / n_opt) for L in used), 4)
    for L in used:
        rows.set(f"always {L}", counts.get(L, 0), len(recs), 1 / n_opt, "prior")


# ------------------------------------------------------------------ move/roll answers
OPS_GUESSERS = ("majority answer", r"majority (move|roll) (axis|sign)")


def ops_majorities(feature_space):
    """The majority answer and the majority of each op feature (axis, sign); ``feature_space(program,
    feature)`` is how many values the feature can take (0: unknown, counted from the data)."""
    def audit(recs, rows, section, load_image=None) -> None:
        answers = HeldOut(recs, lambda r: [r["answer"]])
        space = max(len(answers.total), int(recs[0]["program"].get("answer_space", 1)))
        for i, r in enumerate(recs):
            rows.add("majority answer", answers.majority_credit(i, r["answer"], 1.0 / space), 1.0 / space,
                     "prior", fitted=answers.fitted)
        feats = defaultdict(set)
        for r in recs:
            for op in r["program"]["ops"]:
                feats[f"{op['op']} axis"].add(op["axis"])
                feats[f"{op['op']} sign"].add(_sign(op))
        for feat, seen in sorted(feats.items()):
            values = feature_space(recs[0]["program"], feat) or len(seen)
            if values < 2:
                continue
            held = HeldOut(recs, lambda r, feat=feat: _feature(r, feat))
            for i, r in enumerate(recs):
                for v in _feature(r, feat):
                    rows.add(f"majority {feat}", held.majority_credit(i, v, 1.0 / values), 1.0 / values, "prior",
                             fitted=held.fitted)
    return audit


def _sign(op: dict) -> str:
    return "+" if op["value"] > 0 else "-"


def _feature(rec: dict, feat: str) -> list:
    """The values of one op feature ("roll axis", "move sign" …) in a record's answer program."""
    verb, what = feat.split()
    return [op["axis"] if what == "axis" else _sign(op) for op in rec["program"]["ops"] if op["op"] == verb]


# ------------------------------------------------------------------ option texts (move options)
TEXT_GUESSERS = ("most central", "odd one out", "nearest the median", "most shared values", "least shared values",
                 "smallest move", "largest move")


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


def option_texts(recs, rows, section, load_image=None) -> None:
    for r in recs:
        correct = LETTERS.index(r["answer"])
        for name, picked in text_guessers(r["options"]).items():
            rows.add(name, _credit(picked, correct), 1 / len(r["options"]), "option text")


# ------------------------------------------------------------------ option images
IMAGE_GUESSERS = ("odd one out (pixels)", "most central (pixels)",
                  r"(nearest to|farthest from) the (reference after|target front|front)")
IMAGE_ROLES = ("reference after", "target front", "front")


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


def option_images(recs, rows, section, load_image=None) -> None:
    if load_image is None:
        section["note"] = "images not rendered: option-image guessers skipped"
        return
    for r in recs:
        roles = r["program"].get("image_roles", [])
        refs = {}
        for role in IMAGE_ROLES:
            if role in roles:
                img = load_image(r["images"][roles.index(role)])
                if img is not None:
                    refs[f"the {role}"] = img
        opts = [load_image(p) for p in r["options"]]
        if any(o is None for o in opts):
            continue
        correct = LETTERS.index(r["answer"])
        for name, picked in image_guessers(opts, refs).items():
            if name.startswith(("nearest to", "farthest from")):
                # compares options with the question's own images: may solve one factor of the 2×2
                # grid (T5's after-image offset IS the translation), so judged against 2 / options
                rows.add(name, _credit(picked, correct), min(1.0, 2 / len(opts)), "partial solver")
            else:
                rows.add(name, _credit(picked, correct), 1 / len(opts), "option images")
