"""The chemistry of a HETATM ligand: an RDKit molecule with bond orders, formal charges and hydrogen
counts from each residue's wwPDB CCD template (core/chemistry/ccd.py), matched by atom name.

Geometry typing stays the fallback for residues not in the dictionary and for atoms the template
does not describe (not in it, element differs, a template neighbour missing, or within one bond of
a covalent link to the protein, where the reaction changed the chemistry). pH-7 choices:
docs/INTERACTIONS.md "Ligand chemistry" (``ph7.py``).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import bonds as bondlib
from ...data_files import covalent_radius
from ...errors import InputError
from .groups import het_table, protein_links
from .ph7 import deprotonate_acids
from .selectors import residue_id

# Template atom property marking atoms whose chemistry came from the CCD (1) or geometry (0).
TEMPLATE_PROP = "misigen_template"


@dataclass
class _Build:
    """What the residues of one ligand contribute to its molecule (atoms by their index in it)."""
    bonds: dict = field(default_factory=dict)      # (a, b) → order (1, 2, 3)
    report: dict = field(default_factory=dict)     # residue id → how it was typed
    h_counts: dict = field(default_factory=dict)   # atom → template H count (files without H)
    templated: set = field(default_factory=set)    # atoms typed from a template


def _atoms(path, table, rows):
    """An RWMol with one atom per ligand row, in row order, none typed from a template yet."""
    from rdkit import Chem

    rw = Chem.RWMol()
    for i in rows:
        try:
            atom = Chem.Atom(table.element[i])
        except RuntimeError:
            raise InputError(path, f"unknown element {table.element[i]!r} in ligand atom {table.name[i]}") from None
        info = Chem.AtomPDBResidueInfo(table.name[i], residueName=table.resname[i],
                                       residueNumber=int(table.resseq[i]), chainId=table.chain[i])
        atom.SetMonomerInfo(info)
        atom.SetNoImplicit(True)
        atom.SetIntProp(TEMPLATE_PROP, 0)
        rw.AddAtom(atom)
    return rw


def _geometry_residue(build: _Build, key, dist, local, use_ccd: bool) -> None:
    """A residue without a template: single bonds by distance, typed from geometry later."""
    from .. import ccd

    for i, j, _o in dist:
        build.bonds.setdefault(tuple(sorted((local[i], local[j]))), 1)
    build.report[residue_id(key)] = ("geometry (not in the CCD)" if use_ccd and ccd.ccd_path()
                                     else "geometry (no CCD available)" if use_ccd else "geometry (CCD off)")


def _template_bonds(build: _Build, table, comp, by_t: dict, matched: dict, dist, local) -> None:
    """The template's bonds between matched atoms that the file's geometry allows (their orders), then
    single bonds by distance for atoms the template does not know, and hydrogens."""
    for a_t, b_t, order, _arom in comp.bonds:
        if a_t in by_t and b_t in by_t:
            i, j = by_t[a_t], by_t[b_t]
            d = np.linalg.norm(table.coords[i] - table.coords[j])
            if d <= covalent_radius(table.element[i]) + covalent_radius(table.element[j]) + bondlib.BOND_TOLERANCE:
                build.bonds[tuple(sorted((local[i], local[j])))] = order
    for i, j, _o in dist:
        if i not in matched or j not in matched:
            build.bonds.setdefault(tuple(sorted((local[i], local[j]))), 1)


def _template_residue(build: _Build, rw, table, key, res_rows, comp, dist, local, prot_links) -> None:
    """A residue with a CCD template: bonds, charges and H counts from it, for the atoms it describes."""
    heavy = [i for i in res_rows if table.element[i] not in ("H", "D")]
    matched = {}
    for i in heavy:
        k = comp.index(table.name[i])
        if k is not None and comp.elements[k] == table.element[i]:
            matched[i] = k
    tnb = comp.neighbours()
    by_t = {k: i for i, k in matched.items()}
    is_h_t = [e in ("H", "D") for e in comp.elements]
    complete = {i for i, k in matched.items()
                if not [m for m in tnb[k] if not is_h_t[m] and m not in by_t and not comp.leaving[m]]}
    _template_bonds(build, table, comp, by_t, matched, dist, local)
    file_h = any(table.element[i] in ("H", "D") for i in res_rows)
    for i, k in matched.items():
        rw.GetAtomWithIdx(local[i]).SetFormalCharge(int(comp.charges[k]))
        if not file_h:
            build.h_counts[local[i]] = sum(1 for m in tnb[k] if is_h_t[m])
    near_link = {l_ for _p, l_ in prot_links}
    good = {i for i in complete if i not in near_link}
    # atoms bonded to a protein-linked atom: the reaction may have changed their bonds too
    for _p, l_ in prot_links:
        for i, k in matched.items():
            if any(by_t.get(m) == l_ for m in tnb[k]):
                good.discard(i)
    build.templated |= {local[i] for i in good}
    n_t = sum(1 for e in comp.elements if e not in ("H", "D"))
    note = f"CCD template: {len(good)}/{len(heavy)} heavy atoms typed from it ({n_t} in the template)"
    off = sorted(table.name[i] for i in heavy if i not in good)
    if off:
        note += "; geometry for " + " ".join(off)
    build.report[residue_id(key)] = note


def _link_residues(build: _Build, internal_links, local) -> None:
    """Links between the residues of a composite: single bonds; each replaces a template H."""
    for a, b in internal_links:
        la, lb = local[a], local[b]
        build.bonds[tuple(sorted((la, lb)))] = 1
        for x in (la, lb):
            if build.h_counts.get(x, 0) > 0:
                build.h_counts[x] -= 1


def _assemble(rw, build: _Build) -> list[str]:
    """Bonds, template marks and H counts onto the atoms, then the pH-7 acids; returns their notes."""
    from rdkit import Chem

    for (a, b), order in sorted(build.bonds.items()):
        rw.AddBond(a, b, {1: Chem.BondType.SINGLE, 2: Chem.BondType.DOUBLE,
                          3: Chem.BondType.TRIPLE}.get(order, Chem.BondType.SINGLE))
    for k in build.templated:
        rw.GetAtomWithIdx(k).SetIntProp(TEMPLATE_PROP, 1)
    for k, n in build.h_counts.items():
        rw.GetAtomWithIdx(k).SetNumExplicitHs(max(0, n))
    return deprotonate_acids(rw, build.templated, build.h_counts)


def _molecule(rw, table, rows, build: _Build):
    """The molecule with the file's coordinates. A templated one RDKit cannot sanitise (the template
    does not fit what the file shows) is typed from geometry instead: ``build.templated`` emptied."""
    from rdkit import Chem, RDLogger
    from rdkit.Geometry import Point3D

    conf = Chem.Conformer(len(rows))
    for k, row in enumerate(rows):
        conf.SetAtomPosition(k, Point3D(*map(float, table.coords[row])))
    conf.Set3D(True)
    mol = rw.GetMol()
    mol.AddConformer(conf, assignId=True)
    mol.UpdatePropertyCache(strict=False)
    RDLogger.DisableLog("rdApp.*")
    try:
        problem = Chem.SanitizeMol(Chem.Mol(mol), catchErrors=True) if build.templated else None
    finally:
        RDLogger.EnableLog("rdApp.*")
    if build.templated and problem != Chem.SanitizeFlags.SANITIZE_NONE:
        for a in mol.GetAtoms():
            a.SetIntProp(TEMPLATE_PROP, 0)
        build.report["fallback"] = f"RDKit rejected the templated molecule ({problem.name}); geometry typing"
        build.templated = set()
    return mol


def _atom_id(table, i) -> list:
    return [table.chain[i], int(table.resseq[i]), table.icode[i], table.resname[i], table.name[i]]


def _meta(table, choice, build: _Build, ph_notes, prot_links) -> dict:
    from .. import ccd

    meta = {
        "ligand_chemistry": ccd.ccd_source() if build.templated else "geometry",
        "ligand_residues": [residue_id(k) for k in choice.residues],
        "ligand_choice": choice.how,
        "ligand_templates": build.report,
    }
    if ph_notes:
        meta["ligand_ph7"] = ph_notes
    if prot_links:
        meta["covalent_links"] = [[_atom_id(table, p), _atom_id(table, l_)] for p, l_ in prot_links]
    if choice.internal_links:
        meta["ligand_links"] = [[_atom_id(table, a), _atom_id(table, b)] for a, b in choice.internal_links]
    return meta


def ligand_mol(path, table, choice, conect=(), links=(), use_ccd=True):
    """RDKit Mol of the ligand (atom k ↔ choice.rows[k]), whether any atom is typed from a template,
    and a report for structure.meta. Atoms typed from a template carry the int property
    TEMPLATE_PROP = 1."""
    from .. import ccd

    rows = choice.rows
    local = {row: k for k, row in enumerate(rows)}
    rw = _atoms(path, table, rows)
    by_res: dict = {}
    for i in rows:
        by_res.setdefault((table.chain[i], table.resseq[i], table.icode[i], table.resname[i]), []).append(i)
    templates = ccd.components({k[3] for k in choice.residues}) if use_ccd else {}
    prot_links = protein_links(table, rows, links)
    build = _Build()
    for key in choice.residues:
        res_rows = by_res[key]
        comp = templates.get(key[3])
        dist = bondlib.distance_bonds(table.coords, table.element, np.asarray(res_rows, dtype=np.int64))
        if comp is None:
            _geometry_residue(build, key, dist, local, use_ccd)
        else:
            _template_residue(build, rw, table, key, res_rows, comp, dist, local, prot_links)
    _link_residues(build, choice.internal_links, local)
    ph_notes = _assemble(rw, build)
    mol = _molecule(rw, table, rows, build)
    return mol, bool(build.templated), _meta(table, choice, build, ph_notes, prot_links)


def prefetch_templates(sources) -> int:
    """Read the CCD once for the HETATM residues of many PDB inputs (a run's structures), so
    each structure does not pay a pass of its own. Returns how many names were asked for.
    mmCIF inputs are left to the per-structure read."""
    from .. import ccd

    water = {str(n) for n in het_table()["water"]}
    names: set[str] = set()
    for src in sources:
        path = getattr(src, "protein", src)
        if getattr(src, "ligand", None) is not None or str(path).lower().endswith((".cif", ".mmcif")):
            continue
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                for line in fh:
                    if line.startswith("HETATM"):
                        name = line[17:20].strip()
                        if name and name not in water:
                            names.add(name)
        except OSError:
            continue
    if names and ccd.ccd_path():
        ccd.components(names)
    return len(names)
