"""What every residue of a PDB/mmCIF file is besides the ligand (core/structure/model.py ROLES), so that
the pocket can be protein residues: polymer, water, metal, cofactor, additive or another copy."""
from __future__ import annotations

from ...data_files import is_metal
from .groups import excluded_names, het_groups, het_table, polymer_linked


def residue_roles(table, ligand_rows=(), ligand_components=()) -> list[str]:
    """Per table row, what its residue is (core/structure/model.py ROLES): "ligand" (``ligand_rows``),
    "polymer" (ATOM records, and HETATM residues peptide-bonded to the chain: MSE, TPO …),
    "water", "copy" (a residue of one of ``ligand_components``, not the ligand), "metal" (a
    group of metal atoms only), "additive" (named by the exclusion list: non-metal ions, buffers,
    additives, sugars) or "cofactor" (any other HETATM group)."""
    table_h = het_table()
    water = {str(n) for n in table_h["water"]}
    excluded = excluded_names()
    lig = set(ligand_rows)
    components = set(ligand_components)
    protein_rows = [i for i in range(len(table)) if not table.hetero[i]]
    roles = ["polymer"] * len(table)
    for key, rows in het_groups(table).items():
        if key[3] in water:
            role = "water"
        elif all(is_metal(table.element[i]) for i in rows):
            role = "metal"
        elif polymer_linked(table, rows, protein_rows):
            role = "polymer"
        elif key[3] in components:
            role = "copy"
        elif key[3] in excluded:
            role = "additive"
        else:
            role = "cofactor"
        for i in rows:
            roles[i] = role
    for i in lig:
        roles[i] = "ligand"
    return roles
