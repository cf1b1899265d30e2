"""The in-memory structure model: one protein–ligand complex as flat numpy arrays.

Atoms are rows; every per-atom property is an array of the same length, so
selections (pocket, no hydrogens, ...) are a boolean mask plus one ``subset``
call, and the Blender side can write attributes in bulk.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

WATER_NAMES = frozenset({"HOH", "WAT", "H2O", "DOD", "SOL", "TIP", "TIP3", "SPC"})

# What each atom's residue is (``Structure.role``). The pocket and the interaction partners are
# "polymer" residues (protein, modified residues, nucleic acids), plus the roles of POCKET_EXTRAS
# a style chooses (selection.metals / selection.cofactors); "additive" (the exclusion list of
# data/het_groups.yaml: non-metal ions, buffers, additives, sugars) and "copy" (another copy of
# the ligand's component) never are. docs/INTERACTIONS.md "The pocket".
ROLES = ("polymer", "ligand", "water", "metal", "cofactor", "additive", "copy")
POCKET_EXTRAS = {"metals": "metal", "cofactors": "cofactor"}


@dataclass
class Structure:
    id: str
    coords: np.ndarray          # (N, 3) float64, Å, file frame
    element: np.ndarray         # (N,) str, capitalised symbol: "C", "Cl", "Zn"
    name: np.ndarray            # (N,) str atom name ("CA", "O1B")
    resname: np.ndarray         # (N,) str
    resseq: np.ndarray          # (N,) int
    icode: np.ndarray           # (N,) str ("" when none)
    chain: np.ndarray           # (N,) str
    ligand: np.ndarray          # (N,) bool
    hetero: np.ndarray          # (N,) bool: HETATM record (waters, ions, cofactors, the ligand)
    formal_charge: np.ndarray   # (N,) int
    bonds: np.ndarray           # (M, 2) int, i < j, sorted
    bond_order: np.ndarray      # (M,) float: 1, 2, 3 or 1.5 (aromatic)
    sources: tuple = ()         # files the structure came from
    ligand_mol: object = None   # RDKit Mol of the ligand (atom k ↔ k-th ligand row), if any
    meta: dict = field(default_factory=dict)
    role: np.ndarray | None = None   # (N,) str, one of ROLES; None: every non-ligand atom is "polymer"

    # ----------------------------------------------------------- derived views
    @property
    def n_atoms(self) -> int:
        return len(self.coords)

    @property
    def is_hydrogen(self) -> np.ndarray:
        return np.isin(self.element, ("H", "D"))

    @property
    def is_water(self) -> np.ndarray:
        return np.isin(self.resname, tuple(WATER_NAMES))

    def pocket_candidates(self, keep=()) -> np.ndarray:
        """Non-ligand atoms that may be pocket residues and interaction partners: polymer
        residues, plus metals and/or cofactors when ``keep`` names them ("metals", "cofactors").
        Waters are not candidates (the style's selection.waters shows them on its own)."""
        unknown = set(keep) - set(POCKET_EXTRAS)
        if unknown:
            raise ValueError(f"unknown pocket extra(s) {sorted(unknown)}; choose from {sorted(POCKET_EXTRAS)}")
        if self.role is None:
            return ~self.ligand & ~self.is_water
        return np.isin(self.role, ("polymer",) + tuple(POCKET_EXTRAS[k] for k in keep)) & ~self.ligand

    def residue_keys(self) -> list[tuple]:
        """Per-atom residue identity (chain, resseq, icode, resname)."""
        return list(zip(self.chain.tolist(), self.resseq.tolist(), self.icode.tolist(),
                        self.resname.tolist()))

    def residue_index(self) -> np.ndarray:
        """Per-atom integer residue index, in order of first appearance."""
        if not self.n_atoms:
            return np.empty(0, dtype=np.int64)
        key = np.zeros(self.n_atoms, dtype=np.int64)
        for column in (self.chain, self.resseq, self.icode, self.ligand):
            values, code = np.unique(column, return_inverse=True)
            key = key * len(values) + code.reshape(-1)
        _, first, which = np.unique(key, return_index=True, return_inverse=True)
        rank = np.empty(len(first), dtype=np.int64)
        rank[np.argsort(first, kind="stable")] = np.arange(len(first))
        return rank[which.reshape(-1)]

    def neighbours(self) -> list[list[int]]:
        nb: list[list[int]] = [[] for _ in range(self.n_atoms)]
        for i, j in self.bonds.tolist():
            nb[i].append(j)
            nb[j].append(i)
        return nb

    def atom_label(self, i: int) -> str:
        ic = self.icode[i]
        return f"{self.chain[i]}:{self.resname[i]}{self.resseq[i]}{ic}:{self.name[i]}"

    # ----------------------------------------------------------- selections
    def subset(self, mask: np.ndarray) -> "Structure":
        """A new Structure with the atoms where ``mask`` is true, bonds remapped."""
        mask = np.asarray(mask, dtype=bool)
        index = np.full(self.n_atoms, -1, dtype=np.int64)
        index[mask] = np.arange(int(mask.sum()))
        keep = mask[self.bonds[:, 0]] & mask[self.bonds[:, 1]] if len(self.bonds) else np.zeros(0, bool)
        bonds = index[self.bonds[keep]] if len(self.bonds) else np.zeros((0, 2), np.int64)
        ligand_mol = self.ligand_mol
        if ligand_mol is not None and not mask[self.ligand].all():
            ligand_mol = None  # the RDKit ligand no longer matches the ligand rows
        return replace(
            self,
            coords=self.coords[mask], element=self.element[mask], name=self.name[mask],
            resname=self.resname[mask], resseq=self.resseq[mask], icode=self.icode[mask],
            chain=self.chain[mask], ligand=self.ligand[mask], hetero=self.hetero[mask],
            formal_charge=self.formal_charge[mask],
            bonds=bonds.reshape(-1, 2), bond_order=self.bond_order[keep] if len(self.bonds) else np.zeros(0),
            ligand_mol=ligand_mol, meta=dict(self.meta),
            role=self.role[mask] if self.role is not None else None,
        )
