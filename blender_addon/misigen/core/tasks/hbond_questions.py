"""T4 residue–ligand and T9 pocket–ligand interaction: open questions about hydrogen bonds (or,
per spec, another interaction kind), and the planner base they share with T8
(``interaction_location.py``).

Ground truth is ``core.interactions.find_interactions`` on the FULL structure (hydrogens
included when present); answers list bonds in the finder's order (chain, resseq, icode,
protein atom, ligand atom).

Readability: every view is framed on its own; labels follow answer-independent priorities
(``Planner.label_plan``; T4: the residue's atoms, then the ligand's atoms nearest the
residue), and a sample is kept only when every name its answer needs is drawn in at least
one of its images and every H-bond atom is visible in at least one.
"""
from __future__ import annotations

import math
from collections import Counter

import numpy as np

from ..data_files import load_table
from ..labels import LabelPlan, atom_id, ligand_atom_id, residue_id
from . import kinds, prompts
from .answers import (format_pocket_hbonds, format_residue_answer, format_residues, format_yesno, hbond_entry,
                      residue_entry)
from .base import HETERO, Planner, Unavailable
from .common import COMPLEX, Planned, Rejected, balanced_order, rnd
from . import guessers, rederive
from .. import difficulty
from ..rationale import builders as rationale
from .registry import TaskType
from .schema import REQUIRED, VIEWS, Bool, Enum, List, Map, Num, rejection
from ..camera import visible_atoms


def residue_text(chain, resname, resseq, icode) -> str:
    return f"{resname} {resseq}{icode}" + (f" (chain {chain})" if chain else "")


def residue_class(resname: str) -> str:
    for cls, names in load_table("residue_classes.yaml").items():
        if resname in names:
            return cls
    return "other"


class HBondPlanner(Planner):
    """Shared checks: the H-bond atoms are visible in at least one view and every name the
    answer needs is labelled in at least one view. ``interaction.kind`` (spec) asks about another
    kind the finder knows; its answer is then residue-level (``kinds.py``)."""

    @property
    def kind(self) -> str:
        return self.d["interaction"]["kind"]

    def found(self) -> list:
        """This task's interactions, by its suite's H-bond definition."""
        return self.ctx.interactions(self.kind, self.task.suite.get("hbond_definition"))

    def kind_fields(self) -> dict:
        return {"interaction": kinds.name(self.kind), "interactions": kinds.name(self.kind, True),
                "criteria": kinds.criteria_text(self.kind)}

    def views(self, labels, residues=None, names=None) -> list:
        return [self.view_spec(v, residues=residues, labels=labels) for v in (names or self.d["views"])]

    def visible(self, spec) -> np.ndarray:
        def make():
            shown = self.ctx.shown(spec.parts, spec.residues)
            xyz = self.ctx.posed(spec.ops, spec.parts, spec.residues, spec.centre)
            radii = self.ctx.radii(shown)
            bond_r = self.style["bond_radius"] if self.style["representation"] != "spheres" else 0.0
            return visible_atoms(spec.camera, xyz, radii, shown.bonds, bond_r)
        return self.ctx._memo(("visible", spec.key()), make)

    def unreadable(self, specs, bonds, need_labels: list[str]) -> str | None:
        """Why the sample cannot be answered from its images, or None."""
        rej = self.d["rejection"]
        shown = self.ctx.shown(specs[0].parts, specs[0].residues)
        rows = self.ctx.row_map(shown)
        for it in bonds:
            p, l = rows.get(int(it.protein_index)), rows.get(int(it.ligand_index))
            if p is None or l is None:
                return "H-bond atom not shown"
            if rej["require_visible"] and not (any(self.visible(s)[p] for s in specs)
                                               and any(self.visible(s)[l] for s in specs)):
                return "H-bond atom hidden in every view"
        if rej["require_labels"] and specs[0].labels is not None:
            drawn = set().union(*(self.placed(s) for s in specs))
            missing = [n for n in need_labels if n not in drawn]
            if missing:
                return "label needed by the answer not drawn in any view"
        return None

    def bond_labels(self, bonds, ligand_atoms: bool = True) -> list[str]:
        out = []
        plan = self.label_plan()
        for it in bonds:
            if plan is not None and plan.residues:
                out.append(residue_id(it.chain, it.resseq, it.icode))
            if plan is not None and plan.ligand_atoms and ligand_atoms:
                out += [ligand_atom_id(n) for n in it.partner_atoms()[1]]
        return out

    def residue_label_text(self, it) -> str:
        """How the prompt names a residue, with the label text the images show."""
        plan = self.label_plan()
        label = f"{it.resname} {it.resseq}{it.icode}" + (f".{it.chain}" if plan is not None and plan.chains
                                                           and it.chain else "")
        return f"{residue_text(it.chain, it.resname, it.resseq, it.icode)}, labelled '{label}'"


