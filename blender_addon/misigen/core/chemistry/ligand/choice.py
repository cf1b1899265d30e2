"""Which HETATM residues form the ligand of a PDB/mmCIF file.

The residues named by a selector ``RES:CHAIN:NUM[+RES:CHAIN:NUM…]`` (used whatever their size),
else the largest drug-like HETATM group, else the one small molecule the exclusion list
(data/het_groups.yaml) does not name. When several copies of that component qualify (or a
selector leaves the copy open), the copy with most protein contacts is used (ties: the first in
file order). Residues covalently linked to the chosen one join it (a composite ligand).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...errors import InputError
from .groups import connected, excluded_names, group_links, het_groups, het_table, polymer_linked
from .selectors import parse_selectors, residue_id


@dataclass
class LigandChoice:
    residues: list            # residue keys (chain, resseq, icode, resname), the chosen one(s) first
    rows: list                # atom rows of all its residues, in file order
    how: str                  # "named", "largest drug-like group", "only small molecule"
    internal_links: list = field(default_factory=list)   # (row_a, row_b) between its residues
    copies: dict = field(default_factory=dict)   # copy id → protein contacts, when there were several

    @property
    def id(self) -> str:
        return "+".join(residue_id(k) for k in self.residues)


def protein_contacts(table, rows, protein_rows) -> int:
    """Protein heavy atoms within ``copy_contact_distance`` (het_groups.yaml) of any heavy atom of ``rows``."""
    cutoff = float(het_table()["copy_contact_distance"])
    heavy = lambda rr: np.asarray([i for i in rr if table.element[i] not in ("H", "D")], dtype=np.int64)  # noqa: E731
    a, b = heavy(rows), heavy(protein_rows)
    if not len(a) or not len(b):
        return 0
    near = np.zeros(len(b), dtype=bool)
    for s in range(0, len(b), 4096):
        d2 = ((table.coords[b[s:s + 4096], None] - table.coords[a][None]) ** 2).sum(-1)
        near[s:s + 4096] = d2.min(axis=1) <= cutoff * cutoff
    return int(near.sum())


def _most_contacts(table, groups, options, protein_rows) -> tuple[int, dict]:
    """Index of the option (a list of residue keys) with most protein contacts (ties: first), and
    {option id: contacts} when there is more than one option."""
    if len(options) < 2:
        return 0, {}
    counts = [protein_contacts(table, [i for k in keys for i in groups[k]], protein_rows) for keys in options]
    return int(np.argmax(counts)), {"+".join(residue_id(k) for k in keys): n for keys, n in zip(options, counts)}


def _named(path, table, groups, het_links, protein_rows, selector: str) -> tuple[list, str, dict]:
    """(residue keys, how, copies) of the residues a selector names."""
    chosen, copies = [], {}
    for sel in parse_selectors(selector):
        hits = [k for k in groups if sel.matches(k)]
        if not hits:
            names = ", ".join(sorted({residue_id(k) for k in groups if k[3] not in
                                      set(het_table()["water"])})) or "none"
            raise InputError(path, f"ligand {sel} not found among HETATM groups ({names})")
        # a selector that leaves the copy open (GLN, GLN:B): the copy with most protein contacts
        best, found = _most_contacts(table, groups, [[k] for k in hits], protein_rows)
        chosen.append(hits[best])
        copies.update(found)
    return connected(chosen, het_links), "named", copies


def _candidates(table, groups, het_links, protein_rows) -> list[tuple[int, list]]:
    """(heavy atoms, residue keys) of each linked group of HETATM residues that could be the ligand."""
    excluded = excluded_names()
    seen: set = set()
    candidates = []
    for key in groups:
        if key in seen or key[3] in set(het_table()["water"]):
            continue
        comp = connected([key], het_links)
        seen.update(comp)
        if all(k[3] in excluded for k in comp):
            continue
        if len(comp) == 1 and polymer_linked(table, groups[key], protein_rows):
            continue
        heavy = sum(table.element[i] not in ("H", "D") for k in comp for i in groups[k])
        candidates.append((heavy, comp))
    return candidates


def _automatic(path, table, groups, het_links, protein_rows) -> tuple[list, str, dict]:
    """(residue keys, how, copies) of the largest drug-like group, else the only small molecule."""
    candidates = _candidates(table, groups, het_links, protein_rows)
    big = [c for c in candidates if c[0] >= int(het_table()["min_heavy_atoms"])]
    if big:
        best = max(big, key=lambda c: c[0])   # first of equals wins (file order): deterministic
        # several copies of that component: the one the protein holds most (ties: first)
        component = sorted(k[3] for k in best[1])
        same = [c[1] for c in candidates if sorted(k[3] for k in c[1]) == component]
        pick, copies = _most_contacts(table, groups, same, protein_rows)
        how = "largest drug-like group"
        if copies:
            how += f", the copy with most protein contacts of {len(same)}"
        return same[pick], how, copies
    if len(candidates) == 1 and candidates[0][0] > 0:
        return candidates[0][1], "only small molecule", {}
    names = sorted({k[3] for k in groups}) or ["none"]
    extra = ""
    if len(candidates) > 1:
        extra = "; several small molecules, name one with --ligand RES:CHAIN:NUM: " + \
            ", ".join(residue_id(k) for c in candidates for k in c[1])
    raise InputError(path, "no drug-like ligand (HETATM groups: " + ", ".join(names) + ")" + extra)


def choose_ligand(path, table, selector: str | None = None, conect=(), links=()) -> LigandChoice:
    """The ligand of a PDB/mmCIF file (see the module docstring for the rules)."""
    groups = het_groups(table)
    het_links = group_links(table, groups, conect, links)
    protein_rows = [i for i in range(len(table)) if not table.hetero[i]]
    if selector:
        keys, how, copies = _named(path, table, groups, het_links, protein_rows, selector)
    else:
        keys, how, copies = _automatic(path, table, groups, het_links, protein_rows)
    # The chosen residue first, then the linked ones in file order.
    order = {k: n for n, k in enumerate(groups)}
    keys = keys[:1] + sorted(keys[1:], key=order.get)
    rows = sorted(i for k in keys for i in groups[k])
    internal = sorted({p for (a, b), ps in het_links.items() if a in keys and b in keys for p in ps})
    return LigandChoice(residues=keys, rows=rows, how=how, internal_links=internal, copies=copies)
