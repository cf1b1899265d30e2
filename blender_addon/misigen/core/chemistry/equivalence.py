"""Chemically equivalent atom names: one answer however the file names them.

* Protein: the groups of ``data/equivalent_atoms.yaml`` (ASP OD1/OD2, GLU OE1/OE2, ARG NH1/NH2,
  PHE/TYR CD1/CD2 and CE1/CE2); the first name of a group stands for it.
* Ligand: atoms of one symmetry class — equal rank in RDKit's canonical ranking without
  tie-breaking (``Chem.CanonicalRankAtoms(mol, breakTies=False)``), ranked on the ligand's
  heavy-atom graph with bond orders, charges and hydrogens left out, so that resonance forms
  rank alike (the two O of a carboxylate, drawn C=O and C-O⁻, are one class) and stereo is not
  asked (``includeChirality=False``: a phosphate's O1P/O2P beside a stereocentre are one class).
  Classes travel in the records (``program["equivalent_atoms"]``) so that scoring needs no structure.

Answers keep the names the finder found (the atoms the geometry picked, drawn where the images
show them). Everything that compares H-bond answers compares them as multisets of class keys
(``Equivalence.pocket_key``/``residue_key``): naming OD2 for OD1 is the same bond, while a
bidentate pair (amidine N1-OD2 and N2-OD1) stays two bonds.
"""
from __future__ import annotations

import functools

from ..data_files import load_table


@functools.lru_cache(maxsize=None)
def protein_groups() -> dict[str, dict[str, str]]:
    """resname → {atom name → the name that stands for its group} (upper case)."""
    out: dict[str, dict[str, str]] = {}
    for resname, groups in (load_table("equivalent_atoms.yaml") or {}).items():
        for group in groups:
            names = [str(n).upper() for n in group]
            for n in names:
                out.setdefault(str(resname).upper(), {})[n] = names[0]
    return out


def protein_atom_class(resname: str, name: str) -> str:
    """The name standing for ``name``'s group in residue ``resname`` (``name`` itself if none)."""
    name = str(name).upper()
    return protein_groups().get(str(resname).upper(), {}).get(name, name)


def ligand_classes(mol, names) -> list[list[str]]:
    """Symmetry classes of the ligand's heavy atoms with two or more members, as lists of names
    (atom order within a class, classes by their first atom). ``names[k]`` is atom k's name."""
    if mol is None:
        return []
    from rdkit import Chem

    heavy = [a.GetIdx() for a in mol.GetAtoms() if a.GetAtomicNum() > 1]
    local = {k: n for n, k in enumerate(heavy)}
    rw = Chem.RWMol()
    for k in heavy:
        atom = Chem.Atom(mol.GetAtomWithIdx(k).GetAtomicNum())
        atom.SetNoImplicit(True)
        rw.AddAtom(atom)
    for b in mol.GetBonds():
        i, j = b.GetBeginAtomIdx(), b.GetEndAtomIdx()
        if i in local and j in local:
            rw.AddBond(local[i], local[j], Chem.BondType.SINGLE)
    graph = rw.GetMol()
    graph.UpdatePropertyCache(strict=False)
    ranks = list(Chem.CanonicalRankAtoms(graph, breakTies=False, includeChirality=False))
    by_rank: dict[int, list[int]] = {}
    for n, k in enumerate(heavy):
        by_rank.setdefault(ranks[n], []).append(k)
    return [[str(names[k]) for k in v] for v in sorted(by_rank.values()) if len(v) > 1]


def structure_ligand_classes(s) -> list[list[str]]:
    """``ligand_classes`` of a Structure's ligand (its RDKit Mol, atom k ↔ k-th ligand row)."""
    return ligand_classes(s.ligand_mol, s.name[s.ligand].tolist())


class Equivalence:
    """Maps answer atom names to class keys: protein names by the table, ligand names by the
    record's classes."""

    def __init__(self, ligand_classes=()):
        self.ligand = {}
        for group in ligand_classes or ():
            names = [str(n).upper() for n in group]
            for n in names:
                self.ligand[n] = names[0]

    @classmethod
    def of(cls, program: dict | None) -> "Equivalence":
        return cls((program or {}).get("equivalent_atoms") or ())

    def protein(self, resname: str, name: str) -> str:
        return protein_atom_class(resname, name)

    def ligand_atom(self, name: str) -> str:
        name = str(name).upper()
        return self.ligand.get(name, name)

    def pocket_key(self, t: tuple) -> tuple:
        """(resname, resseq, icode, protein atom, chain, ligand atom) → its class key."""
        res, num, ic, patom, chain, latom = t
        return (res, num, ic, self.protein(res, patom), chain, self.ligand_atom(latom))

    def residue_key(self, t: tuple) -> tuple:
        """(resname, protein atom, ligand atom) → its class key."""
        res, patom, latom = t
        return (res, self.protein(res, patom), self.ligand_atom(latom))
