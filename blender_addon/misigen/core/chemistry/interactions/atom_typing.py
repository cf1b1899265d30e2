"""Donor/acceptor-relevant atom typing (IDATM-like types) for a Structure.

Three sources, in this order of preference:
1. standard residues: template types (data/interactions/atom_types.yaml), with
   protonation variants (His tautomer, Asp/Glu acid, neutral Lys) resolved from
   explicit hydrogens when the residue has any;
2. the ligand from an SDF/MOL2 file: RDKit's perception (hybridisation,
   aromaticity, formal charge, bonded H) mapped onto the same type names;
3. HETATM ligands and non-standard residues: geometry-based typing
   (geometry_typing.py).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np

from ...data_files import is_metal, load_table
from .. import bonds as bondlib
from .definitions import resolve
from .geometry_typing import apply_charge_pass, geometry_types

HIS_NAMES = {"HIS", "HID", "HIE", "HIP", "HSD", "HSE", "HSP"}


@functools.lru_cache(maxsize=None)
def type_table() -> dict:
    return load_table("interactions/atom_types.yaml")


def type_geometry(t: str) -> int:
    """1 single, 2 linear, 3 planar, 4 tetrahedral, 0 unknown (not in the info map)."""
    return type_table()["types"].get(t, [0, 0])[0]


def type_subs(t: str) -> int:
    return type_table()["types"].get(t, [0, 0])[1]


@dataclass
class Typed:
    """A structure with per-atom types, neighbour lists and rings (for the active atoms)."""
    s: object
    types: np.ndarray                 # (N,) object: type name, "" if not typed
    nb: list                          # all bonded neighbours
    heavy_nb: list
    h_nb: list
    rings: list                       # tuples of atom rows (intra-residue smallest rings)
    atom_rings: dict                  # row -> list of ring indices
    aromatic_ring: list               # bool per ring: every C is Car
    skip: np.ndarray                  # (N,) bool: truncated standard-residue atoms
    metal: np.ndarray                 # (N,) bool
    active: np.ndarray                # (N,) bool: atoms the finder looks at
    notes: dict = field(default_factory=dict)
    definition: str = "chimerax"      # the H-bond definition (definitions.py) ...
    rules: dict = field(default_factory=dict)   # ... and its switches

    def geom(self, i: int) -> int:
        return type_geometry(self.types[i])

    def is_tet(self, i: int) -> bool:
        return type_geometry(self.types[i]) == 4

    def explicit_single(self, i: int) -> bool:
        """Tetrahedral or a single-geometry atom (H)."""
        return type_geometry(self.types[i]) in (1, 4)

    def in_aromatic_ring(self, i: int) -> bool:
        return any(self.aromatic_ring[k] for k in self.atom_rings.get(i, []))


def _smallest_rings(atoms, nb, max_size=8) -> list[tuple]:
    """Smallest ring through each bond, among ``atoms`` (heavy atoms of one residue)."""
    aset = set(atoms)
    found: dict = {}
    for u in atoms:
        for v in nb[u]:
            if v <= u or v not in aset:
                continue
            # BFS from u to v without the edge u-v
            prev = {u: None}
            frontier = [u]
            depth = 0
            hit = False
            while frontier and depth < max_size - 1 and not hit:
                nxt = []
                for a in frontier:
                    for b in nb[a]:
                        if b not in aset or b in prev or (a == u and b == v):
                            continue
                        prev[b] = a
                        if b == v:
                            hit = True
                            break
                        nxt.append(b)
                    if hit:
                        break
                frontier = nxt
                depth += 1
            if hit:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                key = frozenset(path)
                if key not in found:
                    found[key] = tuple(path)
    return sorted(found.values(), key=lambda r: (len(r), sorted(r)))


def _rdkit_carbon(a, heavy, hyb, arom, HY) -> str:
    if arom:
        return "Car"
    if hyb == HY.SP3:
        return "C3"
    if hyb == HY.SP:
        return "C1"
    free_o = [n for n in heavy if n.GetSymbol() == "O" and n.GetDegree() == 1 and n.GetTotalNumHs(includeNeighbors=True) == 0]
    return "Cac" if len(free_o) >= 2 else "C2"


def _rdkit_nitrogen(a, heavy, hyb, arom, HY, q, n_h, deg, Chem) -> str:
    n_o = [n for n in heavy if n.GetSymbol() == "O" and len([m for m in n.GetNeighbors() if m.GetAtomicNum() > 1]) == 1]
    if arom:
        if deg >= 3:
            return "N2+" if q > 0 else "Npl"
        return "N2"
    if len(n_o) >= 2 and len(heavy) == 3:
        return "Ntr"
    if hyb == HY.SP:
        return "N1" if len(heavy) + n_h == 1 else "N1+"
    if hyb == HY.SP3 or (q > 0 and deg == 4):
        return "N3+" if q > 0 else "N3"
    double = any(b.GetBondType() == Chem.BondType.DOUBLE for b in a.GetBonds())
    if double:
        return "N2+" if q > 0 and deg == 3 else "N2"
    return "Npl"


def _rdkit_oxygen(a, heavy, arom, q, n_h, mol, Chem) -> str:
    if arom:
        return "Oar+" if q > 0 else "Oar"
    if not (len(heavy) == 1 and n_h == 0):
        return "O3"
    p = heavy[0]
    ps = p.GetSymbol()
    p_free_o = sum(1 for n in p.GetNeighbors() if n.GetSymbol() == "O" and n.GetDegree() == 1)
    bond = mol.GetBondBetweenAtoms(a.GetIdx(), p.GetIdx())
    if ps in ("P", "S") and p.GetDegree() >= 3:
        return "O3-"
    if ps == "N" and p_free_o >= 2:
        return "O2-"
    if ps == "N" and p.GetFormalCharge() > 0 and bond.GetBondType() == Chem.BondType.SINGLE:
        return "O3-"
    if ps == "C" and p_free_o >= 2 and not p.GetIsAromatic():
        return "O2-"
    if bond.GetBondType() == Chem.BondType.DOUBLE:
        return "O2"
    if bond.GetBondType() == Chem.BondType.TRIPLE:
        return "O1+"
    return "O3"


def _rdkit_sulfur(a, heavy, arom, q, n_h, deg, mol, Chem) -> str:
    n_free_o = sum(1 for n in heavy if n.GetSymbol() == "O" and n.GetDegree() == 1)
    if arom:
        return "Sar"
    if deg >= 4:
        return "Sac" if n_free_o >= 3 else "Son" if n_free_o >= 1 else "S"
    if deg == 3:
        return "Sxd" if any(n.GetSymbol() == "O" for n in heavy) else "S3+"
    if len(heavy) == 1 and n_h == 0:
        p = heavy[0]
        bond = mol.GetBondBetweenAtoms(a.GetIdx(), p.GetIdx())
        if p.GetSymbol() == "P":
            return "S3-"
        if bond.GetBondType() == Chem.BondType.DOUBLE:
            return "S2"
        return "S3-" if q < 0 else "S3"
    return "S3"


def _rdkit_type(a, mol, Chem) -> str:
    """One atom's type from RDKit's perception (hybridisation, aromaticity, charge, bonded H)."""
    HY = Chem.rdchem.HybridizationType
    e = a.GetSymbol()
    hyb = a.GetHybridization()
    arom = a.GetIsAromatic()
    q = a.GetFormalCharge()
    heavy = [n for n in a.GetNeighbors() if n.GetAtomicNum() > 1]
    n_h = a.GetTotalNumHs(includeNeighbors=True)
    deg = len(heavy) + n_h
    if e in ("H", "D"):
        return "HC" if any(n.GetSymbol() == "C" for n in a.GetNeighbors()) else "H"
    if e == "C":
        return _rdkit_carbon(a, heavy, hyb, arom, HY)
    if e == "N":
        return _rdkit_nitrogen(a, heavy, hyb, arom, HY, q, n_h, deg, Chem)
    if e == "O":
        return _rdkit_oxygen(a, heavy, arom, q, n_h, mol, Chem)
    if e == "S":
        return _rdkit_sulfur(a, heavy, arom, q, n_h, deg, mol, Chem)
    if e == "P":
        n_free_o = sum(1 for n in heavy if n.GetSymbol() == "O" and n.GetDegree() == 1)
        return "Pac" if n_free_o >= 2 else "Pox" if n_free_o == 1 else "P3+"
    return e


def _rdkit_types(s, lig_rows, nb) -> dict[int, str]:
    """Ligand types from RDKit's perception of the SDF/MOL2 molecule (bond orders from the file)."""
    from rdkit import Chem
    mol = Chem.Mol(s.ligand_mol)
    try:
        Chem.SanitizeMol(mol)
    except Exception:  # noqa: BLE001 - keep the file's flags when sanitisation fails
        mol.UpdatePropertyCache(strict=False)
        Chem.FastFindRings(mol)
    return {lig_rows[a.GetIdx()]: _rdkit_type(a, mol, Chem) for a in mol.GetAtoms()}


