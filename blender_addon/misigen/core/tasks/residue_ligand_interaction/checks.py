"""How T4's answers are checked: re-derived on the sidecars (``validate``), guessed blind (``audit``),
graded (difficulty), and counted for the manifest."""
from __future__ import annotations

from ...quality import difficulty
from ..guessers import HeldOut
from ..rederive import named_atoms_exist, residue_bonds
from ..shared.hbond import list_difficulty
from .program import ResidueProgram

POLAR_SIDE_CHAINS = {"SER", "THR", "ASN", "GLN", "ASP", "GLU", "LYS", "ARG", "HIS", "TYR", "TRP", "CYS"}
GUESSERS = ("majority answer", "residue type (leave-one-out)", "polar side chain says Yes")


def residue_atoms(rec: dict, sidecar) -> list[str]:
    """Every atom a residue answer names is in one of the record's images."""
    bonds = residue_bonds(rec["answer"]) or []
    return named_atoms_exist(rec, sidecar, [({"resname": b["resname"], "name": b["protein_atom"], "ligand": False},
                                             b["ligand_atom"]) for b in bonds])


def residue_question(recs, rows, section, load_image=None) -> None:
    """The majority answer and the residue type's majority, both fitted on held-out questions
    (``HeldOut``), and "a polar side chain says Yes"."""
    yes = [r["answer"] != "No" for r in recs]
    progs = [ResidueProgram.from_dict(r["program"]) for r in recs]
    answers = HeldOut(recs, lambda r: [r["answer"] != "No"])
    by_type = HeldOut(recs, lambda r: [(r["program"]["residue"]["resname"], r["answer"] != "No")])
    for i, (p, y) in enumerate(zip(progs, yes)):
        rows.add("majority answer", answers.majority_credit(i, y, 0.5), 0.5, "prior", fitted=answers.fitted)
        name = p.residue["resname"]
        n_yes, n_no = by_type.count(i, (name, True)), by_type.count(i, (name, False))
        guess = 0.5 if n_yes == n_no else float((n_yes > n_no) == y)
        rows.add("residue type (leave-one-out)", guess, 0.5, "question text", fitted=by_type.fitted)
        rows.add("polar side chain says Yes", float((p.residue["resname"] in POLAR_SIDE_CHAINS) == y),
                 0.5, "question text")
        d = p.min_polar_distance
        if d is not None:
            rows.add("polar atoms within 3.5 Å say Yes (uses geometry)", float((d <= 3.5) == y), 0.5, "info")


def difficulty_part(rec: dict, sidecars: dict) -> dict:
    p = ResidueProgram.from_dict(rec["program"])
    return list_difficulty(p.interaction, p.hbonds or [], p.interactions, difficulty.images(rec, sidecars))


def features(program: dict) -> list:
    p = ResidueProgram.from_dict(program)
    positive = p.positive if "positive" in program else p.has_hbond
    return [("answer", "yes" if positive else "no"), ("resname", p.residue["resname"])]
