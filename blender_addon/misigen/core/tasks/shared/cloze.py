"""What T1 translation, T2 rotation and T3 zooming share: start views + the front after one command
(cloze), their program, spec keys, checks, answer features, re-derivation, random baseline,
composite score and difficulty part. Each task's folder adds its own operation, rationale and
registry entry (``cloze_type``).

Each start view is framed on its own ("view all"); the after-image keeps the camera of the
start view it is compared with, so positions and sizes compare directly.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from ...quality import difficulty
from ...scene import geometry
from ...errors import InputError
from ...scene.geometry import view_ops
from ...op_grammar import Op, format_ops, parse_ops
from ...rationale.readings import nearest_view
from .. import baselines, guessers, prompts
from ..base import Planner
from ..common import (Planned, Rejected, atom_classes, balanced_order, in_frame, magnitude_bin, range_values, rnd,
                      view_change)
from ..composite import closeness
from ..program import Program
from ..registry import TaskType
from ..rederive import TOLERANCE
from ..schema import REQUIRED, VIEWS, Enum, Int, List, Num, OPERATION, asked_range, difficulty_block, rejection


@dataclass(frozen=True, kw_only=True)
class ClozeProgram(Program):
    kind: str = "cloze"
    ops: list = None                 # the one command, as ``Op.as_dict``
    centre: list = None
    start_views: list = None
    after_view: str = None
    value_range: list = None         # [min, max] of the command's values
    values: list = None              # every value the command could take
    value_step: float = None
    axes: list = None
    answer_space: int = None         # axes × values
    balance_class: dict = None
    balance_fallback: bool = None    # the class drawn had no acceptable command left


class ClozePlanner(Planner):
    def setup(self):
        d, ctx = self.d, self.ctx
        self.shown = ctx.shown()
        self.centre = ctx.centre()
        self.radii = ctx.radii(self.shown)
        self.classes = atom_classes(self.shown)
        self.labels = self.label_plan()
        op = d["operation"]
        self.values = range_values(asked_range(op["values"], d))
        self.candidates = [Op(op["verb"], ax, v) for ax in op["axes"] for v in self.values]
        self.start = [self.view_spec(v, labels=self.labels) for v in d["views"]]
        self.frame_after()
        keys = sorted({self.class_of(c) for c in self.candidates})
        self.order = balanced_order(keys, self.srng)
        self._pix: dict = {}

    def frame_after(self) -> None:
        """The after-image's camera: the start view of the same orientation's (a task may reframe)."""
        d = self.d
        self.camera = next((s.camera for v, s in zip(d["views"], self.start) if v == d["after_view"]),
                           self.view_spec(d["after_view"]).camera)

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

    def pick(self, cls, rng, why: Counter) -> Op:
        """An unused command of answer class ``cls`` (else of another class) that passes the checks."""
        pool = [c for c in self.candidates if self.class_of(c) == cls and c not in self.used]
        rest = [c for c in self.candidates if self.class_of(c) != cls and c not in self.used]
        pool = [pool[k] for k in rng.permutation(len(pool))] + [rest[k] for k in rng.permutation(len(rest))]
        for cand in pool[: self.tries()]:
            reason = self.check(cand)
            if reason is None:
                return cand
            why[reason.split(" (")[0]] += 1
        raise Rejected(f"no acceptable {self.d['operation']['verb']} within {self.tries()} tries")

    def make(self, index, rng, why: Counter) -> Planned:
        cls = self.order[index % len(self.order)]
        op = self.pick(cls, rng, why)
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
        program = ClozeProgram(ops=[op.as_dict()], centre=rnd(self.centre), start_views=list(d["views"]),
                               after_view=d["after_view"], value_range=[min(vals), max(vals)], values=list(vals),
                               value_step=float(asked_range(opd["values"], d)["step"]), axes=list(opd["axes"]),
                               answer_space=len(self.candidates), balance_class={k: v for k, v in self.class_of(op)},
                               balance_fallback=self.class_of(op) != cls)
        return Planned(question, self.start + [target], answer, program.as_dict())


# ------------------------------------------------------------------ spec
CLOZE = {
    "views": (List(VIEWS), REQUIRED),
    "after_view": (VIEWS, "front"),
    "operation": (OPERATION, REQUIRED),
    "balance": (List(Enum(("axis", "sign", "magnitude")), min_len=0), ["axis", "sign"]),
    "magnitude_bins": (Int(1, 100), 1),
    "rejection": (rejection(min_view_change=(Num(0, 1), REQUIRED), min_in_frame=(Num(0, 1), REQUIRED),
                            min_depth=(Num(0), 1.0)), REQUIRED),
    # values: fine asks the operation's values at half its step (neighbouring answers' images differ less)
    "difficulty": difficulty_block("values"),
}
FIELDS = frozenset({"axes", "value_range", "framing", "camera_distance"})


def spec_check(name: str, verb: str, axes: set):
    """A task's spec check: its operation is ``verb`` along some of ``axes``."""
    def check(d: dict, path) -> None:
        op = d["operation"]
        if op["verb"] != verb:
            raise InputError(path, f"operation.verb: {name} needs {verb!r}, got {op['verb']!r}")
        bad = set(op["axes"]) - axes
        if bad:
            raise InputError(path, f"operation.axes: {sorted(bad)} not allowed for {name} (allowed: {sorted(axes)})")
        if "magnitude" in d["balance"] and d["magnitude_bins"] > len({abs(v) for v in range_values(op["values"])}):
            raise InputError(path, "magnitude_bins: more bins than distinct magnitudes")
    return check