def _template_types(s, rows, resname, has_h) -> dict[int, str]:
    table = type_table()
    tmpl = dict(table["backbone"])
    tmpl.update(table["residues"][resname])
    names = {s.name[i]: i for i in rows}
    out = {}
    for i in rows:
        e, n = s.element[i], s.name[i]
        if e in ("H", "D"):
            continue
        if n in tmpl:
            out[i] = tmpl[n]
        elif e == "C":
            out[i] = "C3"
        elif e == "S":
            out[i] = "S3"
        else:
            out[i] = e
    if "OXT" in names:
        if "C" in names:
            out[names["C"]] = "Cac"
        if "O" in names:
            out[names["O"]] = "O2-"
    return out


def _his_tautomer(s, names, t):
    """[chimerax] A neutral His without H: the ring N with the shorter bond to CE1 carries the
    double bond (N2, acceptor only), the other the H (Npl, donor only). What ChimeraX does: it
    types the ring from its bond lengths, not from the Npl/Npl template (measured on every His
    of the shared PDB entries, tests/test_reference_match.py)."""
    if not all(n in names for n in ("ND1", "NE2", "CE1")):
        return
    nd1, ne2, ce1 = names["ND1"], names["NE2"], names["CE1"]
    d1 = float(np.linalg.norm(s.coords[nd1] - s.coords[ce1]))
    d2 = float(np.linalg.norm(s.coords[ne2] - s.coords[ce1]))
    t[nd1], t[ne2] = ("N2", "Npl") if d1 <= d2 else ("Npl", "N2")


