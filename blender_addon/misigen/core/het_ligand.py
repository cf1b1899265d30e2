"""HETATM ligands of PDB/mmCIF files: which residues form the ligand, and their chemistry.

* Choice (``choose_ligand``): the residues named by a selector ``RES:CHAIN:NUM[+RES:CHAIN:NUM…]``
  (used whatever their size), else the largest drug-like HETATM group, else the one small
  molecule the exclusion list (data/het_groups.yaml) does not name. When several copies of
  that component qualify (or a selector leaves the copy open), the copy with most protein
  contacts is used (ties: the first in file order).
* Roles (``residue_roles``): what every other residue is — polymer, water, metal, cofactor,
  additive (the exclusion list) or another copy of the ligand — so that the pocket can be
  protein residues (core/structure.py ROLES).
* Composite ligands: HETATM residues covalently bonded to each other (CONECT, LINK or
  covalent-radius distance) form one ligand; atom names are made unique when two of its
  residues share a name (``unique_names``).
* Chemistry (``ligand_mol``): bond orders, formal charges and hydrogen counts from the
  residue's wwPDB CCD template (core/ccd.py), matched by atom name; geometry typing stays
  the fallback for residues not in the dictionary and for atoms the template does not
  describe (not in it, element differs, a template neighbour missing, or within one bond of
  a covalent link to the protein, where the reaction changed the chemistry). pH-7 choices:
  docs/INTERACTIONS.md "Ligand chemistry".
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from . import bonds as bondlib
from .data_files import covalent_radius, is_metal, load_table
from .errors import InputError

SELECTOR = re.compile(r"^([A-Za-z0-9]{1,5})(?::([A-Za-z0-9]{0,4})(?::(-?\d+)([A-Za-z]?))?)?$")

# Template atom property marking atoms whose chemistry came from the CCD (1) or geometry (0).
TEMPLATE_PROP = "misigen_template"


@dataclass(frozen=True)
class Selector:
    resname: str
    chain: str | None = None
    resseq: int | None = None
    icode: str | None = None

    def matches(self, key) -> bool:
        chain, resseq, icode, resname = key
        return resname == self.resname and (self.chain is None or chain == self.chain) and \
            (self.resseq is None or resseq == self.resseq) and (self.icode is None or icode == self.icode)

    def __str__(self):
        return ":".join([self.resname] + ([self.chain or ""] if self.chain is not None or self.resseq is not None
                                          else []) + ([f"{self.resseq}{self.icode or ''}"]
                                                      if self.resseq is not None else []))


def parse_selectors(text: str, where="--ligand") -> list[Selector]:
    """``RES[:CHAIN[:NUM]]`` joined with ``+`` → selectors. Raises InputError naming ``where``."""
    parts = [p.strip() for p in str(text).split("+")]
    if not parts or any(not p for p in parts):
        raise InputError(where, f"expected RES:CHAIN:NUM (several joined with +), got {text!r}")
    out = []
    for p in parts:
        m = SELECTOR.match(p)
        if not m:
            raise InputError(where, f"expected RES:CHAIN:NUM (residue number an integer), got {p!r}")
        res, chain, num, icode = m.groups()
        out.append(Selector(res.upper(), chain if chain else None, int(num) if num else None,
                            icode.upper() if icode else None))
    return out


def residue_id(key) -> str:
    """``GDP:Z:1151`` for a residue key (chain, resseq, icode, resname)."""
    chain, resseq, icode, resname = key
    return f"{resname}:{chain}:{resseq}{icode}"


# ------------------------------------------------------------------ groups and links
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


def _linkable(table, i) -> bool:
    return table.element[i] not in ("H", "D") and not is_metal(table.element[i])


def _close_pairs(table, rows_a, rows_b) -> list[tuple[int, int]]:
    """Heavy, non-metal atom pairs within covalent-bond distance (r1 + r2 + 0.4 Å)."""
    a = np.asarray([i for i in rows_a if _linkable(table, i)], dtype=np.int64)
    b = np.asarray([i for i in rows_b if _linkable(table, i)], dtype=np.int64)
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


def _record_pairs(table, conect, links) -> set[tuple[int, int]]:
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
    pairs = {p for p in _record_pairs(table, conect, links) if p[0] in row_key and p[1] in row_key}
    rows = [i for k in keys for i in groups[k]]
    pairs |= {tuple(sorted(p)) for p in _close_pairs(table, rows, rows)}
    out: dict[tuple, set] = {}
    for i, j in pairs:
        ki, kj = row_key[i], row_key[j]
        if ki == kj or not (_linkable(table, i) and _linkable(table, j)):
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


def _polymer_linked(table, rows, protein_rows) -> bool:
    """A modified residue of the chain (e.g. HETATM MSE, TPO): peptide-bonded N or C."""
    names = {table.name[i]: i for i in rows}
    ends = [names[n] for n in ("N", "C") if n in names]
    if not ends or not len(protein_rows):
        return False
    partners = [i for i in protein_rows if table.name[i] in ("C", "N")]
    return bool(_close_pairs(table, ends, partners))


# ------------------------------------------------------------------ choice
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


def choose_ligand(path, table, selector: str | None = None, conect=(), links=()) -> LigandChoice:
    """The ligand of a PDB/mmCIF file (see the module docstring for the rules)."""
    groups = het_groups(table)
    het_links = group_links(table, groups, conect, links)
    protein_rows = [i for i in range(len(table)) if not table.hetero[i]]
    copies: dict = {}
    if selector:
        chosen = []
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
        keys = connected(chosen, het_links)
        how = "named"
    else:
        excluded = excluded_names()
        min_heavy = int(het_table()["min_heavy_atoms"])
        seen: set = set()
        candidates = []     # (heavy atoms, keys)
        for key in groups:
            if key in seen or key[3] in set(het_table()["water"]):
                continue
            comp = connected([key], het_links)
            seen.update(comp)
            if all(k[3] in excluded for k in comp):
                continue
            if len(comp) == 1 and _polymer_linked(table, groups[key], protein_rows):
                continue
            heavy = sum(table.element[i] not in ("H", "D") for k in comp for i in groups[k])
            candidates.append((heavy, comp))
        big = [c for c in candidates if c[0] >= min_heavy]
        if big:
            best = max(big, key=lambda c: c[0])   # first of equals wins (file order): deterministic
            # several copies of that component: the one the protein holds most (ties: first)
            component = sorted(k[3] for k in best[1])
            same = [c[1] for c in candidates if sorted(k[3] for k in c[1]) == component]
            pick, copies = _most_contacts(table, groups, same, protein_rows)
            keys, how = same[pick], "largest drug-like group"
            if copies:
                how += f", the copy with most protein contacts of {len(same)}"
        elif len(candidates) == 1 and candidates[0][0] > 0:
            keys, how = candidates[0][1], "only small molecule"
        else:
            names = sorted({k[3] for k in groups}) or ["none"]
            extra = ""
            if len(candidates) > 1:
                extra = "; several small molecules, name one with --ligand RES:CHAIN:NUM: " + \
                    ", ".join(residue_id(k) for c in candidates for k in c[1])
            raise InputError(path, "no drug-like ligand (HETATM groups: " + ", ".join(names) + ")" + extra)
    # The chosen residue first, then the linked ones in file order.
    order = {k: n for n, k in enumerate(groups)}
    keys = keys[:1] + sorted(keys[1:], key=order.get)
    rows = sorted(i for k in keys for i in groups[k])
    internal = sorted({p for (a, b), ps in het_links.items() if a in keys and b in keys for p in ps})
    return LigandChoice(residues=keys, rows=rows, how=how, internal_links=internal, copies=copies)


def residue_roles(table, ligand_rows=(), ligand_components=()) -> list[str]:
    """Per table row, what its residue is (core/structure.py ROLES): "ligand" (``ligand_rows``),
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
        elif _polymer_linked(table, rows, protein_rows):
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


