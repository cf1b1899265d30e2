"""What T5 translation + rotation and T6 rotation + rotation share: four option images, one correct.

The reference complex A is shown in its start views and (image 4) seen from the front after
the program f2(f1(A)). The options show a target after candidate programs:

- ``target: other_complex`` (T5, as MiSI-Bench): the target is ANOTHER complex B of the run
  (``pairing.py``), shown in its own start views; options show B after each candidate;
- ``target: after_image`` (T6, as MiSI-Bench): the target is image 4 itself; options show it
  after each candidate program applied once more.

Options come from ``distractors.py``: the shortcut-free 2×2 product (default) or MiSI-Bench's
three schemes (``design: paper``). The rationale is ``option_grid_rationale.py``; each task's
folder names its two steps and builds its registry entry (``choice_type``).
"""
from __future__ import annotations

import itertools
from collections import Counter

import numpy as np

from ...quality import difficulty
from ...errors import InputError
from ...scene.geometry import view_ops
from ...quality.necessity import option_steps
from ...op_grammar import format_ops, parse_ops
from .. import guessers, prompts
from ..base import Planner, Unavailable
from ..common import (LETTERS, Planned, Rejected, atom_classes, balanced_order, context_for, in_frame, rmsd, rnd,
                      view_change)
from ..distractors import CHANGES, SCHEMES, candidate_programs, product_grids, scheme_distractors
from ..pairing import partner_order
from ..registry import TaskType
from ..schema import REQUIRED, VIEWS, Bool, Enum, Int, List, Map, Num, OPERATION, difficulty_block, knob, rejection
from .option_grid_program import ChoiceProgram
from .option_grid_rationale import choice