def _protonation_fix(s, rows, t, nb, is_h, rules=None):
    """Explicit hydrogens decide His tautomer, acid Asp/Glu and neutral Lys (as after AddH);
    the N terminus is N3+.  Residues without any H keep their template types, except His
    under the ``chimerax`` definition (``his_tautomer``)."""
    rules = rules or {}
    res = s.resname[rows[0]]
    names = {s.name[i]: i for i in rows}
    nh = lambda i: sum(1 for j in nb[i] if is_h[j])  # noqa: E731
    has_h = bool(is_h[rows].any())
    if not has_h:
        if res == "HIS" and rules.get("his_tautomer"):
            _his_tautomer(s, names, t)
    elif res in HIS_NAMES:
        for n in ("ND1", "NE2"):
            if n in names:
                t[names[n]] = "Npl" if nh(names[n]) else "N2"
        if rules.get("doubly_protonated_his") and all(n in names and nh(names[n]) for n in ("ND1", "NE2")):
            t[names["NE2"]] = "N2+"     # as ChimeraX types a His with both H (same donor rules)
    elif res in ("ASP", "GLU", "ASH", "GLH"):
        c, o1, o2 = ("CG", "OD1", "OD2") if res in ("ASP", "ASH") else ("CD", "OE1", "OE2")
        if o1 in names and o2 in names:
            h1, h2 = nh(names[o1]), nh(names[o2])
            if h1 or h2:
                t[names[c]] = "C2"
                t[names[o1]], t[names[o2]] = ("O3", "O2") if h1 else ("O2", "O3")
            elif res in ("ASH", "GLH"):  # no H but named as the acid: unknown which O; both acceptors
                t[names[c]] = "Cac"
                t[names[o1]] = t[names[o2]] = "O2-"
    elif res in ("LYS", "LYN") and "NZ" in names:
        t[names["NZ"]] = "N3" if nh(names["NZ"]) == 2 else "N3+"
    if "N" in names and not any(s.name[j] == "C" and s.resname[j] and j not in rows for j in nb[names["N"]]):
        # N terminus (no peptide bond to a preceding residue); Pro keeps its ring N planar
        if res != "PRO" and names["N"] in t:
            t[names["N"]] = "N3+"


def _truncated(s, rows, nb, heavy) -> list[int]:
    """Atoms with fewer heavy neighbours in their residue than the template gives them."""
    tmpl = bondlib.residue_template(s.resname[rows[0]])
    if not tmpl:
        return []
    count: dict[str, int] = {}
    for pair in tmpl:
        a, b = tuple(pair)
        if "OXT" in pair:
            continue
        count[a] = count.get(a, 0) + 1
        count[b] = count.get(b, 0) + 1
    rset = set(rows)
    out = []
    for i in rows:
        if s.element[i] in ("N", "O", "S") and s.name[i] in count:
            have = sum(1 for j in nb[i] if j in rset and heavy[j])
            if have < count[s.name[i]]:
                out.append(i)
    return out


