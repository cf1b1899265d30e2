"""T8's planner: which of 2–4 move options brings a named hydrogen bond (or, per spec, another
interaction's centre) to the centre of the screen. Options come from ``distractors.py``: the
shortcut-free 2×2 product of x and y moves (default) or MiSI-Bench's sign flips, scales and
offsets (``design: paper``).
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import numpy as np

from ...chemistry.interactions import KINDS
from ...scene import geometry
from ...op_grammar import Op, format_number, format_ops, parse_ops
from .. import prompts
from ..answers import hbond_entry
from ..base import Unavailable
from ..common import LETTERS, Planned, Rejected, balanced_order, rnd
from ..distractors import move_grid, move_partner, paper_move_distractors
from ..schema import knob
from ..shared.hbond import HBondPlanner, pose_ops
from .program import LocationProgram


def round_to(x: float, step: float) -> float:
    return float(format_number(round(x / step) * step + 0.0, as_float=True))


def location_ops(a: float, b: float) -> list[Op]:
    return [Op("move", "x", a), Op("move", "y", b)]


@dataclass(frozen=True)
class Framing:
    """The question's views of one start pose, and the reference view the moves are measured in."""
    pose: tuple
    specs: list
    front: object

    @property
    def camera(self):
        return self.front.camera

    @property
    def centre(self):
        return self.front.centre


