"""T7's planner: pocket alone, ligand alone (rotated about its own centre, moved beside the pocket),
both together; the answer is the inverse that re-docks the ligand: roll first (about the ligand's own
centre), then move: ``roll x 75, move x -14``.

Framing (each image "view all" of what it shows): the pocket views fill the frame with the
pocket, the ligand views with the ligand, the combined view with pocket + moved ligand, so
the moved ligand sits at the far left or right of that image, as in MiSI-Bench. The
distance is the smallest whole Å that clears the pocket (ligand as a sphere: any rotation)
plus one of the spec's ``extra`` values (the paper: ± {0, 1, 2} Å), kept only when the rotated
ligand neither clashes with the pocket in 3D nor overlaps it on screen.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import replace

import numpy as np

from ...scene import geometry
from ...scene.geometry import view_ops
from ...scene.labels import ligand_atom_id
from ...scene.scene_plan import SiteMarker
from ...op_grammar import Op, format_number, format_ops, parse_ops
from .. import prompts
from ..base import Planner, Unavailable
from ..common import (COMPLEX, Planned, Rejected, atom_classes, balanced_order, fit_camera, range_values, rnd,
                      spec_coords, view_change)
from ..schema import asked_range, knob
from .program import DockingProgram

POCKET, LIGAND = ("protein",), ("ligand",)
OPEN_FRONT_XY = 1.5     # Å on screen (x, y): a residue atom this near a ligand atom covers the site
FRAMING = ("Images {pocket} are framed on the pocket, images {ligand} on the moved ligand (magnified to fill the frame) "
           "and image {combined} on both together, so sizes compare only within an image; the camera never turns, "
           "so directions are the same in every image. Ligand atom names are shown in the ligand-alone images only.")


class DockingPlanner(Planner):
    def setup(self):
        d, ctx = self.d, self.ctx
        self.res = self.lining_residues()
        self.full = ctx.shown(COMPLEX, self.res)
        self.lig = ctx.shown(LIGAND, self.res)
        self.pocket = ctx.shown(POCKET, self.res)
        if self.lig.n_atoms == 0 or self.pocket.n_atoms == 0:
            raise Unavailable("docking needs a ligand and a pocket")
        self.labels = self.label_plan(residues=self.res)
        # Ligand views name every ligand atom (hetero atoms first); the pocket and combined views
        # name the residues only, so no label hides the small moved ligand.
        self.lig_labels = self.combined_labels = None
        if self.labels is not None:
            lig_ids = [i for i in self.labels.first if i.startswith("lig ")]
            lig_ids += [ligand_atom_id(n) for n in self.lig.name[~self.lig.is_hydrogen] if ligand_atom_id(n) not in lig_ids]
            self.lig_labels = replace(self.labels, residues=False, first=tuple(lig_ids))
            # No "residues in contact with the ligand first" here: that would mark the binding site.
            self.combined_labels = replace(self.labels, ligand_atoms=False,
                                           first=tuple(i for i in self.labels.first if not i.startswith("res ")))
        self.centre = ctx.centre(COMPLEX, self.res)
        lig_c = self.lig.coords.mean(axis=0)
        self.lig_r = ctx.radii(self.lig)
        self.pocket_r = ctx.radii(self.pocket)
        self.full_r = ctx.radii(self.full)
        r_lig = float((np.linalg.norm(self.lig.coords - lig_c, axis=1) + self.lig_r).max())
        self.extras = range_values(asked_range(d["displacement"]["extra"], d))
        self.angles = range_values(d["rotation"]["values"])
        # smallest whole-Å distance per side that clears the pocket's x-extent (ligand as a sphere)
        need = {"left": (lig_c[0] + r_lig) - (self.pocket.coords[:, 0] - self.pocket_r).min(),
                "right": (self.pocket.coords[:, 0] + self.pocket_r).max() - (lig_c[0] - r_lig)}
        self.base = {side: float(np.ceil(max(v, 0.0))) for side, v in need.items()}
        mark = d["pocket"]["site_marker"]
        self.marker = None if mark is None else SiteMarker(tuple(lig_c), mark["radius"], mark["thickness_px"])
        self.pocket_views = [self.pocket_view(v) for v in d["pocket_views"]]
        self.lig_classes = atom_classes(self.lig)
        classes = [(("axis", ax), ("side", side)) for ax in d["rotation"]["axes"] for side in d["displacement"]["sides"]]
        self.order = [(c[0][1], c[1][1]) for c in balanced_order(classes, self.srng)]
        self.signs = balanced_order([1, -1], self.srng)
        self._rot_pix: dict = {}

    def lining_residues(self):
        """The pocket residues shown: those lining the site (a heavy atom within ``pocket.lining`` Å of a
        ligand heavy atom), so the cavity's outline can be seen; None (the whole pocket) without it."""
        cut = self.d["pocket"]["lining"]
        if not cut:
            return None
        s = self.ctx.shown(COMPLEX)
        heavy = ~s.is_hydrogen
        lig, prot = s.coords[s.ligand & heavy], np.nonzero(~s.ligand & heavy & ~s.is_water)[0]
        d = np.sqrt(((s.coords[prot][:, None] - lig[None]) ** 2).sum(-1)).min(axis=1)
        keys = {(str(s.chain[i]), int(s.resseq[i]), str(s.icode[i])) for i in prot[d <= float(cut)]}
        return tuple(sorted(keys))

    def pocket_view(self, v):
        """One pocket-alone view; with ``pocket.open_front`` it leaves out the lining residues that would
        cover the site: those in front of the ligand's centre with an atom over the ligand's outline."""
        ops = {"all": view_ops(v)}
        res = self.res
        if res is not None and self.d["pocket"]["open_front"]:
            xyz = self.ctx.posed(ops, COMPLEX, res, centre=self.centre)
            s = self.full
            lig = xyz[s.ligand & ~s.is_hydrogen]
            z0 = lig[:, 2].mean()
            rows = np.nonzero(~s.ligand)[0]
            over = np.sqrt(((xyz[rows, None, :2] - lig[None, :, :2]) ** 2).sum(-1)).min(axis=1) <= OPEN_FRONT_XY
            keys = [(str(s.chain[i]), int(s.resseq[i]), str(s.icode[i])) for i in rows]
            front, covers = {}, set()
            for k, z, o in zip(keys, xyz[rows, 2], over):
                front.setdefault(k, []).append(z)
                if o:
                    covers.add(k)
            res = tuple(k for k in res if not (np.mean(front[k]) > z0 and k in covers))
        cam = self.ctx.view_camera(ops, POCKET, res, centre=self.centre)
        return replace(self.spec(cam, ops, parts=POCKET, residues=res, centre=self.centre, labels=self.combined_labels),
                       marker=self.marker)

    def perturbation(self, axis, angle, side, dist) -> list[Op]:
        disp = -dist if side == "left" else dist
        return [Op("roll", axis, -angle), Op("move", self.d["displacement"]["axis"], disp)]

    def combined(self, pert):
        """The combined front view: pocket + moved ligand, framed on both."""
        ops = {"ligand": pert}
        xyz = self.ctx.posed(ops, COMPLEX, self.res, centre=self.centre)
        spec = self.spec(fit_camera(xyz, self.full_r, self.style), ops, residues=self.res, centre=self.centre,
                         labels=self.combined_labels)
        return replace(spec, marker=self.marker), xyz

    def ligand_views(self, pert):
        out = []
        for v in self.d["ligand_views"]:
            ops = {"ligand": pert + view_ops(v)}
            xyz = self.ctx.posed(ops, LIGAND, self.res, centre=self.centre)
            out.append(self.spec(fit_camera(xyz, self.lig_r, self.style), ops, parts=LIGAND, residues=self.res,
                                 centre=self.centre, labels=self.lig_labels))
        return out

    def rot_pixels(self, axis, angle):
        """Ligand-alone views after the rotation alone, centred and scaled alike (identity-free)."""
        key = (axis, angle)
        if key not in self._rot_pix:
            out = []
            cam = self.pocket_views[0].camera
            for v in self.d["ligand_views"]:
                xyz = self.ctx.posed({"ligand": [Op("roll", axis, -angle)] + view_ops(v)}, LIGAND, self.res,
                                     centre=self.centre)
                pix = cam.project(xyz)[0]
                out.append(pix - pix.mean(axis=0))
            self._rot_pix[key] = out
        return self._rot_pix[key]

    def check(self, axis, angle, side, dist) -> str | None:
        rej = self.d["rejection"]
        pert = self.perturbation(axis, angle, side, dist)
        spec, xyz = self.combined(pert)
        lig_xyz, pocket_xyz = xyz[self.full.ligand], xyz[~self.full.ligand]
        dmin = np.sqrt(((lig_xyz[:, None, :] - pocket_xyz[None, :, :]) ** 2).sum(-1)).min()
        if dmin < rej["min_clash_distance"]:
            return "ligand overlaps the pocket"
        cam = spec.camera
        pix, depth = cam.project(xyz)
        half = self.full_r * cam.pixel_scale(depth)
        lo, hi = pix[:, 0] - half, pix[:, 0] + half
        lig, pk = self.full.ligand, ~self.full.ligand
        gap = (lo[pk].min() - hi[lig].max()) if side == "left" else (lo[lig].min() - hi[pk].max())
        if gap / cam.width < rej["min_screen_gap"]:
            return "ligand not clear of the pocket on screen"
        if self.repeats_start(self.pocket_views, [spec]):
            return "combined view repeats a pocket view"
        if rej["min_rotation_view"] > 0:
            mine = self.rot_pixels(axis, angle)
            ref = self.pocket_views[0].camera
            for ax2 in self.d["rotation"]["axes"]:
                for a2 in self.angles:
                    if (ax2, a2) == (axis, angle):
                        continue
                    other = self.rot_pixels(ax2, a2)
                    dist = max(view_change(ref, p, q, self.lig_classes) for p, q in zip(mine, other))
                    if dist < rej["min_rotation_view"]:
                        return "rotation looks like another (symmetric ligand)"
        return None

    def make(self, index, rng, why: Counter) -> Planned:
        d = self.d
        axis, side = self.order[index % len(self.order)]
        sign = self.signs[(index + index // len(self.order)) % 2]    # roll signs alternate too
        cands = [(a, self.base[side] + e) for a in self.angles for e in self.extras
                 if self.base[side] + e > 0 and (axis, a, side, self.base[side] + e) not in self.used]
        pref = [c for c in cands if (c[0] > 0) == (sign > 0)]
        rest = [c for c in cands if (c[0] > 0) != (sign > 0)]
        pool = [pref[int(k)] for k in rng.permutation(len(pref))] + [rest[int(k)] for k in rng.permutation(len(rest))]
        found = None
        for angle, dist in pool[: self.tries()]:
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
        combined, xyz = self.combined(pert)
        # replay: the parsed answer, applied to the displaced ligand about its own centre, re-docks it
        moved = spec_coords(self.full, combined)[self.full.ligand]
        m, _ = geometry.compose(parse_ops(answer), moved.mean(axis=0))
        back = geometry.apply(m, moved)
        err = float(np.abs(back - self.full.coords[self.full.ligand]).max())
        assert err < 1e-6, f"docking replay error {err}"
        images = self.pocket_views + self.ligand_views(pert) + [combined]
        texts = [f"the pocket alone (no ligand) seen {prompts.view_text(v)}" for v in d["pocket_views"]]
        texts += [f"the moved ligand alone seen {prompts.view_text(v)}, turned about the ligand's own centre"
                  for v in d["ligand_views"]]
        texts.append("the pocket and the moved ligand together, seen from the front (the start orientation, "
                     "the frame of the answer)")
        n_p, n_l = len(d["pocket_views"]), len(d["ligand_views"])
        framing = FRAMING.format(pocket=f"1–{n_p}" if n_p > 1 else "1",
                                 ligand=f"{n_p + 1}–{n_p + n_l}" if n_l > 1 else str(n_p + 1), combined=str(n_p + n_l + 1))
        question = self.question(texts, labels=self.labels, displacement_axis=ax_move, framing=framing,
                                 pocket_cut=self.pocket_cut_text(n_p, n_p + n_l + 1),
                                 rotation_range=prompts.values_text(self.angles, "degrees"),
                                 distance_range=self.distance_text())
        lo = min(self.base.values()) + min(self.extras)
        hi = max(self.base.values()) + max(self.extras)
        program = DockingProgram(
            ops=[o.as_dict() for o in answer_ops], perturbation=[o.as_dict() for o in pert],
            order="roll about the ligand centre, then move", centre=rnd(self.centre),
            ligand_centre=rnd(self.full.coords[self.full.ligand].mean(axis=0)),
            displaced_ligand_centre=rnd(moved.mean(axis=0)), side=side,
            roll_range=[min(self.angles), max(self.angles)], move_range=[-hi, hi], roll_axes=list(d["rotation"]["axes"]),
            answer_space=len(d["rotation"]["axes"]) * len(self.angles) * len(d["displacement"]["sides"])
            * len(self.extras),
            move_magnitude_range=[lo, hi], clearing_distance=self.base[side], extra=dist - self.base[side],
            replay_error=err, balance_class={"axis": axis, "side": side, "roll_sign": "+" if angle > 0 else "-"},
            **self.fine_steps())
        return Planned(question, images, answer, program.as_dict())

    def pocket_cut_text(self, n_pocket: int, combined: int) -> str:
        """How the pocket was cut and marked (the spec's ``pocket``), as the prompt states it; "" for the
        whole pocket unmarked."""
        cfg = self.d["pocket"]
        pocket = f"1–{n_pocket}" if n_pocket > 1 else "1"
        out = []
        if cfg["lining"]:
            out.append(f"The pocket shown is the residues lining the binding site: those with a heavy atom within "
                       f"{format_number(cfg['lining'])} Å of the ligand in its crystal pose.")
            if cfg["open_front"]:
                out.append(f"In images {pocket} the lining residues in front of the site that would cover it are left "
                           "out, so the site is seen open toward you.")
        if cfg["site_marker"] is not None:
            out.append(f"A white ring in images {pocket} and {combined} marks where the ligand's centre (the centroid "
                       f"of its atoms) sat in the pocket; its radius is {format_number(cfg['site_marker']['radius'])} Å "
                       "at that depth.")
        return " ".join(out) + "\n" if out else ""

    def distance_text(self) -> str:
        step = format_number(asked_range(self.d["displacement"]["extra"], self.d)["step"])
        if knob(self.d, "values") == "fine":
            return f"a multiple of {step} Å"
        return f"a whole number of Å (a multiple of {step} Å)"

    def fine_steps(self) -> dict:
        """The program's ``move_step`` under ``values: fine`` (else none: as before)."""
        if knob(self.d, "values") != "fine":
            return {}
        return {"move_step": float(asked_range(self.d["displacement"]["extra"], self.d)["step"])}