def covalent_link_rows(s) -> list[tuple[int, int]]:
    """Rows of the protein–ligand covalent bonds recorded at load (meta ``covalent_links``).

    They are not in ``s.bonds`` (a render that moves the ligand must not draw them) but they
    are neighbours for typing and hydrogen placement."""
    links = s.meta.get("covalent_links") or []
    if not links:
        return []
    index = {(c, int(r), ic, rn, nm): k for k, (c, r, ic, rn, nm) in
             enumerate(zip(s.chain.tolist(), s.resseq.tolist(), s.icode.tolist(), s.resname.tolist(),
                           s.name.tolist()))}
    lig_index = {}
    mol = s.ligand_mol
    lig_rows = np.nonzero(s.ligand)[0].tolist()
    if mol is not None and mol.GetNumAtoms() == len(lig_rows):
        # ligand atoms may have been renamed (composite): find them by their file names
        for a in mol.GetAtoms():
            info = a.GetPDBResidueInfo()
            row = lig_rows[a.GetIdx()]
            if info is not None:
                lig_index[(str(s.chain[row]), int(s.resseq[row]), str(s.icode[row]), str(s.resname[row]),
                           info.GetName().strip())] = row
    out = []
    for p, l_ in links:
        i = index.get(tuple(p))
        j = lig_index.get(tuple(l_)) if lig_index else index.get(tuple(l_))
        if i is not None and j is not None:
            out.append((i, j))
    return out


def _typing_neighbours(s, rules, metal) -> list:
    """Bonded neighbours for typing: the structure's bonds (to metals only where the definition says
    so) and the ligand–protein covalent bonds."""
    nb = s.neighbours()
    if not rules["metal_bonds"]:
        # as ChimeraX: a bond to a metal is a coordination (pseudo)bond, not a neighbour
        nb = [[j for j in row if not metal[j]] if not metal[i] else [] for i, row in enumerate(nb)]
    for i, j in covalent_link_rows(s):   # ligand–protein covalent bonds count as neighbours
        if j not in nb[i]:
            nb[i].append(j)
            nb[j].append(i)
    return nb


def _active_atoms(s, res_idx, active_cutoff: float) -> np.ndarray:
    """Atoms of residues with an atom within ``active_cutoff`` Å of the ligand, and the ligand."""
    n = s.n_atoms
    lig_xyz = s.coords[s.ligand]
    near = np.zeros(n, bool)
    if len(lig_xyz):
        for start in range(0, n, 4096):
            d2 = ((s.coords[start:start + 4096, None, :] - lig_xyz[None]) ** 2).sum(-1)
            near[start:start + 4096] = d2.min(1) <= active_cutoff ** 2
    return np.isin(res_idx, np.unique(res_idx[near])) | s.ligand


def _residues_to_type(active, nb, res_idx) -> dict[int, list[int]]:
    residues: dict[int, list[int]] = {}
    for i in np.nonzero(active)[0].tolist():
        residues.setdefault(int(res_idx[i]), []).append(i)
    # the neighbours of active atoms need types too (e.g. the C of the preceding residue)
    extra = {int(res_idx[j]) for i in np.nonzero(active)[0] for j in nb[i] if not active[j]}
    for r in extra:
        residues.setdefault(r, np.nonzero(res_idx == r)[0].tolist())
    return residues


def _hydrogen_types(s, rows, t, nb, is_h) -> None:
    for i in rows:
        if is_h[i]:
            t[i] = "HC" if any(s.element[j] == "C" for j in nb[i]) else "H"


def _type_residues(s, residues, nb, is_h, rules, types, rings, skip) -> None:
    """Types of the polymer residues (templates, else geometry) into ``types``; their rings into ``rings``."""
    heavy = ~is_h
    table = type_table()
    for _r, rows in residues.items():
        rows = sorted(rows)
        resname = s.resname[rows[0]]
        rr = _smallest_rings([i for i in rows if heavy[i]], nb)
        rings.extend(rr)
        if s.ligand[rows[0]]:
            continue
        if resname in table["residues"]:
            t = _template_types(s, rows, resname, is_h[rows].any())
            _protonation_fix(s, rows, t, nb, is_h, rules)
            for i in _truncated(s, rows, nb, heavy):
                skip[i] = True
        else:
            t = geometry_types(rows, s.coords, s.element, nb, rr, imine_n2=rules["imine_n2"],
                               urea_ng=rules["urea_ng_plus"])
        _hydrogen_types(s, rows, t, nb, is_h)
        for i, v in t.items():
            types[i] = v