def protein_links(table, lig_rows, links=()) -> list[tuple[int, int]]:
    """(protein row, ligand row) covalent bonds: LINK/CONECT records or covalent distance."""
    lig = set(lig_rows)
    others = [i for i in range(len(table)) if i not in lig and table.resname[i] not in
              set(het_table()["water"])]
    pairs = {(b, a) for a, b in _close_pairs(table, lig_rows, others)}
    for a, b in _record_pairs(table, (), links):
        if (a in lig) != (b in lig) and _linkable(table, a) and _linkable(table, b):
            pairs.add((b, a) if a in lig else (a, b))
    return sorted(pairs)


# ------------------------------------------------------------------ names
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


# ------------------------------------------------------------------ chemistry
def ligand_mol(path, table, choice: LigandChoice, conect=(), links=(), use_ccd=True):
    """RDKit Mol of the ligand (atom k ↔ choice.rows[k]) and a report for structure.meta.

    Atoms typed from a template carry the int property TEMPLATE_PROP = 1."""
    from rdkit import Chem
    from rdkit.Geometry import Point3D

    from . import ccd

    rows = choice.rows
    local = {row: k for k, row in enumerate(rows)}
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
    by_res: dict = {}
    for i in rows:
        by_res.setdefault((table.chain[i], table.resseq[i], table.icode[i], table.resname[i]), []).append(i)
    templates = ccd.components({k[3] for k in choice.residues}) if use_ccd else {}
    prot_links = protein_links(table, rows, links)
    near_link = {l_ for _p, l_ in prot_links}
    bonds: dict = {}               # (a, b) local → order (1, 2, 3)
    report: dict = {}
    h_from_template: dict = {}     # local atom → template H count
    templated: set = set()
    for key in choice.residues:
        res_rows = by_res[key]
        heavy = [i for i in res_rows if table.element[i] not in ("H", "D")]
        comp = templates.get(key[3])
        dist = bondlib.distance_bonds(table.coords, table.element, np.asarray(res_rows, dtype=np.int64))
        if comp is None:
            for i, j, _o in dist:
                bonds.setdefault(tuple(sorted((local[i], local[j]))), 1)
            report[residue_id(key)] = ("geometry (not in the CCD)" if use_ccd and ccd.ccd_path()
                                       else "geometry (no CCD available)" if use_ccd else "geometry (CCD off)")
            continue
        matched = {}
        for i in heavy:
            k = comp.index(table.name[i])
            if k is not None and comp.elements[k] == table.element[i]:
                matched[i] = k
        tnb = comp.neighbours()
        by_t = {k: i for i, k in matched.items()}
        is_h_t = [e in ("H", "D") for e in comp.elements]
        complete = set()
        for i, k in matched.items():
            missing = [m for m in tnb[k] if not is_h_t[m] and m not in by_t and not comp.leaving[m]]
            if not missing:
                complete.add(i)
        for a_t, b_t, order, _arom in comp.bonds:
            if a_t in by_t and b_t in by_t:
                i, j = by_t[a_t], by_t[b_t]
                d = np.linalg.norm(table.coords[i] - table.coords[j])
                if d <= covalent_radius(table.element[i]) + covalent_radius(table.element[j]) + bondlib.BOND_TOLERANCE:
                    bonds[tuple(sorted((local[i], local[j])))] = order
        for i, j, _o in dist:   # atoms the template does not know, and hydrogens, bond by distance
            if i not in matched or j not in matched:
                bonds.setdefault(tuple(sorted((local[i], local[j]))), 1)
        file_h = any(table.element[i] in ("H", "D") for i in res_rows)
        for i, k in matched.items():
            rw.GetAtomWithIdx(local[i]).SetFormalCharge(int(comp.charges[k]))
            if not file_h:
                h_from_template[local[i]] = sum(1 for m in tnb[k] if is_h_t[m])
        good = {i for i in complete if i not in near_link}
        # atoms bonded to a protein-linked atom: the reaction may have changed their bonds too
        for p_, l_ in prot_links:
            for i, k in matched.items():
                if any(by_t.get(m) == l_ for m in tnb[k]):
                    good.discard(i)
        templated |= {local[i] for i in good}
        n_t = sum(1 for e in comp.elements if e not in ("H", "D"))
        note = f"CCD template: {len(good)}/{len(heavy)} heavy atoms typed from it ({n_t} in the template)"
        off = sorted(table.name[i] for i in heavy if i not in good)
        if off:
            note += "; geometry for " + " ".join(off)
        report[residue_id(key)] = note
    # links between the residues of a composite: single bonds; each replaces a template H
    for a, b in choice.internal_links:
        la, lb = local[a], local[b]
        bonds[tuple(sorted((la, lb)))] = 1
        for x in (la, lb):
            if h_from_template.get(x, 0) > 0:
                h_from_template[x] -= 1
    for (a, b), order in sorted(bonds.items()):
        rw.AddBond(a, b, {1: Chem.BondType.SINGLE, 2: Chem.BondType.DOUBLE,
                          3: Chem.BondType.TRIPLE}.get(order, Chem.BondType.SINGLE))
    for k in templated:
        rw.GetAtomWithIdx(k).SetIntProp(TEMPLATE_PROP, 1)
    for k, n in h_from_template.items():
        rw.GetAtomWithIdx(k).SetNumExplicitHs(max(0, n))
    ph_notes = _ph7(rw, templated, h_from_template)
    conf = Chem.Conformer(len(rows))
    for k, row in enumerate(rows):
        conf.SetAtomPosition(k, Point3D(*map(float, table.coords[row])))
    conf.Set3D(True)
    mol = rw.GetMol()
    mol.AddConformer(conf, assignId=True)
    mol.UpdatePropertyCache(strict=False)
    from rdkit import RDLogger
    RDLogger.DisableLog("rdApp.*")
    try:
        problem = Chem.SanitizeMol(Chem.Mol(mol), catchErrors=True) if templated else None
    finally:
        RDLogger.EnableLog("rdApp.*")
    if templated and problem != Chem.SanitizeFlags.SANITIZE_NONE:
        # the template does not fit what the file shows (valence): type it all from geometry
        for a in mol.GetAtoms():
            a.SetIntProp(TEMPLATE_PROP, 0)
        report["fallback"] = f"RDKit rejected the templated molecule ({problem.name}); geometry typing"
        templated = set()
    meta = {
        "ligand_chemistry": ccd.ccd_source() if templated else "geometry",
        "ligand_residues": [residue_id(k) for k in choice.residues],
        "ligand_choice": choice.how,
        "ligand_templates": report,
    }
    if ph_notes:
        meta["ligand_ph7"] = ph_notes
    if prot_links:
        meta["covalent_links"] = [[_atom_id(table, p), _atom_id(table, l_)] for p, l_ in prot_links]
    if choice.internal_links:
        meta["ligand_links"] = [[_atom_id(table, a), _atom_id(table, b)] for a, b in choice.internal_links]
    return mol, bool(templated), meta