class ChoicePlanner(Planner):
    def setup(self):
        d, ctx = self.d, self.ctx
        self.labels = self.label_plan()
        self.start = [self.view_spec(v, labels=self.labels) for v in d["views"]]
        self.camera = self._camera_of(self.start, d["views"])
        self.centre = ctx.centre()
        if d["target"] == "other_complex":
            self.tctx = context_for(self.pick_partner(), self.style)
            self.tlabels = self.label_plan(self.tctx)
            self.target = [self.view_spec(v, ctx=self.tctx, labels=self.tlabels) for v in d["target_views"]]
            self.tcamera = self._camera_of(self.target, d["target_views"])
        else:
            self.tctx, self.tlabels, self.target, self.tcamera = ctx, self.labels, [], self.camera
        self.tshown = self.tctx.shown()
        self.tclasses = atom_classes(self.tshown)
        self.tradii = self.tctx.radii(self.tshown)
        self.programs = candidate_programs(d)
        self.letters = balanced_order(list(LETTERS[: d["options"]]), self.srng)
        self.schemes = balanced_order(list(d["distractors"]["schemes"]), self.srng)
        self._posed: dict = {}

    def _camera_of(self, specs, views):
        after = self.d["after_view"]
        if after in views:
            return specs[views.index(after)].camera
        raise InputError(self.task.path, f"after_view: {after!r} must be one of the start views")

    def pick_partner(self):
        """Another complex of the same split, chosen from the seed and the run's structure list."""
        if self.partners is None:
            raise Unavailable("needs another complex of the same split to pair with; none was given")
        cands = self.partners.candidates(self.split, self.sid)
        if not cands:
            raise Unavailable(f"needs another complex in the {self.split} split of this run to pair with; "
                              f"the run has none")
        tried = []
        for pid in partner_order(self.seed, self.sid, cands)[: int(self.d["partner_tries"])]:
            try:
                return self.partners.load(pid)
            except InputError as exc:
                tried.append(f"{pid} ({exc.problem})")
        raise Unavailable("no partner complex could be loaded: " + "; ".join(tried))

    # ------------------------------------------------------------------ poses
    def base_ops(self, prog) -> list:
        """The state the candidate programs act on: B's start, or image 4's state (A after prog)."""
        if self.d["target"] == "other_complex":
            return []
        return list(prog) + view_ops(self.d["after_view"])

    def option_ops(self, base, cand) -> list:
        ops = list(base) + list(cand)
        return ops + (view_ops(self.d["after_view"]) if self.d["target"] == "other_complex" else [])

    def option_spec(self, base, cand):
        return self.spec(self.tcamera, {"all": self.option_ops(base, cand)}, centre=self.tctx.centre(),
                         labels=self.tlabels, structure_id=self.tctx.structure.id)

    def posed(self, base, cand):
        key = (tuple(base), tuple(cand))
        if key not in self._posed:
            xyz = self.tctx.posed({"all": self.option_ops(base, cand)})
            self._posed[key] = (xyz, self.tcamera.project(xyz)[0])
        return self._posed[key]

    def reference_after(self, prog):
        return self.spec(self.camera, {"all": list(prog) + view_ops(self.d["after_view"])}, centre=self.centre,
                         labels=self.labels)

    def differ(self, base, p, q) -> str | None:
        rej = self.d["rejection"]
        (xa, pa), (xb, pb) = self.posed(base, p), self.posed(base, q)
        if rmsd(xa, xb) < rej["min_option_rmsd"]:
            return "options too close in 3D"
        if view_change(self.tcamera, pa, pb, self.tclasses) < rej["min_option_view"]:
            return "options look alike"
        return None

    def option_problem(self, base, cand, start_like) -> str | None:
        xyz, _ = self.posed(base, cand)
        if in_frame(self.tcamera, xyz, self.tradii).mean() < self.d["rejection"]["min_in_frame"]:
            return "option image cut off by the frame"
        if self.repeats_start(start_like, [self.option_spec(base, cand)]):
            return "option repeats another image of the question"
        return None

    def truth_problem(self, prog) -> str | None:
        ref = self.reference_after(prog)
        xyz = self.ctx.posed({"all": list(prog) + view_ops(self.d["after_view"])})
        if in_frame(self.camera, xyz, self.ctx.radii(self.ctx.shown())).mean() < self.d["rejection"]["min_in_frame"]:
            return "reference after-image cut off by the frame"
        if self.repeats_start(self.start, [ref]):
            return "reference after-image repeats a start view"
        return None

    # ------------------------------------------------------------------ options
    def grid_for(self, prog, base, rng, why: Counter, start_like, scheme: str) -> tuple | None:
        """(four option programs, the true one first, that pass every check; the change each
        product factor made, or None for the paper's schemes), or None."""
        dd = self.d["distractors"]
        need = self.d["options"]
        if dd["design"] == "product":
            near = knob(self.d, "decoys") == "near"
            for grid, kinds in itertools.islice(product_grids(prog, dd["product"], self.d, rng, near), self.tries()):
                bad = next((r for c in grid if (r := self.option_problem(base, c, start_like))), None) or \
                    next((r for i, a in enumerate(grid) for b in grid[i + 1:] if (r := self.differ(base, a, b))), None)
                if bad is None:
                    return grid, kinds
                why[bad] += 1
            return None
        cands = scheme_distractors(scheme, prog, self.d)
        picked = [prog]
        for j in rng.permutation(len(cands)):
            c = cands[int(j)]
            bad = self.option_problem(base, c, start_like) or next(
                (r for o in picked if (r := self.differ(base, c, o))), None)
            if bad is None:
                picked.append(c)
                if len(picked) == need:
                    return picked, None
            else:
                why[bad] += 1
        return None

    def make(self, index, rng, why: Counter) -> Planned:
        d = self.d
        letter = self.letters[index % len(self.letters)]
        scheme = self.schemes[index % len(self.schemes)]
        pool = [p for p in self.programs if p not in self.used]
        chosen = None
        for k in rng.permutation(len(pool))[: self.tries()]:
            prog = pool[int(k)]
            bad = self.truth_problem(prog)
            if bad:
                why[bad] += 1
                continue
            base = self.base_ops(prog)
            start_like = self.target + (self.start + [self.reference_after(prog)]
                                        if d["target"] == "after_image" else [])
            found = self.grid_for(prog, base, rng, why, start_like, scheme)
            if found is not None:
                chosen = (prog, base, *found)
                break
            why["no option set passes the checks"] += 1
        if chosen is None:
            raise Rejected(f"no program with {d['options']} visibly different options within {self.tries()} tries")
        prog, base, grid, kinds = chosen
        self.used.add(prog)
        order = list(LETTERS[: d["options"]])
        correct = order.index(letter)
        others = [grid[int(k)] for k in 1 + rng.permutation(len(grid) - 1)]
        progs = others[:correct] + [prog] + others[correct:]
        options = [self.option_spec(base, p) for p in progs]
        # replay: the answer's formatted ops, parsed back, give exactly the correct option image
        replay = self.option_spec(base, tuple(parse_ops(format_ops(prog))))
        hits = [k for k, o in enumerate(options) if o.description() == replay.description()]
        assert hits == [correct], "replay must match exactly one option"
        ref_after = self.reference_after(prog)
        images = self.start + [ref_after] + self.target
        question = self.question_text(images, order)
        roles = list(d["views"]) + ["reference after"] + [f"target {v}" for v in self.d["target_views"]]
        product = d["distractors"]["design"] == "product"
        other = d["target"] == "other_complex"
        program = ChoiceProgram(
            ops=[o.as_dict() for o in prog], answer_text=format_ops(prog), image_roles=roles, centre=rnd(self.centre),
            target=d["target"], after_view=d["after_view"], design=d["distractors"]["design"], correct=letter,
            options=[{"letter": L, "ops": [o.as_dict() for o in p], "text": format_ops(p), "correct": L == letter}
                     for L, p in zip(order, progs)],
            min_option_rmsd=round(min(rmsd(self.posed(base, a)[0], self.posed(base, b)[0])
                                      for i, a in enumerate(progs) for b in progs[i + 1:]), 3),
            grid=[format_ops(g) for g in grid] if product else None,
            # the change each factor made in THIS question (drawn among the spec's kinds)
            changes=[{"step": f["step"], "change": k} for f, k in zip(d["distractors"]["product"], kinds)]
            if product else None,
            scheme=None if product else scheme,
            target_structure=self.tctx.structure.id if other else None,
            target_centre=rnd(self.tctx.centre()) if other else None)
        return Planned(question, images, letter, program.as_dict(), options)

    def question_text(self, images, order) -> str:
        d = self.d
        view = prompts.view_text(d["after_view"])
        if d["target"] == "other_complex":
            texts = [f"reference complex {self.sid}, start, seen {prompts.view_text(v)}" for v in d["views"]]
            texts.append(f"reference complex {self.sid} seen {view} after the transformation")
            tid = self.tctx.structure.id
            texts += [f"target complex {tid}, start, seen {prompts.view_text(v)}" for v in d["target_views"]]
            target = (f"The target is another complex, {tid} (ligand {self.ligand_name(self.tctx)}), "
                      f"in its own start orientation.")
            what = f"the target complex {tid} seen {view}"
        else:
            texts = [f"the complex, start, seen {prompts.view_text(v)}" for v in d["views"]]
            texts.append(f"the complex seen {view} after the transformation")
            target = f"The target is the complex exactly as it is in image {len(texts)}."
            what = f"the complex of image {len(texts)} after the same commands were applied to it once more"
        n = len(texts)
        option_images = (f"The {d['options']} options are further images, {n + 1} to {n + d['options']}, "
                         f"in order {', '.join(order)}, each showing {what}.")
        framing = prompts.framing_text("choice_" + d["target"], reference=d["views"].index(d["after_view"]) + 1,
                                       after=len(d["views"]) + 1, n_images=n)
        extra = ""
        if d["target"] == "other_complex":       # the target is labelled by its own chains
            t = prompts.labels_text(self.tlabels, self.tshown).strip()
            if t:
                extra = (f" These labels are the reference complex's; in the images of the target complex "
                         f"{self.tctx.structure.id}: {t[0].lower()}{t[1:]}")
        return self.question(texts, labels=self.labels, n_options=str(d["options"]), option_images=option_images,
                             target=target, framing=framing, labels_extra=extra)