# ------------------------------------------------------------------ T4
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
        self.count_why = (f"the complex has {self.n_yes_residues} residue(s) with a {kinds.name(self.kind)} to the ligand"
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
        specs = self.views(labels, residues)
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
        question = self.question(texts, labels=labels, shown=shown, residue=rtext,
                                 framing=prompts.framing_text("views"), **self.kind_fields())
        program = {"kind": "residue_hbonds", "residue": {"chain": chain, "resseq": resseq, "icode": icode,
                                                         "resname": info["resname"]},
                   "interaction": self.kind, "positive": bool(entries),
                   "centre": rnd(self.ctx.centre(COMPLEX, residues)),
                   "min_distance": round(info["distance"], 3), "min_polar_distance": round(info["polar_distance"], 3),
                   "negatives": self.d["negatives"]["mode"], "balance_class": {"answer": cls}}
        if self.kind == "hbond":
            program.update({"has_hbond": bool(entries), "hbonds": entries,
                            "equivalent_atoms": self.ctx.ligand_classes()})
        else:
            program.update({"answer_kind": "yesno", "interactions": [b.as_dict() for b in bonds]})
        return Planned(question, specs, answer, program)


def _min_dist(a: np.ndarray, b: np.ndarray) -> float:
    if not len(a) or not len(b):
        return math.inf
    return float(np.sqrt(((a[:, None] - b[None]) ** 2).sum(-1)).min())


# ------------------------------------------------------------------ T9
class PocketPlanner(HBondPlanner):
    def setup(self):
        self.hb = self.found()
        if not self.hb and self.d["without_interactions"][self.split] == "skip":
            raise Unavailable(f"no protein–ligand {kinds.name(self.kind)} in this complex ({self.split} split: "
                              f"complexes without one are skipped)")
        self.labels = self.label_plan()
        self.specs = self.views(self.labels)

    def count(self) -> int:
        return 1

    count_why = "one distinct question per complex"

    def make(self, index, rng, why: Counter) -> Planned:
        hbond = self.kind == "hbond"
        reason = self.unreadable(self.specs, self.hb, self.bond_labels(self.hb, ligand_atoms=hbond))
        if reason:
            why[reason] += 1
            raise Rejected(reason)
        texts = [f"the complex seen {prompts.view_text(v)}" for v in self.d["views"]]
        program = {"kind": "pocket_hbonds", "interaction": self.kind, "centre": rnd(self.ctx.centre())}
        if hbond:
            entries = [hbond_entry(b) for b in self.hb]
            answer = format_pocket_hbonds(entries)
            program.update({"hbonds": entries, "n_hbonds": len(entries),
                            "equivalent_atoms": self.ctx.ligand_classes()})
        else:
            residues = {(b.chain, int(b.resseq), b.icode): residue_entry(b.chain, b.resname, b.resseq, b.icode)
                        for b in self.hb}
            answer = format_residues(list(residues.values()))
            program.update({"answer_kind": "residues", "residues": list(residues.values()),
                            "n_residues": len(residues), "interactions": [b.as_dict() for b in self.hb]})
        question = self.question(texts, labels=self.labels, framing=prompts.framing_text("views"),
                                 **self.kind_fields())
        return Planned(question, self.specs, answer, program)


# ------------------------------------------------------------------ registration
HB_REJECTION = rejection(require_visible=(Bool(), True), require_labels=(Bool(), True))
INTERACTION = (Map({"kind": (Enum(kinds.NAMES), "hbond")}), {})
NEGATIVES = Map({"mode": (Enum(("paper", "matched")), "paper"),
                 "max_distance": (Num(0, positive=True), REQUIRED),
                 "match": (Map({"by": (List(Enum(("resname", "class"))), ["resname", "class"]),
                                "distance_tolerance": (Num(0), 1.0)}), {})})
T4 = {"views": (List(VIEWS), REQUIRED), "interaction": INTERACTION, "negatives": (NEGATIVES, REQUIRED),
      "rejection": (HB_REJECTION, REQUIRED)}
T9 = {"views": (List(VIEWS), REQUIRED), "interaction": INTERACTION,
      "without_interactions": (Map({"train": (Enum(("ask", "skip")), "skip"), "test": (Enum(("ask", "skip")), "ask")}), {}),
      "rejection": (HB_REJECTION, REQUIRED)}


def _t4_features(program: dict) -> list:
    positive = program.get("positive", program.get("has_hbond"))
    return [("answer", "yes" if positive else "no"), ("resname", program["residue"]["resname"])]


def _t9_features(program: dict) -> list:
    if "n_hbonds" in program:
        return [("n_hbonds", str(program["n_hbonds"]))]
    return [("n_residues", str(program["n_residues"]))]


KIND_FIELDS = frozenset({"interaction", "interactions", "criteria"})
TASK_TYPES = (
    TaskType("residue_ligand_interaction", ResiduePlanner, T4, frozenset({"residue", "framing"}) | KIND_FIELDS,
             "residue", features=_t4_features,
             description="Does this residue form hydrogen bonds with the ligand, and which atoms?",
             rederive=rederive.hbonds_only(rederive.residue_atoms), audit=guessers.residue_question,
             guessers=guessers.RESIDUE_GUESSERS, rationale=rationale.residue_hbonds, difficulty=difficulty.hbond_list),
    TaskType("pocket_ligand_interaction", PocketPlanner, T9, frozenset({"framing"}) | KIND_FIELDS, "pocket",
             features=_t9_features, description="List every hydrogen bond between the pocket and the ligand.",
             rederive=rederive.hbonds_only(rederive.pocket_atoms), audit=guessers.list_answers,
             guessers=guessers.LIST_GUESSERS, rationale=rationale.pocket_hbonds, difficulty=difficulty.hbond_list),
)
