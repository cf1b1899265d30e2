"""T1 translation, T2 rotation, T3 zooming: start views + the front after one command (cloze).

Each start view is framed on its own ("view all"); the after-image keeps the camera of the
start view it is compared with, so positions and sizes compare directly. Zooming's front
camera stands back far enough for the largest ``move z`` (the suite's ``zoom_clearance``).
"""
from __future__ import annotations

from collections import Counter

from ..op_grammar import Op, format_ops, parse_ops
from ..geometry import view_ops
from . import prompts
from .base import Planner, Unavailable
from .common import (Planned, Rejected, atom_classes, balanced_order, in_frame, magnitude_bin,
                     range_values, rnd, view_change, zoom_camera)
from . import baselines, composite, guessers, rederive
from .. import difficulty
from ..rationale import builders as rationale
from .registry import TaskType
from .schema import REQUIRED, AXIS, VIEWS, Enum, Int, List, Num, OPERATION, rejection
from ..errors import InputError


class ClozePlanner(Planner):
    def setup(self):
        d, ctx = self.d, self.ctx
        if self.task.type == "zooming" and self.style["camera"]["projection"] != "perspective":
            raise Unavailable("zooming needs a perspective camera (move z does not change an orthographic image)")
        self.shown = ctx.shown()
        self.centre = ctx.centre()
        self.radii = ctx.radii(self.shown)
        self.classes = atom_classes(self.shown)
        self.labels = self.label_plan()
        op = d["operation"]
        self.values = range_values(op["values"])
        self.candidates = [Op(op["verb"], ax, v) for ax in op["axes"] for v in self.values]
        self.start = [self.view_spec(v, labels=self.labels) for v in d["views"]]
        after_view = d["after_view"]
        if self.task.type == "zooming":
            xyz = ctx.posed({"all": view_ops(after_view)})
            self.camera = zoom_camera(xyz, self.radii, self.style, max(self.values),
                                      float(self.task.suite.get("zoom_clearance", 4.0)))
            self.start = [self.spec(self.camera, {"all": view_ops(v)}, centre=self.centre, labels=self.labels)
                          if v == after_view else s for v, s in zip(d["views"], self.start)]
        else:
            self.camera = next((s.camera for v, s in zip(d["views"], self.start) if v == after_view),
                               self.view_spec(after_view).camera)
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
        return self.spec(self.camera, {"all": [op] + view_ops(self.d["after_view"])}, centre=self.centre,
                         labels=self.labels)

    def pixels(self, op: Op):
        if op not in self._pix:
            xyz = self.ctx.posed({"all": [op] + view_ops(self.d["after_view"])})
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
        if self.repeats_start(self.start, [self.after(op)]):
            return "after-image repeats a start view"
        if rej["min_view_change"] > 0:
            for other in self.candidates:
                if other == op:
                    continue
                dist = view_change(self.camera, pix, self.pixels(other)[1][0], self.classes)
                if dist < rej["min_view_change"]:
                    return f"looks like {format_ops([other])} ({dist:.4f} of the width)"
        return None

    def make(self, index, rng, why: Counter) -> Planned:
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
        d = self.d
        texts = [f"the complex seen {prompts.view_text(v)}" for v in d["views"]]
        texts.append(f"the complex seen {prompts.view_text(d['after_view'])} after one unknown command "
                     f"was applied to the start orientation")
        opd = d["operation"]
        unit = "degrees" if opd["verb"] == "roll" else "Å"
        ref = d["views"].index(d["after_view"]) + 1 if d["after_view"] in d["views"] else 1
        framing = prompts.framing_text("cloze", reference=ref, after=len(texts))
        depth = float(self.camera.position[2]) - float(self.centre[2])     # the camera looks down -Z
        question = self.question(texts, labels=self.labels, axes=" or ".join(opd["axes"]), framing=framing,
                                 value_range=prompts.values_text(self.values, unit), camera_distance=f"{depth:.1f}")
        vals = self.values
        program = {"kind": "cloze", "ops": [op.as_dict()], "centre": rnd(self.centre),
                   "start_views": list(d["views"]), "after_view": d["after_view"],
                   "value_range": [min(vals), max(vals)], "values": list(vals),
                   "value_step": float(opd["values"]["step"]), "axes": list(opd["axes"]),
                   "answer_space": len(self.candidates),
                   "balance_class": {k: v for k, v in self.class_of(op)},
                   "balance_fallback": self.class_of(op) != cls}
        return Planned(question, self.start + [target], answer, program)


