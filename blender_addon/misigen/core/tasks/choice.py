"""T5 translation + rotation and T6 rotation + rotation: four option images, one correct.

Reference A = the complex at its start orientation: its start views and its front view after
f2(f1(A)). Target B = the same complex in another start orientation (two rolls drawn once per
complex): its views, then four option images of B after candidate programs. Exactly one
option is f2(f1(B)); distractors follow one scheme per sample:

- ``magnitude_both``: both steps keep axis and sign, change magnitude;
- ``flip_first``: the first step's sign flips, the second changes magnitude;
- ``axis_first``: the first step changes axis, the second changes magnitude.
"""
from __future__ import annotations

from collections import Counter

from ..commands import Op, format_ops, parse_ops
from ..geometry import view_ops
from . import prompts
from .base import Planner
from .common import LETTERS, Rejected, atom_classes, balanced_order, range_values, rmsd, rnd, spec_coords, view_distance


def _step_ops(step: dict) -> list[Op]:
    return [Op(step["verb"], ax, v) for ax in step["axes"] for v in range_values(step["values"])]


def candidate_programs(d: dict) -> list[tuple]:
    s1, s2 = d["steps"]
    return [(a, b) for a in _step_ops(s1) for b in _step_ops(s2)
            if not (d["distinct_axes"] and a.axis == b.axis)]


def _other_magnitudes(op: Op, step: dict) -> list[Op]:
    return [Op(op.verb, op.axis, v) for v in range_values(step["values"])
            if (v > 0) == (op.value > 0) and abs(v) != abs(op.value)]


def scheme_distractors(scheme: str, prog: tuple, d: dict) -> list[tuple]:
    """Every distractor program the scheme allows for the true program ``prog`` (deterministic order)."""
    (o1, o2), (s1, s2) = prog, d["steps"]
    vals1 = range_values(s1["values"])
    if scheme == "magnitude_both":
        firsts = _other_magnitudes(o1, s1)
    elif scheme == "flip_first":
        firsts = [Op(o1.verb, o1.axis, -o1.value)] if -o1.value in vals1 else []
    elif scheme == "axis_first":
        firsts = [Op(o1.verb, ax, o1.value) for ax in s1["axes"] if ax != o1.axis]
    else:
        raise ValueError(scheme)
    out = [(a, b) for a in firsts for b in _other_magnitudes(o2, s2)
           if not (d["distinct_axes"] and a.axis == b.axis)]
    return [p for p in out if p != prog]


class ChoicePlanner(Planner):
    def setup(self):
        d, ctx = self.d, self.ctx
        self.shown = ctx.shown()
        self.centre = ctx.centre()
        self.camera = ctx.camera(self.task.camera)
        self.classes = atom_classes(self.shown)
        ts = d["target_start"]
        vals = range_values(ts["values"])
        self.b_ops = [Op("roll", ax, vals[int(self.srng.integers(len(vals)))]) for ax in ts["axes"]]
        self.start = [self.spec(self.camera, {"all": view_ops(v)}, centre=self.centre) for v in d["views"]]
        self.target = [self.spec(self.camera, {"all": self.b_ops + view_ops(v)}, centre=self.centre)
                       for v in d["target_views"]]
        self.programs = candidate_programs(d)
        self.letters = balanced_order(list(LETTERS[: d["options"]]), self.srng)
        self.schemes = balanced_order(list(d["distractor_schemes"]), self.srng)
        self._posed: dict = {}

    def option_spec(self, prog, start_ops):
        return self.spec(self.camera, {"all": list(start_ops) + list(prog) + view_ops(self.d["after_view"])},
                         centre=self.centre)

    def posed(self, prog):
        if prog not in self._posed:
            xyz = spec_coords(self.shown, self.option_spec(prog, self.b_ops))
            self._posed[prog] = (xyz, self.camera.project(xyz)[0])
        return self._posed[prog]

    def differ(self, p, q) -> str | None:
        rej = self.d["rejection"]
        (xa, pa), (xb, pb) = self.posed(p), self.posed(q)
        if rmsd(xa, xb) < rej["min_option_rmsd"]:
            return "options too close in 3D"
        if view_distance(pa, pb, self.classes) < rej["min_option_view_px"]:
            return "options look alike"
        return None

    def make(self, index, rng, why: Counter):
        d = self.d
        letter = self.letters[index % len(self.letters)]
        scheme = self.schemes[index % len(self.schemes)]
        need = d["options"] - 1
        pool = [p for p in self.programs if p not in self.used]
        chosen = None
        for k in rng.permutation(len(pool))[: self.tries()]:
            prog = pool[int(k)]
            cands = scheme_distractors(scheme, prog, d)
            picked = []
            for j in rng.permutation(len(cands)):
                c = cands[int(j)]
                reasons = [self.differ(c, o) for o in [prog] + picked]
                bad = next((r for r in reasons if r), None)
                if bad is None:
                    picked.append(c)
                    if len(picked) == need:
                        break
                else:
                    why[bad] += 1
            if len(picked) == need:
                chosen = (prog, picked)
                break
            why["too few distinct distractors"] += 1
        if chosen is None:
            raise Rejected(f"no program with {need} visibly different distractors ({scheme}) "
                           f"within {self.tries()} tries")
        prog, picked = chosen
        self.used.add(prog)
        order = list(LETTERS[: d["options"]])
        correct = order.index(letter)
        progs = list(picked)
        progs.insert(correct, prog)
        options = [self.option_spec(p, self.b_ops) for p in progs]
        # replay: the program's formatted ops, parsed back, give exactly the correct option
        replay = self.option_spec(tuple(parse_ops(format_ops(prog))), self.b_ops)
        hits = [k for k, o in enumerate(options) if o.description() == replay.description()]
        assert hits == [correct], "replay must match exactly one option"
        ref_after = self.spec(self.camera, {"all": list(prog) + view_ops(d["after_view"])}, centre=self.centre)
        images = self.start + [ref_after] + self.target
        texts = [f"reference, start, seen {prompts.view_text(v)}" for v in d["views"]]
        texts.append(f"reference seen {prompts.view_text(d['after_view'])} after the transformation")
        texts += [f"target, start, seen {prompts.view_text(v)}" for v in d["target_views"]]
        n_img = len(texts)
        option_images = (f"The {d['options']} options are further images, {n_img + 1} to {n_img + d['options']}, "
                         f"in order {', '.join(order)}, each showing the target seen "
                         f"{prompts.view_text(d['after_view'])}.")
        question = self.question(texts, n_options=str(d["options"]), option_images=option_images)
        program = {"kind": "choice", "ops": [o.as_dict() for o in prog], "answer_text": format_ops(prog),
                   "centre": rnd(self.centre), "target_start_ops": [o.as_dict() for o in self.b_ops],
                   "after_view": d["after_view"], "scheme": scheme, "correct": letter,
                   "options": [{"letter": L, "ops": [o.as_dict() for o in p], "text": format_ops(p),
                                "correct": L == letter} for L, p in zip(order, progs)],
                   "min_option_rmsd": round(min(rmsd(self.posed(a)[0], self.posed(b)[0])
                                                for i, a in enumerate(progs) for b in progs[i + 1:]), 3)}
        return {"question": question, "images": images, "options": options, "answer": letter, "program": program}
