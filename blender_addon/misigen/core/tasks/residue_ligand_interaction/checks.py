"""How T4's answers are checked: re-derived on the sidecars (``validate``), guessed blind (``audit``),
graded (difficulty), and counted for the manifest."""
from __future__ import annotations

from collections import Counter, defaultdict

from ... import difficulty
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
    """The majority answer, the residue type's majority (leave-one-out) and "a polar side chain says Yes"."""
    yes = [r["answer"] != "No" for r in recs]
    progs = [ResidueProgram.from_dict(r["program"]) for r in recs]
    majority = Counter(yes).most_common(1)[0][0]
    by_type = defaultdict(list)
    for p, y in zip(progs, yes):
        by_type[p.residue["resname"]].append(y)
    for p, y in zip(progs, yes):
        rows.add("majority answer", float(y == majority), 0.5, "prior")
        others = list(by_type[p.residue["resname"]])
        others.remove(y)
        n_yes = sum(others)
        guess = 0.5 if 2 * n_yes == len(others) else float((2 * n_yes > len(others)) == y)
        rows.add("residue type (leave-one-out)", guess, 0.5, "question text")
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
