"""Protonation at pH 7 of a templated ligand's H counts: acids with pKa well below 7 lose their H."""
from __future__ import annotations


def _acid_kind(rw, k: int, a) -> str | None:
    """Which acid the O-H atom ``k`` belongs to, if its pKa is well below 7."""
    from rdkit import Chem

    heavy = [n for n in a.GetNeighbors() if n.GetAtomicNum() > 1]
    if len(heavy) != 1:
        return None
    p = heavy[0]
    bond = rw.GetBondBetweenAtoms(k, p.GetIdx())
    if bond.GetBondType() != Chem.BondType.SINGLE:
        return None
    double_o = [n for n in p.GetNeighbors() if n.GetSymbol() == "O" and n.GetIdx() != k and
                rw.GetBondBetweenAtoms(p.GetIdx(), n.GetIdx()).GetBondTypeAsDouble() == 2.0]
    if p.GetSymbol() == "C" and double_o and not p.GetIsAromatic():
        return "carboxylic acid"
    if p.GetSymbol() == "P":
        return "phosphate/phosphonate"
    if p.GetSymbol() == "S" and len(double_o) >= 2:
        return "sulfonate/sulfate"
    return None


def deprotonate_acids(rw, templated, h_counts) -> list[str]:
    """Protonation at pH 7 of template H counts: acids with pKa well below 7 lose their H.

    Carboxylic acids (pKa ~4-5), phosphoric/phosphonic acid OH (pKa1 ~2, pKa2 ~6-7; the
    reference types every terminal O on P as an anion) and sulfonic/sulfuric acid OH
    (pKa < 1) become O−. Amines, amidines and guanidines are left to the typing, which
    makes them cationic (N3+, Ng+) as the reference does; everything else keeps the CCD
    template's state (its tautomer and any charges it defines)."""
    notes = []
    for k in sorted(h_counts):
        a = rw.GetAtomWithIdx(k)
        if a.GetSymbol() != "O" or k not in templated or a.GetNumExplicitHs() != 1 or a.GetFormalCharge():
            continue
        kind = _acid_kind(rw, k, a)
        if kind:
            a.SetNumExplicitHs(0)
            a.SetFormalCharge(-1)
            info = a.GetPDBResidueInfo()
            notes.append(f"{info.GetName().strip() if info else k}: deprotonated ({kind})")
    return notes