def distinct(d: dict) -> int:
    return len(d["operation"]["axes"]) * len(range_values(asked_range(d["operation"]["values"], d)))


def ops_features(program: dict) -> list:
    """Axis, sign and value of each command of the answer (also docking's)."""
    out = []
    for op in program.get("ops", []):
        out += [(f"{op['op']}_axis", op["axis"]), (f"{op['op']}_sign", "+" if op["value"] > 0 else "-"),
                (f"{op['op']}_value", str(op["value"]))]
    return out


def feature_space(program: dict, feat: str) -> int:
    """How many values an op feature can take in one task's answers (for the audit's chance)."""
    p = ClozeProgram.from_dict(program)
    if feat.endswith("axis"):
        return len(p.axes)
    lo, hi = p.value_range
    return 2 if lo < 0 < hi else 1


# ------------------------------------------------------------------ checks of the answers
def composite(strict: str, truth: str, program: dict, exact: int) -> float:
    """0 unless one command with the right verb and axis; then max(0, 1 − |d̂ − d| / span), span = the
    width of the program's ``value_range`` (a record without its range: all or nothing)."""
    (true,) = parse_ops(truth)
    pred = parse_ops(strict)
    p = ClozeProgram.from_dict(program)
    if p.value_range is None:
        return float(exact)
    if len(pred) != 1 or pred[0].verb != true.verb or pred[0].axis != true.axis:
        return 0.0
    lo, hi = p.value_range
    return closeness(pred[0].value, true.value, float(hi) - float(lo))


def after_image(rec: dict, sidecar) -> list[str]:
    """One command: the after-image's atoms sit where the answer's transform puts the first image's."""
    start, after = sidecar(rec["images"][0]), sidecar(rec["images"][-1])
    if start is None or after is None:
        return ["sidecar unreadable"]
    if start.keys != after.keys:
        return ["start and after images show different atoms"]
    answer = rec["answer"]
    centre = after.centre if after.centre is not None else start.world.mean(axis=0)
    m, _ = geometry.compose(parse_ops(answer), centre)
    predicted = geometry.apply(after.w2c, geometry.apply(m, start.world))
    err = float(np.abs(predicted - after.cam).max()) if len(predicted) else 0.0
    if err > TOLERANCE:
        return [f"the after-image's atoms are up to {err:.2f} Å from where {answer!r} puts them"]
    return []


def random_space(records):
    """One command: axis × value on the tasks' grid (``value_range``, ``value_step`` or the gcd)."""
    ops = [parse_ops(r["answer"])[0] for r in records]
    verb = Counter(o.verb for o in ops).most_common(1)[0][0]
    progs = [ClozeProgram.from_dict(r.get("program")) for r in records]
    axes = sorted({a for p in progs for a in p.axes or []} or {o.axis for o in ops})
    ranges = [p.value_range for p in progs if p.value_range is not None]
    lo = min([r[0] for r in ranges] or [min(o.value for o in ops)])
    hi = max([r[1] for r in ranges] or [max(o.value for o in ops)])
    steps = [p.value_step for p in progs if p.value_step]
    values = baselines.grid(lo, hi, baselines.grid_step([o.value for o in ops] + [lo, hi], steps[0] if steps else None))
    return lambda rec, rng, atoms: format_ops([Op(verb, rng.choice(axes), rng.choice(values))])


def difficulty_part(rec: dict, sidecars: dict) -> dict:
    p = ClozeProgram.from_dict(rec["program"])
    op = p.ops[0]
    step = 1.0 if p.value_step is None else p.value_step
    return {"magnitude": difficulty.rounded(abs(float(op["value"])), 2),
            "magnitude_share": difficulty.rounded(abs(op["value"]) / max(abs(v) for v in p.values), 3)
            if p.values else None,
            "option_gap_px": difficulty.rounded(difficulty.step_gap(difficulty.images(rec, sidecars)[-1], op,
                                                                    float(step)), 2)}


# ------------------------------------------------------------------ rationale
def one_move(rec, V) -> tuple:
    """(op, reference view number, after view number, their sidecar views, value step) of a
    one-move cloze (T1, T3): the after image is compared with the start view of the same camera."""
    p = ClozeProgram.from_dict(rec["program"])
    ref = nearest_view(p.start_views, p.after_view) or 1
    after = len(p.start_views) + 1
    return p.ops[0], ref, after, V[ref], V[after], float(1.0 if p.value_step is None else p.value_step)


# ------------------------------------------------------------------ registry entry
def cloze_type(name: str, description: str, verb: str, axes: set, *, rationale, level_features: tuple,
               level_table=None, planner=ClozePlanner,
               composite_score=composite) -> TaskType:
    """The registry entry of a one-command cloze task (MiSI-Bench's average counts each)."""
    return TaskType(name, planner, CLOZE, FIELDS, "ops", check=spec_check(name, verb, axes), distinct_answers=distinct,
                    features=ops_features, description=description, composite=composite_score, paper_average=True,
                    rederive=after_image, audit=guessers.ops_majorities(feature_space), guessers=guessers.OPS_GUESSERS,
                    random_answer=random_space, rationale=rationale, difficulty=difficulty_part,
                    level_features=level_features, level_table=level_table,
                    program=ClozeProgram)


__all__ = ["ClozeProgram", "ClozePlanner", "cloze_type", "one_move", "ops_features"]