def _atom_id(table, i) -> list:
    return [table.chain[i], int(table.resseq[i]), table.icode[i], table.resname[i], table.name[i]]


def _ph7(rw, templated, h_counts) -> list[str]:
    """Protonation at pH 7 of template H counts: acids with pKa well below 7 lose their H.

    Carboxylic acids (pKa ~4-5), phosphoric/phosphonic acid OH (pKa1 ~2, pKa2 ~6-7; the
    reference types every terminal O on P as an anion) and sulfonic/sulfuric acid OH
    (pKa < 1) become O−. Amines, amidines and guanidines are left to the typing, which
    makes them cationic (N3+, Ng+) as the reference does; everything else keeps the CCD
    template's state (its tautomer and any charges it defines)."""
    from rdkit import Chem

    notes = []
    for k in sorted(h_counts):
        a = rw.GetAtomWithIdx(k)
        if a.GetSymbol() != "O" or k not in templated or a.GetNumExplicitHs() != 1 or a.GetFormalCharge():
            continue
        heavy = [n for n in a.GetNeighbors() if n.GetAtomicNum() > 1]
        if len(heavy) != 1:
            continue
        p = heavy[0]
        bond = rw.GetBondBetweenAtoms(k, p.GetIdx())
        if bond.GetBondType() != Chem.BondType.SINGLE:
            continue
        double_o = [n for n in p.GetNeighbors() if n.GetSymbol() == "O" and n.GetIdx() != k and
                    rw.GetBondBetweenAtoms(p.GetIdx(), n.GetIdx()).GetBondTypeAsDouble() == 2.0]
        kind = None
        if p.GetSymbol() == "C" and double_o and not p.GetIsAromatic():
            kind = "carboxylic acid"
        elif p.GetSymbol() == "P":
            kind = "phosphate/phosphonate"
        elif p.GetSymbol() == "S" and len(double_o) >= 2:
            kind = "sulfonate/sulfate"
        if kind:
            a.SetNumExplicitHs(0)
            a.SetFormalCharge(-1)
            info = a.GetPDBResidueInfo()
            notes.append(f"{info.GetName().strip() if info else k}: deprotonated ({kind})")
    return notes



