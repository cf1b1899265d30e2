"""T1 translation, T2 rotation, T3 zooming: start views + the front after one command (cloze)."""
from __future__ import annotations

from collections import Counter

import numpy as np

from ..commands import Op, format_ops, parse_ops
from ..geometry import view_ops
from . import prompts
from .base import Planner
from .common import (COMPLEX, Rejected, atom_classes, balanced_order, in_frame, magnitude_bin, range_values,
                     rnd, spec_coords, view_distance)


class ClozePlanner(Planner):
    def setup(self):
        d, ctx = self.d, self.ctx
        if self.task.name == "zooming" and self.style["camera"]["projection"] != "perspective":
            raise Rejected("zooming needs a perspective camera (move z does not change an orthographic image)")
        self.shown = ctx.shown()
        self.centre = ctx.centre()
        self.camera = ctx.camera(self.task.camera)
        self.radii = ctx.radii(self.shown)
        self.classes = atom_classes(self.shown)
        op = d["operation"]
        self.values = range_values(op["values"])
        self.candidates = [Op(op["verb"], ax, v) for ax in op["axes"] for v in self.values]
        self.start = [self.spec(self.camera, {"all": view_ops(v)}, centre=self.centre) for v in d["views"]]
        keys = sorted({self.class_of(c) for c in self.candidates})
        self.order = balanced_order(keys, self.srng)
        self._pix: dict = {}

    def class_of(self, op: Op) -> tuple:
        out = []
        for feat in self.d["balance"]:
            if feat == "axis":
                out.append(("axis", op.axis))
            elif feat == "sign":
                out.append(("sign", "+" if op.value > 0 else "-"))
            elif feat == "magnitude":
                out.append(("magnitude_bin", magnitude_bin(op.value, self.values, self.d["magnitude_bins"])))
        return tuple(out)

    def after(self, op: Op):
        return self.spec(self.camera, {"all": [op] + view_ops(self.d["after_view"])}, centre=self.centre)

    def pixels(self, op: Op):
        if op not in self._pix:
            xyz = spec_coords(self.shown, self.after(op))
            self._pix[op] = (xyz, self.camera.project(xyz))
        return self._pix[op]

    def check(self, op: Op) -> str | None:
        rej = self.d["rejection"]
        xyz, (pix, depth) = self.pixels(op)
        if (depth - self.radii).min() < rej["min_depth"]:
            return "atoms behind or too close to the camera"
        frac = in_frame(self.camera, xyz, self.radii).mean()
        if frac < rej["min_in_frame"]:
            return f"only {frac:.0%} of the atoms in frame"
        if rej["min_view_change_px"] > 0:
            for other in self.candidates:
                if other == op:
                    continue
                dist = view_distance(pix, self.pixels(other)[1][0], self.classes)
                if dist < rej["min_view_change_px"]:
                    return f"looks like {format_ops([other])} ({dist:.2f} px)"
        return None

    def make(self, index, rng, why: Counter):
        cls = self.order[index % len(self.order)]
        pool = [c for c in self.candidates if self.class_of(c) == cls and c not in self.used]
        rest = [c for c in self.candidates if self.class_of(c) != cls and c not in self.used]
        pool = [pool[k] for k in rng.permutation(len(pool))] + [rest[k] for k in rng.permutation(len(rest))]
        op = None
        for cand in pool[: self.tries()]:
            reason = self.check(cand)
            if reason is None:
                op = cand
                break
            why[reason.split(" (")[0]] += 1
        if op is None:
            raise Rejected(f"no acceptable {self.d['operation']['verb']} within {self.tries()} tries")
        self.used.add(op)
        answer = format_ops([op])
        target = self.after(op)
        replay = self.after(parse_ops(answer)[0])
        assert replay.description() == target.description(), "replay of the answer differs from the target"
        images = self.start + [target]
        texts = [f"the complex seen {prompts.view_text(v)}" for v in self.d["views"]]
        texts.append(f"the complex seen {prompts.view_text(self.d['after_view'])} after one unknown command "
                     f"was applied to the start orientation")
        opd = self.d["operation"]
        unit = "degrees" if opd["verb"] == "roll" else "Å"
        question = self.question(texts, axes=" or ".join(opd["axes"]), value_range=prompts.values_text(self.values, unit))
        vals = self.values
        program = {"kind": "cloze", "ops": [op.as_dict()], "centre": rnd(self.centre),
                   "start_views": list(self.d["views"]), "after_view": self.d["after_view"],
                   "value_range": [min(vals), max(vals)], "axes": list(opd["axes"]),
                   "balance_class": {k: v for k, v in self.class_of(op)},
                   "balance_fallback": self.class_of(op) != cls}
        return {"question": question, "images": images, "options": None, "answer": answer, "program": program}
