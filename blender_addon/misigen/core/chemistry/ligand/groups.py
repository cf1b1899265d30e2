"""HETATM residues and the covalent links between them (CONECT, LINK or covalent-radius distance):
residues linked to each other form one (composite) ligand; links to the protein are covalent ligands."""
from __future__ import annotations

import numpy as np

from .. import bonds as bondlib
from ...data_files import covalent_radius, is_metal, load_table


def het_table() -> dict:
    return load_table("het_groups.yaml")


def excluded_names() -> set[str]:
    table = het_table()
    return {str(n) for key in ("water", "ions", "buffers_and_additives", "sugars") for n in table[key]}


def het_groups(table) -> dict[tuple, list[int]]:
    """HETATM residues → their atom rows, in file order (waters included)."""
    groups: dict[tuple, list[int]] = {}
    for i in range(len(table)):
        if table.hetero[i]:
            key = (table.chain[i], table.resseq[i], table.icode[i], table.resname[i])
            groups.setdefault(key, []).append(i)
    return groups


def linkable(table, i) -> bool:
    return table.element[i] not in ("H", "D") and not is_metal(table.element[i])


def close_pairs(table, rows_a, rows_b) -> list[tuple[int, int]]:
    """Heavy, non-metal atom pairs within covalent-bond distance (r1 + r2 + 0.4 Å)."""
    a = np.asarray([i for i in rows_a if linkable(table, i)], dtype=np.int64)
    b = np.asarray([i for i in rows_b if linkable(table, i)], dtype=np.int64)
    if not len(a) or not len(b):
        return []
    ra = np.array([covalent_radius(table.element[i]) for i in a])
    rb = np.array([covalent_radius(table.element[i]) for i in b])
    out = []
    for s in range(0, len(a), 1024):
        d = np.linalg.norm(table.coords[a[s:s + 1024], None] - table.coords[b][None], axis=-1)
        lim = ra[s:s + 1024, None] + rb[None] + bondlib.BOND_TOLERANCE
        ii, jj = np.nonzero((d <= lim) & (d > bondlib.MIN_BOND_LENGTH))
        out += [(int(a[s + x]), int(b[y])) for x, y in zip(ii, jj)]
    return out


def record_pairs(table, conect, links) -> set[tuple[int, int]]:
    """Atom-row pairs named by CONECT (serials) and LINK (residue + atom name) records."""
    by_serial = {table.serial[i]: i for i in range(len(table))}
    pairs = set()
    for a, b in conect:
        if a in by_serial and b in by_serial and a != b:
            pairs.add(tuple(sorted((by_serial[a], by_serial[b]))))
    if links:
        by_name = {(table.chain[i], table.resseq[i], table.icode[i], table.resname[i], table.name[i]): i
                   for i in range(len(table))}
        for a, b in links:
            if a in by_name and b in by_name:
                pairs.add(tuple(sorted((by_name[a], by_name[b]))))
    return pairs


def group_links(table, groups, conect=(), links=()) -> dict[tuple, set[tuple]]:
    """Covalent links between HETATM residues: {(key_a, key_b): {(row_a, row_b), …}}.

    Waters, metals and residues of the ion list never link (metal coordination is not a
    covalent link)."""
    ions = {str(n) for n in het_table()["ions"]} | {str(n) for n in het_table()["water"]}
    keys = [k for k in groups if k[3] not in ions]
    row_key = {i: k for k in keys for i in groups[k]}
    pairs = {p for p in record_pairs(table, conect, links) if p[0] in row_key and p[1] in row_key}
    rows = [i for k in keys for i in groups[k]]
    pairs |= {tuple(sorted(p)) for p in close_pairs(table, rows, rows)}
    out: dict[tuple, set] = {}
    for i, j in pairs:
        ki, kj = row_key[i], row_key[j]
        if ki == kj or not (linkable(table, i) and linkable(table, j)):
            continue
        key = tuple(sorted((ki, kj), key=str))
        a, b = (i, j) if key[0] == ki else (j, i)
        out.setdefault(key, set()).add((a, b))
    return out


def connected(start_keys, links) -> list[tuple]:
    """Every residue reachable from ``start_keys`` through ``links``, in first-seen order."""
    adj: dict = {}
    for a, b in links:
        adj.setdefault(a, []).append(b)
        adj.setdefault(b, []).append(a)
    seen = list(dict.fromkeys(start_keys))
    k = 0
    while k < len(seen):
        for other in sorted(adj.get(seen[k], []), key=str):
            if other not in seen:
                seen.append(other)
        k += 1
    return seen


def polymer_linked(table, rows, protein_rows) -> bool:
    """A modified residue of the chain (e.g. HETATM MSE, TPO): peptide-bonded N or C."""
    names = {table.name[i]: i for i in rows}
    ends = [names[n] for n in ("N", "C") if n in names]
    if not ends or not len(protein_rows):
        return False
    partners = [i for i in protein_rows if table.name[i] in ("C", "N")]
    return bool(close_pairs(table, ends, partners))


def protein_links(table, lig_rows, links=()) -> list[tuple[int, int]]:
    """(protein row, ligand row) covalent bonds: LINK/CONECT records or covalent distance."""
    lig = set(lig_rows)
    others = [i for i in range(len(table)) if i not in lig and table.resname[i] not in
              set(het_table()["water"])]
    pairs = {(b, a) for a, b in close_pairs(table, lig_rows, others)}
    for a, b in record_pairs(table, (), links):
        if (a in lig) != (b in lig) and linkable(table, a) and linkable(table, b):
            pairs.add((b, a) if a in lig else (a, b))
    return sorted(pairs)