# ------------------------------------------------------------------ spec
# one factor of the 2×2 product: the step it changes and the kinds of change drawn from per question
FACTOR = Map({"step": (Int(0, 1), REQUIRED), "changes": (List(Enum(CHANGES)), REQUIRED)})
SCHEMA = {
    "views": (List(VIEWS), REQUIRED),
    "after_view": (VIEWS, "front"),
    "steps": (List(OPERATION, 2, 2, unique=False), REQUIRED),
    "distinct_axes": (Bool(), False),
    "target": (Enum(("other_complex", "after_image")), REQUIRED),
    "target_views": (List(VIEWS, min_len=0), []),
    "partner_tries": (Int(1, 100), 3),
    "options": (Int(2, 4), 4),
    "distractors": (Map({"design": (Enum(("product", "paper")), "product"),
                         "product": (List(FACTOR, 2, 2), [{"step": 0, "changes": ["sign"]},
                                                          {"step": 1, "changes": ["sign", "magnitude"]}]),
                         "schemes": (List(Enum(SCHEMES)), list(SCHEMES))}), {}),
    "rejection": (rejection(min_option_rmsd=(Num(0), REQUIRED), min_option_view=(Num(0, 1), REQUIRED),
                            min_in_frame=(Num(0, 1), 0.9)), REQUIRED),
    # decoys: near makes a product factor's magnitude change the neighbouring magnitude (one value step)
    "difficulty": difficulty_block("decoys"),
}
FIELDS = frozenset({"n_options", "option_images", "target", "framing"})


