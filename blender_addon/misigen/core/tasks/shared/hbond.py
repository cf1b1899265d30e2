"""What the interaction tasks share (T4 residue–ligand, T9 pocket–ligand, T8 interaction location):
the planner base that checks their H-bonds can be read from the images, their spec keys, and the
H-bond readings of their difficulty (their rationales' readings: ``hbond_rationale.py``).

Ground truth is ``core.interactions.find_interactions`` on the FULL structure (hydrogens
included when present), by the suite's H-bond definition; a spec's ``interaction.kind`` asks
about another kind the finder knows (``kinds.py``). Readability: a sample is kept only when every
name its answer needs is drawn in at least one of its images and every H-bond atom is visible in
at least one.
"""
from __future__ import annotations

import numpy as np

from ...camera import visible_atoms
from ...data_files import load_table
from ...labels import ligand_atom_id, residue_id
from ...rationale.evidence import atom_key
from ...rationale.limits import MAX_NO, SHARED_PROTON, SLOP, acceptor_limit
from .. import kinds
from ..base import Planner
from ..schema import Bool, Enum, Map, rejection

POLAR = ("N", "O")


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


# ------------------------------------------------------------------ spec keys
HB_REJECTION = rejection(require_visible=(Bool(), True), require_labels=(Bool(), True))
INTERACTION = (Map({"kind": (Enum(kinds.NAMES), "hbond")}), {})
KIND_FIELDS = frozenset({"interaction", "interactions", "criteria"})


def hbonds_only(rederive, program_type):
    """Atom-level checks apply to H-bond answers; other interaction kinds name groups, not atoms."""
    def wrapped(rec: dict, sidecar) -> list[str]:
        if program_type.from_dict(rec["program"]).interaction != "hbond":
            return []
        return rederive(rec, sidecar)
    return wrapped


# ------------------------------------------------------------------ rationale readings
def bond_keys(b: dict) -> tuple[str, str]:
    return f"P:{b['chain']}:{b['resseq']}{b['icode']}:{b['protein_atom']}", f"L:{b['ligand_atom']}"


# ------------------------------------------------------------------ difficulty readings
def bond_rows(interaction: str, bonds: list):
    """The answer's atoms in one sidecar (for occlusion): the H-bonds' atoms; without H-bonds (or for
    another interaction kind), every N/O atom."""
    def rows(car: dict) -> list[int]:
        if bonds and interaction == "hbond":
            want = {f"P:{b['chain']}:{b['resseq']}{b['icode']}:{b['protein_atom']}" for b in bonds} | \
                   {f"L:{b['ligand_atom']}" for b in bonds}
            return [i for i, a in enumerate(car["atoms"]) if atom_key(a) in want]
        return [i for i, a in enumerate(car["atoms"]) if a["element"] in POLAR]
    return rows


def hbond_margin(interaction: str, bonds: list, cars: list[dict]) -> float | None:
    """Å left before each H-bond reaches its distance limit (the least); without one, how far the closest
    N/O pair of the first image is beyond the widest limit. None for other interaction kinds."""
    if interaction != "hbond":
        return None
    if bonds:
        margins = []
        for b in bonds:
            if b.get("donor") == "shared":
                lim = SHARED_PROTON
            else:
                got = acceptor_limit(b.get("criterion", ""))
                lim = (got[0] if got else MAX_NO) + SLOP
            margins.append(lim - float(b["distance"]))
        return round(float(min(margins)), 3)
    car = cars[0]
    prot = np.array([a["camera_xyz"] for a in car["atoms"] if not a["ligand"] and a["element"] in POLAR])
    lig = np.array([a["camera_xyz"] for a in car["atoms"] if a["ligand"] and a["element"] in POLAR])
    if not len(prot) or not len(lig):
        return None
    d = float(np.sqrt(((prot[:, None] - lig[None]) ** 2).sum(-1)).min())
    return round(float(d - (MAX_NO + SLOP)), 3)


def list_difficulty(interaction: str, bonds: list, found: list, cars: list[dict]) -> dict:
    """Difficulty of a question about a list of interactions (T4, T9): how many, and the H-bond margin."""
    n = len(bonds or found or [])
    return {"magnitude": n, "n_interactions": n, "hbond_margin": hbond_margin(interaction, bonds, cars),
            "_answer_atoms": bond_rows(interaction, bonds)}


__all__ = ["HBondPlanner", "HB_REJECTION", "INTERACTION", "KIND_FIELDS", "residue_text", "residue_class", "hbonds_only",
           "bond_keys", "hbond_margin", "bond_rows", "list_difficulty"]
