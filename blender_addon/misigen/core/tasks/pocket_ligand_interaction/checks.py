"""How T9's answers are checked: re-derived on the sidecars (``validate``), guessed blind (``audit``),
graded (difficulty), and counted for the manifest."""
from __future__ import annotations

from ...quality import difficulty
from ..guessers import HeldOut
from ..rederive import named_atoms_exist, pocket_bonds
from ..shared.hbond import list_difficulty
from .program import PocketProgram

GUESSERS = ("majority answer",)


def pocket_atoms(rec: dict, sidecar) -> list[str]:
    """Every atom a pocket answer names is in one of the record's images."""
    bonds = pocket_bonds(rec["answer"]) or []
    return named_atoms_exist(rec, sidecar, [({"chain": b["chain"], "resseq": b["resseq"], "icode": b["icode"] or None,
                                              "resname": b["resname"], "name": b["protein_atom"], "ligand": False},
                                             b["ligand_atom"]) for b in bonds])


def list_answers(recs, rows, section, load_image=None) -> None:
    """How often the list is empty, and the majority answer fitted on held-out questions (informational)."""
    section["answered_no"] = sum(1 for r in recs if r["answer"] == "No")
    answers = HeldOut(recs, lambda r: [r["answer"]])
    for i, r in enumerate(recs):
        rows.add("majority answer", answers.majority_credit(i, r["answer"], 0.0), None, "info", fitted=answers.fitted)


def difficulty_part(rec: dict, sidecars: dict) -> dict:
    p = PocketProgram.from_dict(rec["program"])
    return list_difficulty(p.interaction, p.hbonds or [], p.interactions, difficulty.images(rec, sidecars))


def features(program: dict) -> list:
    p = PocketProgram.from_dict(program)
    if p.n_hbonds is not None:
        return [("n_hbonds", str(p.n_hbonds))]
    return [("n_residues", str(p.n_residues))]