# ------------------------------------------------------------------ the --ligands file
def read_ligand_map(path) -> dict[str, str]:
    """``generate --ligands FILE``: structure id → ``RES:CHAIN:NUM[+…]``.

    YAML (``.yaml``/``.yml``): a mapping ``id: selector``. CSV (anything else): two columns
    ``id,ligand`` per line; a first line ``id,ligand`` is a header; ``#`` starts a comment.
    Every selector is checked here, so a typo stops the run before any work, naming the file."""
    from pathlib import Path

    import yaml

    from .readers import check_text_file

    path = Path(path)
    text = check_text_file(path)
    out: dict[str, str] = {}
    if path.suffix.lower() in (".yaml", ".yml"):
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise InputError(path, f"not valid YAML ({exc.__class__.__name__})") from None
        if not isinstance(data, dict):
            raise InputError(path, "expected a mapping: structure id -> RES:CHAIN:NUM")
        items = [(str(k), v) for k, v in data.items()]
    else:
        import csv
        import io
        items = []
        for n, row in enumerate(csv.reader(io.StringIO(text)), start=1):
            cells = [c.strip() for c in row]
            if not cells or not any(cells) or cells[0].startswith("#"):
                continue
            if len(cells) != 2:
                raise InputError(path, f"line {n}: expected 2 columns (id,ligand), got {len(cells)}")
            if n == 1 and cells[0].lower() == "id" and cells[1].lower() == "ligand":
                continue
            items.append((cells[0], cells[1]))
    for key, value in items:
        if not key or not isinstance(value, str) or not value.strip():
            raise InputError(path, f"structure {key!r}: ligand must be a string RES:CHAIN:NUM[+RES:CHAIN:NUM]")
        if key in out:
            raise InputError(path, f"structure {key!r} is listed twice")
        parse_selectors(value, where=f"{path}: structure {key!r}")
        out[key] = value.strip()
    return out


def prefetch_templates(sources) -> int:
    """Read the CCD once for the HETATM residues of many PDB inputs (a run's structures), so
    each structure does not pay a pass of its own. Returns how many names were asked for.
    mmCIF inputs are left to the per-structure read."""
    from . import ccd

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
