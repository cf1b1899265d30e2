"""HETATM ligands of PDB/mmCIF files: which residues form the ligand, and their chemistry.

One module per job:

* ``selectors``: naming a ligand (``RES:CHAIN:NUM[+…]``, ``--ligand``; the ``--ligands`` file is read by
  ``core/structure/ligand_map.py``);
* ``groups``: HETATM residues and the covalent links between them (CONECT, LINK or covalent-radius
  distance) and to the protein;
* ``choice``: which residues are the ligand (``choose_ligand``);
* ``roles``: what every other residue is (``residue_roles``: polymer, water, metal, cofactor,
  additive or another copy of the ligand), so the pocket can be protein residues;
* ``names``: atom names made unique when two residues of a composite share one (``unique_names``);
* ``chemistry``: the RDKit molecule from CCD templates, geometry typing the fallback (``ligand_mol``),
  and reading the CCD once for a run (``prefetch_templates``); ``ph7``: acids deprotonated at pH 7.
"""
from __future__ import annotations

from .chemistry import TEMPLATE_PROP, ligand_mol, prefetch_templates
from .choice import LigandChoice, choose_ligand, protein_contacts
from .groups import protein_links
from .names import unique_names
from .roles import residue_roles
from .selectors import Selector, parse_selectors, residue_id

__all__ = ["TEMPLATE_PROP", "ligand_mol", "prefetch_templates", "LigandChoice", "choose_ligand",
           "protein_contacts", "protein_links", "unique_names", "residue_roles", "Selector", "parse_selectors",
           "residue_id"]
