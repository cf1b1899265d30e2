"""T4 residue–ligand, T8 interaction location, T9 pocket–ligand: hydrogen-bond tasks.

Ground truth is ``core.interactions.find_interactions`` on the FULL structure (hydrogens
included when present); answers list bonds in the finder's order (chain, resseq, icode,
protein atom, ligand atom).
"""
from __future__ import annotations

from collections import Counter

import numpy as np

from .. import geometry
from ..camera import visible_atoms
from ..commands import Op, format_number, format_ops, parse_ops
from ..geometry import view_ops
from ..labels import label_items, layout_labels
from . import prompts
from .answers import format_pocket_hbonds, format_residue_answer, hbond_entry
from .base import Planner
from .common import COMPLEX, LETTERS, Rejected, balanced_order, in_frame, rnd, spec_coords


def residue_text(chain, resname, resseq, icode) -> str:
    return f"{resname} {resseq}{icode}" + (f" (chain {chain})" if chain else "")


class HBondPlanner(Planner):
    """Shared checks: the H-bond atoms are in frame in every view, visible in at least one,
    and (optionally) their residue / ligand-atom labels are drawn in at least one."""

    def view_info(self, shown, spec) -> dict:
        key = ("viewinfo", id(shown), spec.key())
        cache = self.ctx._shown
        if key not in cache:
            cam = spec.camera
            xyz = spec_coords(shown, spec)
            radii = self.ctx.radii(shown)
            bond_r = self.style["bond_radius"] if self.style["representation"] != "spheres" else 0.0
            vis = visible_atoms(cam, xyz, radii, shown.bonds, bond_r)
            inside = in_frame(cam, xyz, radii)
            placed = set()
            if spec.labels and self.style["labels"]["enabled"]:
                pix, depth = cam.project(xyz)
                items = label_items(shown, self.style)
                for lab in layout_labels(items, pix, depth > cam.clip[0], self.style, cam.width, cam.height):
                    if lab["box"] is not None:
                        a = lab["atom"]
                        placed.add(("residue", str(shown.chain[a]), int(shown.resseq[a]), str(shown.icode[a]))
                                   if lab["kind"] == "residue" else ("ligand_atom", int(a)))
            cache[key] = {"visible": vis, "inside": inside, "labels": placed, "xyz": xyz}
        return cache[key]

    def setup_complex_views(self) -> None:
        """The complex's H-bonds and its views of pocket + ligand with the shared camera (T8, T9)."""
        self.hb = self.ctx.hbonds()
        if not self.hb:
            raise Rejected("no protein–ligand hydrogen bond in this complex")
        self.shown = self.ctx.shown(COMPLEX)
        self.centre = self.ctx.centre(COMPLEX)
        self.camera = self.ctx.camera(self.task.camera)
        self.specs = self.views(self.camera, self.centre)

    def check_bonds(self, shown, specs, bonds) -> str | None:
        rej = self.d["rejection"]
        rows = self.ctx.row_map(shown)
        infos = [self.view_info(shown, s) for s in specs]
        for it in bonds:
            p, l = rows.get(int(it.protein_index)), rows.get(int(it.ligand_index))
            if p is None or l is None:
                return "H-bond atom not shown"
            if not all(info["inside"][p] and info["inside"][l] for info in infos):
                return "H-bond atom off-screen"
            if rej["require_visible"] and not (any(i["visible"][p] for i in infos)
                                               and any(i["visible"][l] for i in infos)):
                return "H-bond atom hidden in every view"
            if rej["require_labels"] and self.d["labels"] and self.style["labels"]["enabled"]:
                res = ("residue", it.chain, int(it.resseq), it.icode)
                if self.style["labels"]["residues"] and not any(res in i["labels"] for i in infos):
                    return "residue label unreadable in every view"
                if self.style["labels"]["ligand_atoms"] and not any(("ligand_atom", l) in i["labels"]
                                                                     for i in infos):
                    return "ligand atom label unreadable in every view"
        return None

    def views(self, camera, centre, residues=None, names=None):
        return [self.spec(camera, {"all": view_ops(v)}, residues=residues, centre=centre)
                for v in (names or self.d["views"])]