def _ligand_from_ccd(s, lig_rows, nb, lig_rings, rules, notes, is_h) -> dict[int, str]:
    """CCD template bond orders through RDKit; atoms the template did not describe keep their
    geometry types (core/chemistry/ligand TEMPLATE_PROP)."""
    t = _rdkit_types(s, lig_rows, nb)
    g = geometry_types(lig_rows, s.coords, s.element, nb, lig_rings, imine_n2=rules["imine_n2"],
                       urea_ng=rules["urea_ng_plus"])
    geo = [lig_rows[a.GetIdx()] for a in s.ligand_mol.GetAtoms()
           if not (a.HasProp("misigen_template") and a.GetIntProp("misigen_template"))]
    for i in geo:
        t[i] = g[i]
    arom = {i for i in lig_rows if t.get(i) == "Car"}
    apply_charge_pass(lig_rows, t, s.element, nb, arom, lig_rings)
    notes["ligand_typing"] = "ccd" if len(geo) < len(lig_rows) else "geometry"
    if geo and len(geo) < len(lig_rows):
        notes["ligand_geometry_atoms"] = [str(s.name[i]) for i in geo if not is_h[i]]
    return t


def _ligand_types(s, lig_rows, nb, lig_rings, is_h, rules, notes) -> dict[int, str]:
    """The ligand's types: from its file's bond orders (RDKit) or its CCD templates when the
    definition uses ligand chemistry, a standard residue's template, else geometry."""
    mol = s.ligand_mol
    orders = str(s.meta.get("ligand_bond_orders", ""))
    chem = rules["ligand_chemistry"] and mol is not None and mol.GetNumAtoms() == len(lig_rows)
    if chem and orders.startswith("file"):
        t = _rdkit_types(s, lig_rows, nb)
        arom = {i for i in lig_rows if t.get(i) == "Car"}
        apply_charge_pass(lig_rows, t, s.element, nb, arom, lig_rings)
        notes["ligand_typing"] = "rdkit"
    elif chem and orders.startswith("ccd"):
        t = _ligand_from_ccd(s, lig_rows, nb, lig_rings, rules, notes, is_h)
    elif s.resname[lig_rows[0]] in type_table()["residues"]:
        # a standard residue as the ligand (e.g. free ARG): templates, as the reference does
        t = _template_types(s, lig_rows, s.resname[lig_rows[0]], is_h[lig_rows].any())
        _protonation_fix(s, lig_rows, t, nb, is_h, rules)
        _hydrogen_types(s, lig_rows, t, nb, is_h)
        notes["ligand_typing"] = "template"
    else:
        t = geometry_types(lig_rows, s.coords, s.element, nb, lig_rings, imine_n2=rules["imine_n2"],
                           urea_ng=rules["urea_ng_plus"])
        notes["ligand_typing"] = "geometry"
    return t


def type_structure(s, active_cutoff: float = 9.0, definition=None) -> Typed:
    """Type every atom of residues near the ligand (within ``active_cutoff`` Å) and the ligand,
    as the named H-bond definition says (None: the default, definitions.py)."""
    def_name, rules = resolve(definition)
    n = s.n_atoms
    metal = np.array([is_metal(e) for e in s.element])
    nb = _typing_neighbours(s, rules, metal)
    is_h = s.is_hydrogen
    heavy = ~is_h
    heavy_nb = [[j for j in nb[i] if heavy[j]] for i in range(n)]
    h_nb = [[j for j in nb[i] if is_h[j]] for i in range(n)]
    res_idx = s.residue_index()
    active = _active_atoms(s, res_idx, active_cutoff)
    types = np.full(n, "", dtype=object)
    rings: list = []
    skip = np.zeros(n, bool)
    _type_residues(s, _residues_to_type(active, nb, res_idx), nb, is_h, rules, types, rings, skip)
    lig_rows = np.nonzero(s.ligand)[0].tolist()
    notes: dict = {}
    if lig_rows:
        lig_rings = _smallest_rings([i for i in lig_rows if heavy[i]], nb)
        rings.extend(lig_rings)
        for i, v in _ligand_types(s, lig_rows, nb, lig_rings, is_h, rules, notes).items():
            types[i] = v
    rings = list({frozenset(r): r for r in rings}.values())   # one entry per ring, first seen
    atom_rings: dict = {}
    for k, ring in enumerate(rings):
        for a in ring:
            atom_rings.setdefault(a, []).append(k)
    aromatic = [all(types[a] == "Car" for a in ring if s.element[a] == "C") and
                any(s.element[a] == "C" for a in ring) for ring in rings]
    return Typed(s=s, types=types, nb=nb, heavy_nb=heavy_nb, h_nb=h_nb, rings=rings,
                 atom_rings=atom_rings, aromatic_ring=aromatic, skip=skip, metal=metal,
                 active=active, notes=notes, definition=def_name, rules=rules)