class LocationPlanner(HBondPlanner):
    def setup(self):
        self.hb = self.found()
        if not self.hb:
            raise Unavailable(f"no protein–ligand {KINDS[self.kind].noun} in this complex")
        self.labels = self.label_plan()
        self.framings: dict = {}
        self.start = self.framing(tuple(self.hiding_pose(self.contact_rows())))
        self.hb_order = [self.hb[k] for k in self.srng.permutation(len(self.hb))]
        self.letters = balanced_order(list(LETTERS[: self.d["options"]]), self.srng)

    def framing(self, pose: tuple) -> Framing:
        if pose not in self.framings:
            specs = self.views(self.labels, pose=list(pose))
            self.framings[pose] = Framing(pose, specs, specs[self.d["views"].index(self.d["after_view"])])
        return self.framings[pose]

    def other_poses(self) -> list[tuple]:
        """The spec's other start poses, tried in its order once the start pose has no answerable
        H-bond left: a small turn moves an H-bond off an image axis or out from behind an atom,
        and the question's images show whichever pose it is asked in."""
        out = []
        for a, b in self.d["rejection"]["other_poses"]:
            pose = tuple(pose_ops(a, b))
            if pose != self.start.pose and pose not in out:
                out.append(pose)
        return out

    def candidates(self, pool: list):
        """(framing, H-bond) pairs to try, at most ``tries()``: every unused H-bond in the start pose,
        then each in the other poses, pose by pose."""
        n = 0
        for pose in [self.start.pose] + self.other_poses():
            for it in pool:
                if n == self.tries():
                    return
                n += 1
                yield self.framing(pose), it

    def count(self) -> int:
        return min(self.task.samples(self.split), len(self.hb))

    @property
    def count_why(self):
        return f"only {len(self.hb)} {KINDS[self.kind].plural} in this complex"

    def midpoint(self, it, fr: Framing):
        """The interaction's centre: midpoint of its two heavy atoms (H-bond) or of its two groups'
        centroids (rings, charged groups)."""
        shown = self.ctx.shown()
        rows = self.ctx.row_map(shown)
        xyz = self.ctx.posed(fr.front.ops)
        if self.kind == "hbond":
            return (xyz[rows[int(it.protein_index)]] + xyz[rows[int(it.ligand_index)]]) / 2
        p_rows, l_rows = self.ctx.group_rows(it)
        return (xyz[[rows[r] for r in p_rows]].mean(axis=0) + xyz[[rows[r] for r in l_rows]].mean(axis=0)) / 2

    # Views that show the reference (front) view's x axis, and its y axis, edge on or mirrored.
    SHARES_X = ("top", "bottom", "back")
    SHARES_Y = ("left", "right", "back")

    def centre_unplaceable(self, it, fr: Framing) -> str | None:
        """Why no image lets a reader place the H-bond's centre, or None: both atoms visible in the
        reference view, or each visible in a view that shows its x axis and in one that shows its y
        axis (an atom hidden in every view sharing an axis leaves that offset unreadable)."""
        if self.kind != "hbond" or not self.d["rejection"]["require_visible"]:
            return None
        shown = self.ctx.shown(fr.front.parts, fr.front.residues)
        rows = self.ctx.row_map(shown)
        atoms = [rows.get(int(it.protein_index)), rows.get(int(it.ligand_index))]
        if None in atoms or all(self.visible(fr.front)[r] for r in atoms):
            return None
        by_view = dict(zip(self.d["views"], fr.specs))
        for names in (self.SHARES_X, self.SHARES_Y):
            seen = [by_view[n] for n in names if n in by_view]
            if not all(any(self.visible(v)[r] for v in seen) for r in atoms):
                return "H-bond centre not placeable: an atom is hidden in every view sharing an axis"
        return None

    def options_for(self, a, b, rng) -> tuple[list[tuple] | None, list | None]:
        """(the option moves, true first, or None when no set is distinct enough; the change each
        product factor made, x then y, or None for the paper's design)."""
        dd = self.d["distractors"]
        gap = float(dd["min_gap"])
        prec = float(self.d["precision"])
        product = dd["product"]
        if knob(self.d, "decoys") == "near":          # magnitude decoys one precision step away
            gap, product = prec, {**product, "magnitude_steps": [prec]}
        if dd["design"] == "product":
            # x move × y move, each partner a sign flip or a magnitude change drawn per question
            # (``distractors.move_partner``). The gap check depends only on what the paired cells
            # share (Δ, |a|, |b|), so a rejection says nothing of which cell is the answer.
            px = move_partner(a, product, prec, rng, lambda x: round_to(x, prec))
            py = move_partner(b, product, prec, rng, lambda x: round_to(x, prec))
            grid = move_grid((a, b), (px[1], py[1]))
            if all(math.hypot(p[0] - q[0], p[1] - q[1]) >= gap for i, p in enumerate(grid) for q in grid[i + 1:]):
                return grid, [px[0], py[0]]
            return None, None
        picked = [(a, b)]
        for c in paper_move_distractors(a, b, dd, rng, lambda x: round_to(x, prec)):
            if all(math.hypot(c[0] - p[0], c[1] - p[1]) >= gap for p in picked):
                picked.append(c)
            if len(picked) == self.d["options"]:
                return picked, None
        return None, None

    def make(self, index, rng, why: Counter) -> Planned:
        d = self.d
        letter = self.letters[index % len(self.letters)]
        pool = [it for it in self.hb_order if (it.chain, it.resseq, it.icode, it.protein_atom, it.ligand_atom)
                not in self.used]
        prec = float(d["precision"])
        chosen = None
        poses = set()
        for fr, it in self.candidates(pool):
            poses.add(fr.pose)
            reason = self.unreadable(fr.specs, [it], self.bond_labels([it])) or self.centre_unplaceable(it, fr)
            if reason is None:
                q = fr.camera.to_camera(self.midpoint(it, fr)[None])[0]
                a, b = round_to(-q[0], prec), round_to(-q[1], prec)
                if math.hypot(q[0], q[1]) < d["min_offset"] or (a, b) == (0.0, 0.0):
                    reason = "H-bond already at the image centre"
                elif d["distractors"]["design"] == "product" and 0.0 in (a, b):
                    # a move of 0 has no sign to change and no magnitude below it: its options would tell
                    reason = "H-bond on an image axis (a move of 0)"
                else:
                    grid, changes = self.options_for(a, b, rng)
                    if grid is None:
                        reason = "options too close to each other"
                    else:
                        chosen = (fr, it, q, a, b, grid, changes)
                        break
            why[reason] += 1
        if chosen is None:
            raise Rejected(f"no answerable H-bond among the {min(len(pool), self.tries())} unused one(s) "
                           f"in {len(poses)} start pose(s)")
        fr, it, q, a, b, grid, changes = chosen
        self.used.add((it.chain, it.resseq, it.icode, it.protein_atom, it.ligand_atom))
        order = list(LETTERS[: d["options"]])
        correct = order.index(letter)
        others = [grid[int(k)] for k in 1 + rng.permutation(len(grid) - 1)]
        pairs = others[:correct] + [(a, b)] + others[correct:]
        texts_opt = [format_ops(location_ops(x, y)) for x, y in pairs]
        # replay: the correct option's parsed moves bring the midpoint to the image centre (± rounding)
        m, _ = geometry.compose(parse_ops(texts_opt[correct]), np.asarray(fr.centre))
        moved = fr.camera.to_camera(geometry.apply(m, self.midpoint(it, fr)[None]))[0]
        assert abs(moved[0]) <= prec / 2 + 1e-9 and abs(moved[1]) <= prec / 2 + 1e-9
        ent = hbond_entry(it) if self.kind == "hbond" else it.as_dict()
        if self.kind == "hbond":
            donor = {"ligand": "the ligand", "shared": "shared"}.get(it.donor, "the protein")
            hb_text = (f"ligand atom {it.ligand_atom} and atom {it.protein_atom} of residue "
                       f"{self.residue_label_text(it)} form a hydrogen bond (donor: {donor})")
        else:
            p_names, l_names = it.partner_atoms()
            hb_text = (f"ligand atom(s) {', '.join(l_names)} and atom(s) {', '.join(p_names)} of residue "
                       f"{self.residue_label_text(it)} form a {KINDS[self.kind].noun} (its centre: the midpoint "
                       f"between the centres of the two groups)")
        texts = [f"the complex seen {prompts.view_text(v)}" for v in d["views"]]
        options_text = "Options:\n" + "\n".join(f"{L}. {t}" for L, t in zip(order, texts_opt))
        ref = d["views"].index(d["after_view"]) + 1
        centre_rule = ("the midpoint between its two heavy atoms" if self.kind == "hbond" else
                       "the midpoint between the centres (centroids) of its two groups of named atoms")
        question = self.question(texts, labels=self.labels, hbond=hb_text, options_text=options_text,
                                 labels_extra=self.labels_note(),
                                 reference=str(ref), precision=format_number(prec), centre_rule=centre_rule,
                                 framing=prompts.framing_text("views"), **self.kind_fields())
        program = LocationProgram(
            interaction=self.kind, hbond=ent, midpoint_camera_xyz=rnd(q, 3),
            ops=[o.as_dict() for o in location_ops(a, b)], answer_text=texts_opt[correct],
            residual_camera_xy=rnd(moved[:2], 3), precision=prec, correct=letter, centre=rnd(fr.centre),
            view=d["after_view"], design=d["distractors"]["design"],
            options=[{"letter": L, "ops": [o.as_dict() for o in location_ops(x, y)], "text": t, "correct": L == letter}
                     for L, t, (x, y) in zip(order, texts_opt, pairs)],
            grid=None if changes is None else [format_ops(location_ops(x, y)) for x, y in grid],
            changes=None if changes is None else [{"step": k, "change": c} for k, c in enumerate(changes)])
        return Planned(question, fr.specs, letter, program.as_dict(), texts_opt)
