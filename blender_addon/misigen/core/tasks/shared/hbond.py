"""What the interaction tasks share (T4 residue–ligand, T9 pocket–ligand, T8 interaction location):
the planner base that checks their H-bonds can be read from the images, their spec keys, and the
H-bond readings of their difficulty (their rationales' readings: ``hbond_rationale.py``).

Ground truth is ``core.chemistry.interactions.find_interactions`` on the FULL structure (hydrogens
included when present), by the suite's H-bond definition; a spec's ``interaction.kind`` asks
about another kind the finder knows (``core.chemistry.interactions.KINDS``, whose words and criteria
the prompts state, so a prompt never disagrees with the ground truth). H-bonds keep MiSI-Bench's
atom-level answers; the other kinds are asked at the residue level (T4 ``Yes`` / ``No``, T9 a list of
residues ``ASP 189 A; LYS 70 A`` or ``No``), because their partners are groups (rings, charged groups)
that labels cannot name one by one. Readability: a sample is kept only when every name its answer
needs is drawn in at least one of its images and every H-bond atom is visible in at least one.
"""
from __future__ import annotations

import numpy as np

from ...chemistry.interactions import INTERACTION_KINDS, KINDS
from ...scene.camera import visible_atoms
from ...data_files import load_table
from ...scene.labels import ligand_atom_id, residue_id
from ...op_grammar import Op
from ...rationale.evidence import atom_key
from ...rationale.limits import MAX_NO, SHARED_PROTON, SLOP, acceptor_limit
from ..base import Planner
from ..schema import Bool, Enum, Map, knob, rejection

POLAR = ("N", "O")
CONTACT_POLAR = 4.0      # Å: the pocket's contact atoms (protein N/O this close to a ligand heavy atom)
# ``occlusion: high``: candidate start poses, (roll y, then roll x) in degrees; the identity first, and
# turns under 45° only (beyond, the six views repeat as a set)
POSES = tuple((a, b) for a in (0, 15, 30, 45) for b in (0, 15, 30, 45))


def pose_ops(roll_y: float, roll_x: float) -> list:
    """A start pose: roll y, then roll x (degrees; a zero turn is left out)."""
    return [Op("roll", ax, float(v)) for ax, v in (("y", roll_y), ("x", roll_x)) if v]


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
    kind the finder knows; its answer is then residue-level (module docstring)."""

    @property
    def kind(self) -> str:
        return self.d["interaction"]["kind"]

    def found(self) -> list:
        """This task's interactions, by its suite's H-bond definition."""
        return self.ctx.interactions(self.kind, self.task.settings.hbond_definition)

    def kind_fields(self) -> dict:
        kind = KINDS[self.kind]
        return {"interaction": kind.noun, "interactions": kind.plural, "criteria": kind.criteria_text()}

    def views(self, labels, residues=None, names=None, pose=()) -> list:
        """The question's views of the start ``pose``; under ``labels: sparse`` only every other view
        (images 1, 3, 5, …) carries labels, the same ones whatever the answer."""
        sparse = knob(self.d, "labels") == "sparse"
        return [self.view_spec(v, residues=residues, labels=None if sparse and k % 2 else labels, pose=pose)
                for k, v in enumerate(names or self.d["views"])]

    def labels_note(self) -> str:
        """What the prompt adds under ``labels: sparse`` (nothing otherwise)."""
        if knob(self.d, "labels") != "sparse":
            return ""
        imgs = [str(k + 1) for k in range(0, len(self.d["views"]), 2)]
        which = imgs[0] if len(imgs) == 1 else f"{', '.join(imgs[:-1])} and {imgs[-1]}"
        return (f" Labels are drawn in image{'s' if len(imgs) > 1 else ''} {which} only; the other images "
                "show the same atoms unlabelled.")

    def hiding_pose(self, rows, residues=None) -> list:
        """``occlusion: high``: the start pose (``POSES``) whose views hide the most of the atoms
        ``rows`` (of the shown structure; chosen without the answer) on average; else none."""
        if knob(self.d, "occlusion") != "high" or not len(rows):
            return []
        best, best_ops = -1.0, []
        for a, b in POSES:
            ops = pose_ops(a, b)
            specs = [self.view_spec(v, residues=residues, labels=None, pose=ops) for v in self.d["views"]]
            hidden = float(np.mean([1.0 - self.visible(s)[rows].mean() for s in specs]))
            if hidden > best + 1e-9:
                best, best_ops = hidden, ops
        return best_ops

    def contact_rows(self, residues=None, within: float = CONTACT_POLAR) -> np.ndarray:
        """Rows of the atoms an interaction answer could name, whatever it is: the ligand's N/O and the
        protein N/O within ``within`` Å of a ligand heavy atom (T4: every N/O of its residue)."""
        shown = self.ctx.shown(residues=residues)
        lig = shown.ligand & ~shown.is_hydrogen
        polar = np.isin(shown.element, POLAR) & ~shown.is_water
        prot = np.nonzero(~shown.ligand & polar)[0]
        near = np.zeros(shown.n_atoms, bool)
        if len(prot) and lig.any():
            d = np.sqrt(((shown.coords[prot][:, None] - shown.coords[lig][None]) ** 2).sum(-1)).min(axis=1)
            near[prot[d <= within]] = True
        return np.nonzero(near | (lig & polar))[0]

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
# labels: sparse (labels in every other view only) and occlusion: high (the start pose that hides the
# answer-free candidate atoms most): what the interaction tasks' ``difficulty:`` block may set
HB_KNOBS = ("labels", "occlusion")
INTERACTION = (Map({"kind": (Enum(INTERACTION_KINDS), "hbond")}), {})
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


__all__ = ["HBondPlanner", "HB_REJECTION", "HB_KNOBS", "POSES", "pose_ops", "INTERACTION", "KIND_FIELDS", "residue_text",
           "residue_class", "hbonds_only", "bond_keys", "hbond_margin", "bond_rows", "list_difficulty"]
