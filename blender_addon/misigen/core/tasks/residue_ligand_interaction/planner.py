"""T4's planner: one residue near the ligand per question, Yes and No in equal numbers; a No residue
is within ``negatives.max_distance`` of the ligand, or (``negatives.mode: matched``) of the same type
or class at a similar distance from the ligand's polar atoms as a Yes residue.

Labels follow answer-independent priorities: the residue's atoms, then the ligand's atoms nearest
the residue.
"""
from __future__ import annotations

import math
from collections import Counter

import numpy as np

from ...chemistry.interactions import KINDS
from ...scene.labels import LabelPlan, atom_id, ligand_atom_id
from .. import prompts
from ..answers import format_residue_answer, format_yesno, hbond_entry
from ..base import HETERO
from ..common import COMPLEX, Planned, Rejected, balanced_order, rnd
from ..shared.hbond import HBondPlanner, residue_class, residue_text
from .program import ResidueProgram


class ResiduePlanner(HBondPlanner):
    def setup(self):
        ctx, d = self.ctx, self.d
        self.hb = self.found()
        shown = ctx.shown(COMPLEX)
        lig = shown.ligand & ~shown.is_hydrogen
        lig_polar = lig & np.isin(shown.element, HETERO)
        by_res: dict = {}
        for it in self.hb:
            by_res.setdefault((it.chain, int(it.resseq), it.icode), []).append(it)
        self.by_res = by_res
        residues = {}
        for key in dict.fromkeys(zip(shown.chain[~shown.ligand].tolist(), shown.resseq[~shown.ligand].tolist(),
                                     shown.icode[~shown.ligand].tolist())):
            rows = (shown.chain == key[0]) & (shown.resseq == key[1]) & (shown.icode == key[2]) & ~shown.ligand
            rows &= ~shown.is_hydrogen & ~shown.is_water
            if not rows.any():
                continue
            d_heavy = _min_dist(shown.coords[rows], shown.coords[lig])
            polar = rows & np.isin(shown.element, HETERO)
            d_polar = _min_dist(shown.coords[polar], shown.coords[lig_polar]) if lig_polar.any() else d_heavy
            residues[key] = {"resname": str(shown.resname[rows][0]), "distance": d_heavy, "polar_distance": d_polar}
        self.residues = residues
        yes = [k for k in residues if k in by_res]
        no = [k for k, v in residues.items() if k not in by_res and v["distance"] <= d["negatives"]["max_distance"]]
        n = self.task.samples(self.split)
        first = balanced_order(["yes", "no"], self.srng)[0]
        yes = [yes[int(k)] for k in self.srng.permutation(len(yes))]
        no = [no[int(k)] for k in self.srng.permutation(len(no))]
        if d["negatives"]["mode"] == "matched":
            pairs = self.matched_pairs(yes, no)
            yes, no = [p[0] for p in pairs], [p[1] for p in pairs]
        # As many Yes as No (an odd count gets one extra of a class drawn per complex, only when both
        # classes could have it), so the answer distribution stays balanced whatever the complex.
        k_yes = k_no = min(len(yes), len(no), n // 2)
        if n % 2 and len(yes) > k_yes and len(no) > k_no:
            k_yes, k_no = (k_yes + 1, k_no) if first == "yes" else (k_yes, k_no + 1)
        seq, ys, ns = [], list(yes[:k_yes]), list(no[:k_no])
        turn = first
        while ys or ns:
            if (turn == "yes" and ys) or not ns:
                seq.append(("yes", ys.pop(0)))
            else:
                seq.append(("no", ns.pop(0)))
            turn = "no" if turn == "yes" else "yes"
        self.seq = seq
        self.n_yes_residues = len([k for k in residues if k in by_res])
        self.count_why = (f"the complex has {self.n_yes_residues} residue(s) with a {KINDS[self.kind].noun} to the ligand"
                          + (" that have a matched negative" if d["negatives"]["mode"] == "matched" else "")
                          + f" and {len([k for k in residues if k not in by_res])} without; Yes and No questions "
                          "are made in equal numbers")

    def matched_pairs(self, yes, no) -> list[tuple]:
        """Each Yes residue with a No residue of the same type (else class) at a similar distance from
        the ligand's polar atoms, drawn at random among those within the tolerance."""
        m = self.d["negatives"]["match"]
        tol = float(m["distance_tolerance"])
        pairs, free = [], list(no)
        for y in yes:
            ry = self.residues[y]
            for level in m["by"]:
                same = (lambda k: self.residues[k]["resname"] == ry["resname"]) if level == "resname" else \
                    (lambda k: residue_class(self.residues[k]["resname"]) == residue_class(ry["resname"]))
                cands = [k for k in free if same(k) and abs(self.residues[k]["polar_distance"]
                                                             - ry["polar_distance"]) <= tol]
                if cands:
                    pick = cands[int(self.srng.integers(len(cands)))]
                    free.remove(pick)
                    pairs.append((y, pick, level))
                    break
        return [(a, b) for a, b, _ in pairs]

    def count(self) -> int:
        return len(self.seq)

    def label_plan_for(self, res) -> LabelPlan | None:
        if not self.d["labels"] or not self.style["labels"]["enabled"]:
            return None
        shown = self.ctx.shown(COMPLEX, (res,))
        prot = ~shown.ligand & ~shown.is_hydrogen
        lig = np.nonzero(shown.ligand & ~shown.is_hydrogen)[0]
        first = [atom_id(shown.chain[i], shown.resseq[i], shown.icode[i], shown.name[i]) for i in np.nonzero(prot)[0]]
        d = np.sqrt(((shown.coords[lig][:, None] - shown.coords[prot][None]) ** 2).sum(-1)).min(axis=1)
        hetero = np.isin(shown.element[lig], HETERO)
        order = sorted(range(len(lig)), key=lambda k: (not hetero[k], d[k], k))
        first += [ligand_atom_id(shown.name[lig[k]]) for k in order]
        return LabelPlan(residues=False, ligand_atoms=True, residue_atoms=(res,), first=tuple(first))

    def make(self, index, rng, why: Counter) -> Planned:
        cls, res = self.seq[index]
        residues = (res,)
        labels = self.label_plan_for(res)
        specs = self.views(labels, residues, pose=self.hiding_pose(self.contact_rows(residues, math.inf), residues))
        bonds = self.by_res.get(res, [])
        shown = self.ctx.shown(COMPLEX, residues)
        need = [atom_id(res[0], res[1], res[2], n) for n in shown.name[~shown.ligand & ~shown.is_hydrogen]]
        if self.kind == "hbond":
            need += [ligand_atom_id(b.ligand_atom) for b in bonds]
        reason = self.unreadable(specs, bonds, need if labels is not None else [])
        if reason:
            why[reason] += 1
            raise Rejected(f"residue {res} ({cls}) cannot be answered from its images: {reason}")
        entries = [hbond_entry(b) for b in bonds]
        answer = format_residue_answer(entries) if self.kind == "hbond" else format_yesno(bool(bonds))
        info = self.residues[res]
        chain, resseq, icode = res
        rtext = residue_text(chain, info["resname"], resseq, icode)
        texts = [f"residue {rtext} and the ligand seen {prompts.view_text(v)}" for v in self.d["views"]]
        question = self.question(texts, labels=labels, shown=shown, residue=rtext, labels_extra=self.labels_note(),
                                 framing=prompts.framing_text("views"), **self.kind_fields())
        hbond = self.kind == "hbond"
        program = ResidueProgram(
            residue={"chain": chain, "resseq": resseq, "icode": icode, "resname": info["resname"]},
            interaction=self.kind, positive=bool(entries), centre=rnd(self.ctx.centre(COMPLEX, residues)),
            min_distance=round(info["distance"], 3), min_polar_distance=round(info["polar_distance"], 3),
            negatives=self.d["negatives"]["mode"], balance_class={"answer": cls},
            has_hbond=bool(entries) if hbond else None, hbonds=entries if hbond else None,
            equivalent_atoms=self.ctx.ligand_classes() if hbond else None,
            answer_kind=None if hbond else "yesno", interactions=None if hbond else [b.as_dict() for b in bonds])
        return Planned(question, specs, answer, program.as_dict())


def _min_dist(a: np.ndarray, b: np.ndarray) -> float:
    if not len(a) or not len(b):
        return math.inf
    return float(np.sqrt(((a[:, None] - b[None]) ** 2).sum(-1)).min())
