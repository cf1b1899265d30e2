"""Chemistry of a structure: bonds, ligand chemistry, equivalent atoms and interactions.

* ``bonds``: bonds of protein and other residues (templates, links, distance fallback);
* ``ccd``: templates from the wwPDB Chemical Component Dictionary;
* ``ligand/``: which HETATM residues are the ligand, and their chemistry;
* ``ligand_names``: MOL2 atom names for a ligand read from its SDF;
* ``equivalence``: chemically equivalent atom names, one answer however a file names them;
* ``interactions/``: protein–ligand interactions (H-bonds and the other kinds).
"""
