"""Structures: reading files into atom tables and building the in-memory complex.

* ``model``: ``Structure``, one protein–ligand complex as flat numpy arrays;
* ``readers``: PDB, mmCIF, SDF and MOL2 files into atom tables;
* ``loader``: from paths to Structures (inputs found, ligand chosen, bonds assigned, pocket cut);
* ``ligand_map``: the ``--ligands`` file (structure id → ligand selector);
* ``duplicates``: inputs that are the same structure under different names;
* ``preload``: the import order Blender's Python needs.
"""