# ------------------------------------------------------------------ registration
CLOZE = {
    "views": (List(VIEWS), REQUIRED),
    "after_view": (VIEWS, "front"),
    "operation": (OPERATION, REQUIRED),
    "balance": (List(Enum(("axis", "sign", "magnitude")), min_len=0), ["axis", "sign"]),
    "magnitude_bins": (Int(1, 100), 1),
    "rejection": (rejection(min_view_change=(Num(0, 1), REQUIRED), min_in_frame=(Num(0, 1), REQUIRED),
                            min_depth=(Num(0), 1.0)), REQUIRED),
}
FIELDS = frozenset({"axes", "value_range", "framing", "camera_distance"})
WANT = {"translation": ("move", {"x", "y"}), "rotation": ("roll", {"x", "y", "z"}), "zooming": ("move", {"z"})}


def _check(name):
    def check(d: dict, path) -> None:
        op = d["operation"]
        verb, axes = WANT[name]
        if op["verb"] != verb:
            raise InputError(path, f"operation.verb: {name} needs {verb!r}, got {op['verb']!r}")
        bad = set(op["axes"]) - axes
        if bad:
            raise InputError(path, f"operation.axes: {sorted(bad)} not allowed for {name} (allowed: {sorted(axes)})")
        if "magnitude" in d["balance"] and d["magnitude_bins"] > len({abs(v) for v in range_values(op["values"])}):
            raise InputError(path, "magnitude_bins: more bins than distinct magnitudes")
    return check


def _distinct(d: dict) -> int:
    return len(d["operation"]["axes"]) * len(range_values(d["operation"]["values"]))


def _features(program: dict) -> list:
    out = []
    for op in program.get("ops", []):
        out += [(f"{op['op']}_axis", op["axis"]), (f"{op['op']}_sign", "+" if op["value"] > 0 else "-"),
                (f"{op['op']}_value", str(op["value"]))]
    return out


def _feature_space(program: dict, feat: str) -> int:
    """How many values an op feature can take in one task's answers (for the audit's chance)."""
    if feat.endswith("axis"):
        return len(program["axes"])
    lo, hi = program["value_range"]
    return 2 if lo < 0 < hi else 1


def _cloze_type(name, desc, rule):
    return TaskType(name, ClozePlanner, CLOZE, FIELDS, "ops", check=_check(name), distinct_answers=_distinct,
                    features=_features, description=desc, composite=rule, rederive=rederive.after_image,
                    audit=guessers.ops_majorities(_feature_space), guessers=guessers.OPS_GUESSERS,
                    random_answer=baselines.cloze_space, rationale=RATIONALES[name],
                    difficulty=difficulty.cloze)


RATIONALES = {"translation": rationale.move_xy, "rotation": rationale.roll, "zooming": rationale.move_z}

# Zooming's composite is its exact match (MiSI-Bench scores it by accuracy).
TASK_TYPES = (
    _cloze_type("translation", "Infer a translation of the complex in the screen plane.", composite.cloze),
    _cloze_type("rotation", "Infer a rotation of the complex about a screen axis through its centre.", composite.cloze),
    _cloze_type("zooming", "Infer how far the complex moved toward the viewer.", None),
)

__all__ = ["ClozePlanner", "AXIS", "TASK_TYPES"]
