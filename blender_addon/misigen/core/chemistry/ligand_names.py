"""Ligand atom names from a MOL2 file for a ligand read from its SDF.

PDBbind folders ship ``<id>_ligand.sdf`` and ``<id>_ligand.mol2`` with the same atoms;
the SDF is the better chemistry source in RDKit, the MOL2 carries the atom names that
MiSI-Bench answers use (``O1B``, ``O2G``). Names are taken over atom by atom through the
coordinates: every heavy atom of the SDF must have exactly one MOL2 atom of the same
element within ``TOLERANCE`` Å (hydrogens are matched the same way when they can be, else
keep generated names). Any disagreement leaves all generated names and returns why.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

TOLERANCE = 0.05   # Å; both files are written from one model, so anything larger is another pose


def read_mol2_atoms(path: Path) -> tuple[list[str], list[str], np.ndarray]:
    """(names, elements, coordinates) of the first molecule's @<TRIPOS>ATOM block, via RDKit."""
    from rdkit import Chem, RDLogger

    RDLogger.DisableLog("rdApp.*")
    try:
        mol = Chem.MolFromMol2File(str(path), sanitize=False, removeHs=False, cleanupSubstructures=False)
    finally:
        RDLogger.EnableLog("rdApp.*")
    if mol is None or mol.GetNumConformers() == 0:
        raise ValueError("RDKit cannot read the MOL2")
    names = [a.GetProp("_TriposAtomName").strip() if a.HasProp("_TriposAtomName") else "" for a in mol.GetAtoms()]
    elements = [a.GetSymbol() for a in mol.GetAtoms()]
    return names, elements, mol.GetConformer().GetPositions()


def mol2_names_for(mol, mol2_path: Path) -> tuple[list[str] | None, str]:
    """Names for ``mol``'s atoms (in its order) from ``mol2_path``, or (None, reason)."""
    try:
        names2, el2, xyz2 = read_mol2_atoms(mol2_path)
    except (ValueError, OSError) as exc:
        return None, f"{mol2_path.name}: {exc}"
    el1 = [a.GetSymbol() for a in mol.GetAtoms()]
    xyz1 = mol.GetConformer().GetPositions()
    heavy1 = [k for k, e in enumerate(el1) if e not in ("H", "D")]
    heavy2 = [k for k, e in enumerate(el2) if e not in ("H", "D")]
    if len(heavy1) != len(heavy2):
        return None, f"{mol2_path.name} has {len(heavy2)} heavy atoms, the SDF {len(heavy1)}"
    if any(not n for n in names2):
        return None, f"{mol2_path.name} has atoms without names"
    if len({n.upper() for k, n in enumerate(names2) if k in set(heavy2)}) < len(heavy2):
        return None, f"{mol2_path.name} repeats heavy-atom names"
    out: list = [None] * len(el1)
    taken: set = set()
    for k in range(len(el1)):
        d = np.linalg.norm(xyz2 - xyz1[k], axis=1)
        cand = [j for j in np.nonzero(d <= TOLERANCE)[0].tolist() if el2[j] == el1[k]]
        if len(cand) == 1 and cand[0] not in taken:
            out[k] = names2[cand[0]]
            taken.add(cand[0])
        elif k in heavy1:
            return None, (f"heavy atom {k + 1} ({el1[k]}) of the SDF has no single same-element MOL2 atom "
                          f"within {TOLERANCE} Å: the files disagree")
    # hydrogens the MOL2 does not match keep a generated name that no MOL2 name uses
    used = {n.upper() for n in out if n}
    count = 0
    for k, n in enumerate(out):
        if n is None:
            while True:
                count += 1
                cand = f"H{count}"
                if cand.upper() not in used:
                    break
            out[k] = cand
            used.add(cand.upper())
    return out, "ok"
