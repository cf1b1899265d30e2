"""Bonds for protein and other residues: templates, inter-residue links, distance fallback."""
from __future__ import annotations

import functools

import numpy as np

from ..data_files import covalent_radius, load_table

BOND_TOLERANCE = 0.4    # Å added to r_cov1 + r_cov2 (ChimeraX's criterion)
MIN_BOND_LENGTH = 0.4   # Å; closer pairs are clashes or altloc leftovers, not bonds
H_BOND_MAX = 1.35       # Å; an H bonds to the nearest heavy atom of its residue within this


@functools.lru_cache(maxsize=None)
def _templates() -> tuple[dict, dict]:
    table = load_table("residue_templates.yaml")

    def parse(items):
        out = {}
        for item in items:
            sep = "=" if "=" in item else "-"
            a, b = item.split(sep)
            out[frozenset((a, b))] = 2.0 if sep == "=" else 1.0
        return out

    backbone = parse(table["amino_backbone"])
    residues = {name: {**backbone, **parse(items)} for name, items in table["amino"].items()}
    return residues, table["links"]


def residue_template(resname: str) -> dict | None:
    """{frozenset(atom names): bond order} for a standard residue, else None."""
    return _templates()[0].get(resname)


def distance_bonds(coords: np.ndarray, elements, index: np.ndarray) -> list[tuple[int, int, float]]:
    """Bonds among the atoms ``index`` by covalent radii (used for unknown residues)."""
    if len(index) < 2:
        return []
    xyz = coords[index]
    rad = np.array([covalent_radius(elements[i]) for i in index])
    d = np.linalg.norm(xyz[:, None, :] - xyz[None, :, :], axis=-1)
    limit = rad[:, None] + rad[None, :] + BOND_TOLERANCE
    is_h = np.array([elements[i] in ("H", "D") for i in index])
    ok = (d <= limit) & (d > MIN_BOND_LENGTH)
    ok &= ~(is_h[:, None] & is_h[None, :])
    ii, jj = np.nonzero(np.triu(ok, 1))
    return [(int(index[a]), int(index[b]), 1.0) for a, b in zip(ii, jj)]


def hydrogen_bonds_to_parent(coords, elements, index) -> list[tuple[int, int, float]]:
    """Each H (or D) of a residue bonds to its nearest heavy atom within H_BOND_MAX."""
    heavy = [i for i in index if elements[i] not in ("H", "D")]
    out = []
    if not heavy:
        return out
    hxyz = coords[heavy]
    for i in index:
        if elements[i] in ("H", "D"):
            d = np.linalg.norm(hxyz - coords[i], axis=1)
            k = int(np.argmin(d))
            if MIN_BOND_LENGTH < d[k] <= H_BOND_MAX:
                out.append((min(i, heavy[k]), max(i, heavy[k]), 1.0))
    return out


def residue_bonds(coords, elements, names, resname, index) -> list[tuple[int, int, float]]:
    """Bonds inside one residue: template for standard residues, distances otherwise."""
    template = residue_template(resname)
    heavy = [i for i in index if elements[i] not in ("H", "D")]
    if template is None:
        return distance_bonds(coords, elements, np.asarray(heavy, dtype=np.int64)) + \
            hydrogen_bonds_to_parent(coords, elements, index)
    by_name = {names[i]: i for i in heavy}
    out = []
    covered = set()
    for pair, order in template.items():
        a, b = tuple(pair)
        if a in by_name and b in by_name:
            i, j = sorted((by_name[a], by_name[b]))
            # A template bond between atoms that are far apart (bad model) is not drawn.
            d = np.linalg.norm(coords[i] - coords[j])
            if d <= covalent_radius(elements[i]) + covalent_radius(elements[j]) + BOND_TOLERANCE:
                out.append((i, j, order))
            covered.update((i, j))
    known = {n for pair in template for n in pair}
    extra = [i for i in heavy if names[i] not in known]
    if extra:  # atoms the template does not know: bond them by distance to the whole residue
        for i, j, o in distance_bonds(coords, elements, np.asarray(heavy, dtype=np.int64)):
            if (i in extra or j in extra):
                out.append((i, j, o))
    return out + hydrogen_bonds_to_parent(coords, elements, index)


def link_bonds(coords, names, residue_atoms: list[list[int]], chains) -> list[tuple[int, int, float]]:
    """Peptide, disulfide and phosphodiester bonds between residues of the polymer."""
    links = _templates()[1]
    out = []
    named = [{names[i]: i for i in atoms} for atoms in residue_atoms]
    # Peptide / phosphodiester: consecutive residues of one chain.
    for k in range(len(residue_atoms) - 1):
        if chains[residue_atoms[k][0]] != chains[residue_atoms[k + 1][0]]:
            continue
        for kind in ("peptide", "phosphodiester"):
            a, b, dmax = links[kind]
            if a in named[k] and b in named[k + 1]:
                i, j = named[k][a], named[k + 1][b]
                if np.linalg.norm(coords[i] - coords[j]) <= dmax:
                    out.append((min(i, j), max(i, j), 1.0))
    # Disulfides: any two SG.
    a, b, dmax = links["disulfide"]
    sg = [r[a] for r in named if a in r]
    for x in range(len(sg)):
        for y in range(x + 1, len(sg)):
            if np.linalg.norm(coords[sg[x]] - coords[sg[y]]) <= dmax:
                out.append((min(sg[x], sg[y]), max(sg[x], sg[y]), 1.0))
    return out


def as_arrays(bond_list) -> tuple[np.ndarray, np.ndarray]:
    """Deduplicated, sorted (M, 2) bond array and orders."""
    best: dict = {}
    for i, j, o in bond_list:
        key = (min(i, j), max(i, j))
        best[key] = max(best.get(key, 0.0), o)
    keys = sorted(best)
    bonds = np.array(keys, dtype=np.int64).reshape(-1, 2)
    orders = np.array([best[k] for k in keys], dtype=np.float64)
    return bonds, orders