# ------------------------------------------------------------------ T4
class ResiduePlanner(HBondPlanner):
    def setup(self):
        ctx = self.ctx
        self.hb = ctx.hbonds()
        s = ctx.structure
        shown = ctx.shown(COMPLEX)
        lig = shown.coords[shown.ligand]
        by_res: dict = {}
        for it in self.hb:
            by_res.setdefault((it.chain, int(it.resseq), it.icode), []).append(it)
        self.by_res = by_res
        residues = {}
        for i in np.nonzero(~shown.ligand & ~shown.is_water)[0]:
            key = (str(shown.chain[i]), int(shown.resseq[i]), str(shown.icode[i]))
            d = float(np.sqrt(((lig - shown.coords[i]) ** 2).sum(-1)).min())
            prev = residues.get(key)
            residues[key] = (str(shown.resname[i]), min(d, prev[1]) if prev else d)
        self.resnames = {k: v[0] for k, v in residues.items()}
        self.yes = [k for k in residues if k in by_res]
        cut = float(self.d["negatives"]["max_distance"])
        self.no = [k for k, v in residues.items() if k not in by_res and v[1] <= cut]
        self.order = balanced_order(["yes", "no"], self.srng)
        del s

    def make(self, index, rng, why: Counter):
        cls = self.order[index % 2]
        pool = [r for r in (self.yes if cls == "yes" else self.no) if r not in self.used]
        if not pool:
            raise Rejected(f"no unused pocket residue {'with' if cls == 'yes' else 'without'} an H-bond")
        chosen = None
        for k in rng.permutation(len(pool))[: self.tries()]:
            res = pool[int(k)]
            residues = (res,)
            centre = self.ctx.centre(COMPLEX, residues)
            camera = self.ctx.camera(self.task.camera, COMPLEX, residues)
            specs = self.views(camera, centre, residues)
            bonds = self.by_res.get(res, [])
            reason = self.check_bonds(self.ctx.shown(COMPLEX, residues), specs, bonds)
            if reason is None:
                chosen = (res, centre, specs, bonds)
                break
            why[reason] += 1
        if chosen is None:
            raise Rejected(f"no answerable residue ({cls}) among {min(len(pool), self.tries())} tried")
        res, centre, specs, bonds = chosen
        self.used.add(res)
        entries = [hbond_entry(b) for b in bonds]
        answer = format_residue_answer(entries)
        chain, resseq, icode = res
        rtext = residue_text(chain, self.resnames[res], resseq, icode)
        texts = [f"residue {rtext} and the ligand seen {prompts.view_text(v)}" for v in self.d["views"]]
        question = self.question(texts, residue=rtext)
        program = {"kind": "residue_hbonds", "residue": {"chain": chain, "resseq": resseq, "icode": icode,
                                                         "resname": self.resnames[res]},
                   "has_hbond": bool(entries), "hbonds": entries, "centre": rnd(centre),
                   "balance_class": {"answer": cls}}
        return {"question": question, "images": specs, "options": None, "answer": answer, "program": program}


# ------------------------------------------------------------------ T9
class PocketPlanner(HBondPlanner):
    def setup(self):
        self.setup_complex_views()

    def make(self, index, rng, why: Counter):
        if index > 0:
            raise Rejected("one distinct question per complex")
        reason = self.check_bonds(self.shown, self.specs, self.hb)
        if reason:
            why[reason] += 1
            raise Rejected(reason)
        entries = [hbond_entry(b) for b in self.hb]
        answer = format_pocket_hbonds(entries)
        texts = [f"the complex seen {prompts.view_text(v)}" for v in self.d["views"]]
        program = {"kind": "pocket_hbonds", "hbonds": entries, "n_hbonds": len(entries), "centre": rnd(self.centre)}
        return {"question": self.question(texts), "images": self.specs, "options": None, "answer": answer,
                "program": program}


# ------------------------------------------------------------------ T8
def round_to(x: float, step: float) -> float:
    return float(format_number(round(x / step) * step + 0.0, as_float=True))


def location_ops(a: float, b: float) -> list[Op]:
    return [Op("move", "x", a), Op("move", "y", b)]


