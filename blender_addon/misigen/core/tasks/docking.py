"""T7 docking: pocket alone, ligand alone (rotated about its own centre, moved beside the
pocket), both together; the answer is the inverse that re-docks the ligand: roll first
(about the ligand's own centre), then move: ``roll x 75, move x -14``."""
from __future__ import annotations

from collections import Counter

import numpy as np

from .. import geometry
from ..commands import Op, format_number, format_ops, parse_ops
from ..geometry import view_ops
from . import prompts
from .base import Planner
from .common import (COMPLEX, Rejected, atom_classes, balanced_order, range_values, rnd, sphere_camera,
                     spec_coords, view_distance)

POCKET, LIGAND = ("protein",), ("ligand",)


class DockingPlanner(Planner):
    def setup(self):
        d, ctx = self.d, self.ctx
        self.full = ctx.shown(COMPLEX)
        self.lig = ctx.shown(LIGAND)
        self.pocket = ctx.shown(POCKET)
        if self.lig.n_atoms == 0 or self.pocket.n_atoms == 0:
            raise Rejected("docking needs a ligand and a pocket")
        self.centre = ctx.centre(COMPLEX)
        c = np.asarray(self.centre)
        lig_c = self.lig.coords.mean(axis=0)
        r_lig = float((np.linalg.norm(self.lig.coords - lig_c, axis=1) + ctx.radii(self.lig)).max())
        self.r_lig = r_lig
        self.extras = range_values(d["displacement"]["extra"])
        self.angles = range_values(d["rotation"]["values"])
        # smallest whole-Å distance per side that clears the pocket's x-extent (ligand as a sphere)
        pk_r = ctx.radii(self.pocket)
        gap = float(d["rejection"]["min_screen_gap"])
        need = {"left": (lig_c[0] + r_lig) - (self.pocket.coords[:, 0] - pk_r).min() + gap,
                "right": (self.pocket.coords[:, 0] + pk_r).max() - (lig_c[0] - r_lig) + gap}
        self.base = {side: float(np.ceil(max(v, 0.0))) for side, v in need.items()}
        far = [lig_c + np.array([(-1 if side == "left" else 1) * (self.base[side] + max(self.extras)), 0, 0])
               for side in d["displacement"]["sides"]]
        radius = max([ctx.radius(POCKET, None, self.centre)] +
                     [float(np.linalg.norm(f - c)) + r_lig for f in far])
        self.camera = sphere_camera(self.centre, radius, self.style)
        self.pocket_views = [self.spec(self.camera, {"all": view_ops(v)}, parts=POCKET, centre=self.centre)
                             for v in d["pocket_views"]]
        self.lig_classes = atom_classes(self.lig)
        self.pocket_r = ctx.radii(self.pocket)
        self.lig_r = ctx.radii(self.lig)
        pix, depth = self.camera.project(self.pocket.coords)
        scale = self.camera.pixel_scale(depth)
        self.pocket_lo = float((pix[:, 0] - self.pocket_r * scale).min())
        self.pocket_hi = float((pix[:, 0] + self.pocket_r * scale).max())
        self.px_per_a = float(self.camera.pixel_scale(np.array([self.camera.position[2] - c[2]]))[0])
        classes = [(("axis", ax), ("side", side)) for ax in d["rotation"]["axes"] for side in d["displacement"]["sides"]]
        self.order = [(c[0][1], c[1][1]) for c in balanced_order(classes, self.srng)]
        self.signs = balanced_order([1, -1], self.srng)
        self._rot_pix: dict = {}

    def perturbation(self, axis, angle, side, dist) -> list[Op]:
        disp = -dist if side == "left" else dist
        return [Op("roll", axis, -angle), Op("move", self.d["displacement"]["axis"], disp)]

    def rot_pixels(self, axis, angle):
        """Ligand-alone views after the rotation alone, centred (identity-free comparison)."""
        key = (axis, angle)
        if key not in self._rot_pix:
            out = []
            for v in self.d["ligand_views"]:
                spec = self.spec(self.camera, {"ligand": [Op("roll", axis, -angle)] + view_ops(v)},
                                 parts=LIGAND, centre=self.centre)
                pix = self.camera.project(spec_coords(self.lig, spec))[0]
                out.append(pix - pix.mean(axis=0))
            self._rot_pix[key] = out
        return self._rot_pix[key]

    def check(self, axis, angle, side, dist) -> str | None:
        rej = self.d["rejection"]
        pert = self.perturbation(axis, angle, side, dist)
        combined = self.spec(self.camera, {"ligand": pert}, centre=self.centre)
        xyz = spec_coords(self.full, combined)
        lig_xyz, pocket_xyz = xyz[self.full.ligand], xyz[~self.full.ligand]
        dmin = np.sqrt(((lig_xyz[:, None, :] - pocket_xyz[None, :, :]) ** 2).sum(-1)).min()
        if dmin < rej["min_clash_distance"]:
            return "ligand overlaps the pocket"
        pix, depth = self.camera.project(lig_xyz)
        scale = self.camera.pixel_scale(depth)
        lo, hi = (pix[:, 0] - self.lig_r * scale).min(), (pix[:, 0] + self.lig_r * scale).max()
        gap = (self.pocket_lo - hi) if side == "left" else (lo - self.pocket_hi)
        if gap < rej["min_screen_gap"] * self.px_per_a:
            return "ligand not clear of the pocket on screen"
        if lo < 0 or hi > self.camera.width:
            return "ligand off-screen"
        if rej["min_rotation_view_px"] > 0:
            mine = self.rot_pixels(axis, angle)
            for ax2 in self.d["rotation"]["axes"]:
                for a2 in self.angles:
                    if (ax2, a2) == (axis, angle):
                        continue
                    other = self.rot_pixels(ax2, a2)
                    dist_px = max(view_distance(p, q, self.lig_classes) for p, q in zip(mine, other))
                    if dist_px < rej["min_rotation_view_px"]:
                        return "rotation looks like another (symmetric ligand)"
        return None

    def make(self, index, rng, why: Counter):
        d = self.d
        axis, side = self.order[index % len(self.order)]
        sign = self.signs[(index + index // len(self.order)) % 2]    # roll signs alternate too
        pool = [(a, self.base[side] + e) for a in self.angles for e in self.extras
                if (axis, a, side, self.base[side] + e) not in self.used and (a > 0) == (sign > 0)]
        pool += [(a, self.base[side] + e) for a in self.angles for e in self.extras
                 if (axis, a, side, self.base[side] + e) not in self.used and (a > 0) != (sign > 0)]
        found = None
        n_pref = sum((a > 0) == (sign > 0) for a, _ in pool)
        order = list(rng.permutation(n_pref)) + [n_pref + int(k) for k in rng.permutation(len(pool) - n_pref)]
        for k in order[: self.tries()]:
            angle, dist = pool[int(k)]
            reason = self.check(axis, angle, side, dist)
            if reason is None:
                found = (angle, dist)
                break
            why[reason] += 1
        if found is None:
            raise Rejected(f"no acceptable displacement ({axis}, {side}) within {self.tries()} tries")
        angle, dist = found
        self.used.add((axis, angle, side, dist))
        pert = self.perturbation(axis, angle, side, dist)
        ax_move = d["displacement"]["axis"]
        answer_ops = [Op("roll", axis, angle), Op("move", ax_move, -pert[1].value)]
        answer = format_ops(answer_ops)
        # replay: the parsed answer, applied to the displaced ligand about its own centre, re-docks it
        combined = self.spec(self.camera, {"ligand": pert}, centre=self.centre)
        moved = spec_coords(self.full, combined)[self.full.ligand]
        m, centres = geometry.compose(parse_ops(answer), moved.mean(axis=0))
        back = geometry.apply(m, moved)
        err = float(np.abs(back - self.full.coords[self.full.ligand]).max())
        assert err < 1e-6, f"docking replay error {err}"
        lig_views = [self.spec(self.camera, {"ligand": pert + view_ops(v)}, parts=LIGAND, centre=self.centre)
                     for v in d["ligand_views"]]
        images = self.pocket_views + lig_views + [combined]
        texts = [f"the pocket alone (no ligand) seen {prompts.view_text(v)}" for v in d["pocket_views"]]
        texts += [f"the moved ligand alone seen {prompts.view_text(v)}, turned about the ligand's own centre"
                  for v in d["ligand_views"]]
        texts.append("the pocket and the moved ligand together, seen from the front (the start orientation, "
                     "the frame of the answer)")
        question = self.question(texts, displacement_axis=ax_move,
                                 rotation_range=prompts.values_text(self.angles, "degrees"),
                                 distance_range=f"a multiple of {format_number(d['displacement']['extra']['step'])} Å")
        program = {"kind": "docking", "ops": [o.as_dict() for o in answer_ops],
                   "perturbation": [o.as_dict() for o in pert], "order": "roll about the ligand centre, then move",
                   "centre": rnd(self.centre), "ligand_centre": rnd(self.full.coords[self.full.ligand].mean(axis=0)),
                   "displaced_ligand_centre": rnd(moved.mean(axis=0)), "side": side,
                   "roll_range": [min(self.angles), max(self.angles)],
                   "move_range": [-max(self.base.values()) - max(self.extras), max(self.base.values()) + max(self.extras)],
                   "clearing_distance": self.base[side], "replay_error": err,
                   "balance_class": {"axis": axis, "side": side, "roll_sign": "+" if angle > 0 else "-"}}
        return {"question": question, "images": images, "options": None, "answer": answer, "program": program}
