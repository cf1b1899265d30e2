"""Atom names of a (composite) ligand, unique in answers."""
from __future__ import annotations


def unique_names(table, rows, residues) -> tuple[list[str], bool]:
    """Atom names of a (composite) ligand, unique in answers.

    A one-residue ligand keeps its file names. When two residues of a composite share an
    atom name, every atom is prefixed with its residue: the residue name when the names
    differ (``7MG.N1``, ``GDP.O1B``), name and number otherwise (``NAG601.C1``)."""
    names = [table.name[i] for i in rows]
    if len(residues) < 2:
        return names, False
    clash = len({n.upper() for n in names}) < len(names)
    if not clash:
        return names, False
    distinct = len({k[3] for k in residues}) == len(residues)
    out = []
    for i in rows:
        pre = table.resname[i] if distinct else f"{table.resname[i]}{table.resseq[i]}{table.icode[i]}"
        out.append(f"{pre}.{table.name[i]}")
    return out, True