class LocationPlanner(HBondPlanner):
    def setup(self):
        self.setup_complex_views()
        self.front = self.spec(self.camera, {"all": view_ops(self.d["after_view"])}, centre=self.centre)
        self.hb_order = [self.hb[k] for k in self.srng.permutation(len(self.hb))]
        self.letters = balanced_order(list(LETTERS[: self.d["options"]]), self.srng)

    def midpoint(self, it):
        rows = self.ctx.row_map(self.shown)
        xyz = spec_coords(self.shown, self.front)
        return (xyz[rows[int(it.protein_index)]] + xyz[rows[int(it.ligand_index)]]) / 2

    def distractors(self, a, b, rng) -> list[tuple] | None:
        dd = self.d["distractors"]
        prec = float(self.d["precision"])
        cands = []
        if dd["sign_flips"]:
            cands += [(-a, b), (a, -b), (-a, -b)]
        for s in dd["scales"]:
            cands += [(a * s, b), (a, b * s)]
        for s in dd["scales"]:
            for t in dd["scales"]:
                cands.append((a * s, b * t))
        for o in dd["offsets"]:
            cands += [(a + o, b), (a - o, b), (a, b + o), (a, b - o)]
        cands = [(round_to(x, prec), round_to(y, prec)) for x, y in cands]
        picked = [(a, b)]
        for k in rng.permutation(len(cands)):
            c = cands[int(k)]
            if all(np.hypot(c[0] - p[0], c[1] - p[1]) >= dd["min_gap"] for p in picked):
                picked.append(c)
            if len(picked) == self.d["options"]:
                return picked[1:]
        return None

    def make(self, index, rng, why: Counter):
        d = self.d
        letter = self.letters[index % len(self.letters)]
        pool = [it for it in self.hb_order if (it.chain, it.resseq, it.icode, it.protein_atom, it.ligand_atom)
                not in self.used]
        if not pool:
            raise Rejected(f"only {len(self.hb)} H-bond(s) in this complex")
        prec = float(d["precision"])
        chosen = None
        tried = pool[: self.tries()]
        for it in tried:
            reason = self.check_bonds(self.shown, self.specs, [it])
            if reason is None:
                q = self.camera.to_camera(self.midpoint(it)[None])[0]
                if np.hypot(q[0], q[1]) < d["min_offset"]:
                    reason = "H-bond already at the image centre"
                else:
                    a, b = round_to(-q[0], prec), round_to(-q[1], prec)
                    dis = self.distractors(a, b, rng)
                    if dis is None:
                        reason = "distractors too close to each other"
                    else:
                        chosen = (it, q, a, b, dis)
                        break
            why[reason] += 1
        if chosen is None:
            raise Rejected(f"no answerable H-bond among the {len(tried)} unused one(s)")
        it, q, a, b, dis = chosen
        self.used.add((it.chain, it.resseq, it.icode, it.protein_atom, it.ligand_atom))
        order = list(LETTERS[: d["options"]])
        correct = order.index(letter)
        pairs = list(dis)
        pairs.insert(correct, (a, b))
        texts_opt = [format_ops(location_ops(x, y)) for x, y in pairs]
        # replay: the correct option's parsed moves bring the midpoint to the image centre (± rounding)
        m, _ = geometry.compose(parse_ops(texts_opt[correct]), np.asarray(self.centre))
        moved = self.camera.to_camera(geometry.apply(m, self.midpoint(it)[None]))[0]
        assert abs(moved[0]) <= prec / 2 + 1e-9 and abs(moved[1]) <= prec / 2 + 1e-9
        ent = hbond_entry(it)
        donor = "the ligand" if it.donor == "ligand" else "the protein"
        hb_text = (f"ligand atom {it.ligand_atom} and atom {it.protein_atom} of residue "
                   f"{residue_text(it.chain, it.resname, it.resseq, it.icode)} form a hydrogen bond "
                   f"(donor: {donor})")
        texts = [f"the complex seen {prompts.view_text(v)}" for v in d["views"]]
        options_text = "Options:\n" + "\n".join(f"{L}. {t}" for L, t in zip(order, texts_opt))
        question = self.question(texts, hbond=hb_text, options_text=options_text)
        program = {"kind": "location", "hbond": ent, "midpoint_camera_xyz": rnd(q, 3),
                   "ops": [o.as_dict() for o in location_ops(a, b)], "answer_text": texts_opt[correct],
                   "residual_camera_xy": rnd(moved[:2], 3), "precision": prec, "correct": letter,
                   "centre": rnd(self.centre), "view": d["after_view"],
                   "options": [{"letter": L, "text": t, "correct": L == letter} for L, t in zip(order, texts_opt)]}
        return {"question": question, "images": self.specs, "options": texts_opt, "answer": letter,
                "program": program}