def spec_check(name: str, verbs: tuple):
    """A task's spec check: its two steps are ``verbs``; a ``move`` step moves in the screen plane."""
    def check(d: dict, path) -> None:
        s1, s2 = d["steps"]
        for k, (s, w) in enumerate(zip((s1, s2), verbs)):
            if s["verb"] != w:
                raise InputError(path, f"steps[{k}].verb: {name} needs {w!r}, got {s['verb']!r}")
        if verbs[0] == "move" and "z" in s1["axes"]:
            raise InputError(path, "steps[0].axes: the translation step moves in the screen plane (x, y)")
        if d["after_view"] not in d["views"]:
            raise InputError(path, f"after_view: {d['after_view']!r} must be one of views {d['views']}")
        if d["target"] == "other_complex":
            if d["after_view"] not in d["target_views"]:
                raise InputError(path, f"target_views: must include after_view {d['after_view']!r}")
        elif d["target_views"]:
            raise InputError(path, "target_views: only for target: other_complex (after_image has no own views)")
        dd = d["distractors"]
        if dd["design"] == "product":
            if d["options"] != 4:
                raise InputError(path, "options: the 2×2 product design has exactly 4 options")
            c1, c2 = dd["product"]
            if c1["step"] == c2["step"]:       # else knowing the other step would single out the answer
                raise InputError(path, "distractors.product: the two factors must change different steps "
                                       "(step 0 and step 1), so that every step is needed")
        progs = candidate_programs(d)
        if not progs:
            raise InputError(path, "steps: no candidate program")
        if dd["design"] == "paper":
            for scheme in dd["schemes"]:
                worst = min(len(scheme_distractors(scheme, p, d)) for p in progs)
                if worst < d["options"] - 1:
                    raise InputError(path, f"distractors.schemes: {scheme!r} gives only {worst} distinct "
                                           f"distractor(s) for some answers; {d['options'] - 1} needed")
        else:
            rng = np.random.default_rng(0)
            if not any(next(product_grids(p, dd["product"], d, rng), None) for p in progs):
                raise InputError(path, "distractors.product: no program has a full 2×2 option grid "
                                       "(widen steps[*].values or axes)")
    return check


def features(program: dict) -> list:
    p = ChoiceProgram.from_dict(program)
    out = [("letter", p.correct)]
    for k, op in enumerate(p.ops or [], 1):
        out += [(f"step{k}_axis", op["axis"]), (f"step{k}_sign", "+" if op["value"] > 0 else "-")]
    if p.scheme is not None:
        out.append(("scheme", p.scheme))
    return out


def difficulty_part(rec: dict, sidecars: dict) -> dict:
    p = ChoiceProgram.from_dict(rec["program"])
    return {"magnitude": difficulty.rounded(sum(abs(float(o["value"])) for o in p.ops), 2),
            "option_gap_px": difficulty.rounded(difficulty.option_gap(difficulty.option_cars(rec, sidecars)), 2)}


def choice_type(name: str, description: str, verbs: tuple, level_features: tuple, level_table=None) -> TaskType:
    """The registry entry of an option-grid task. MiSI-Bench's "Avg." leaves both out (near chance for
    every model it tested). Their answers are letters (the answer kind's letter audit), and their
    options images (the image guessers)."""
    return TaskType(name, ChoicePlanner, SCHEMA, FIELDS, "letter", check=spec_check(name, verbs), features=features,
                    description=description, paper_average=False, audit=guessers.option_images,
                    guessers=guessers.IMAGE_GUESSERS, option_steps=option_steps, rationale=choice,
                    difficulty=difficulty_part, level_features=level_features, level_table=level_table,
                    program=ChoiceProgram)


__all__ = ["ChoicePlanner", "ChoiceProgram", "choice_type"]
