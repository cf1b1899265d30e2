"""IDATM-like atom typing from coordinates and connectivity only (no bond orders).

Used for HETATM ligands read from PDB files and for non-standard residues: a
documented simplification of the Meng & Lewis (1991) passes as ChimeraX runs
them (docs/HBOND_CRITERIA.md 1c).  What is kept and what is simplified is listed in
docs/INTERACTIONS.md ("Geometry-based typing").
"""
from __future__ import annotations

import numpy as np

IMINE_CN = 1.30   # Å; C=N 1.27-1.29 in imines, C-N >= 1.32 in amides, amidines, anilines

# pass 4.25 reference lengths (A): C-N, N-N, N-O(terminal)
NPL_REF = {"C": 1.3629, "N": 1.3337, "O": 1.3485}
_TERMINAL_SP2 = {"O2", "S2", "N2", "O1", "N1", "O2-", "O3-"}


def _ref_key(element, nb, j):
    """Element key of a neighbour for the pass 4.25 reference length (O only if terminal)."""
    e = element[j]
    if e == "O" and len(nb[j]) != 1:
        return None
    return e


_HEAVY_SP2_RING = {"C2", "Npl", "Sar", "O3", "S3", "N3", "Oar", "Car", "N2", "N2+", "C3"}


def _angle(a, v, b) -> float:
    u, w = a - v, b - v
    c = np.dot(u, w) / (np.linalg.norm(u) * np.linalg.norm(w) + 1e-12)
    return float(np.degrees(np.arccos(np.clip(c, -1.0, 1.0))))


def _planar(xyz: np.ndarray, tol: float = 0.12) -> bool:
    centred = xyz - xyz.mean(0)
    _u, sv, _vt = np.linalg.svd(centred)
    return float(sv[-1]) / np.sqrt(len(xyz)) < tol


class _Atoms:
    """What the passes of one ``geometry_types`` call share: the atoms, their neighbours and
    coordinates, and the types assigned so far (``t``)."""

    def __init__(self, atoms, coords, element, nb):
        self.atoms = list(atoms)
        self.aset = set(self.atoms)
        self.el = {i: element[i] for i in self.atoms}
        self.element, self.nb, self.xyz = element, nb, coords
        self.t: dict[int, str] = {}
        self.hav = {i: sum(1 for j in nb[i] if element[j] not in ("H", "D")) for i in self.atoms}

    def d(self, i, j) -> float:
        return float(np.linalg.norm(self.xyz[i] - self.xyz[j]))

    def free_o(self, i, need_no_h=False) -> int:
        element, nb = self.element, self.nb
        out = 0
        for j in nb[i]:
            if element[j] == "O" and sum(1 for k in nb[j] if element[k] not in ("H", "D")) == 1:
                if need_no_h and any(element[k] in ("H", "D") for k in nb[j]):
                    continue
                out += 1
        return out


def geometry_types(atoms, coords, element, nb, rings, imine_n2: bool = True,
                   urea_ng: bool = False) -> dict[int, str]:
    """Types for ``atoms`` (one residue or one ligand) from geometry.

    nb: neighbour lists (global indices, already restricted to bonds that exist);
    rings: list of tuples of atom indices (intra-residue smallest rings);
    imine_n2: misigen's terminal-imine fix (off in the ``chimerax`` definition);
    urea_ng: the reference's Ng+ for the N of a urea (``chimerax``; see apply_charge_pass).
    """
    G = _Atoms(atoms, coords, element, nb)
    _pass_hydrogens(G)
    _pass_neighbour_count(G)
    _pass_one_neighbour(G, imine_n2)
    _pass_bond_lengths(G)
    claimed = _pass_npl_double_bond(G)
    aromatic_atoms = _pass_aromatic_rings(G, rings, claimed)
    _pass_aryl_n(G, rings, claimed, aromatic_atoms)
    _pass_late_sp2(G, aromatic_atoms)
    apply_charge_pass(G.atoms, G.t, element, nb, aromatic_atoms, rings, urea_ng=urea_ng)
    return G.t


def _pass_hydrogens(G: _Atoms) -> None:
    """Pass 1: hydrogens."""
    for i in G.atoms:
        if G.el[i] in ("H", "D"):
            G.t[i] = "HC" if any(G.element[j] == "C" for j in G.nb[i]) else "H"


def _four_neighbours(G: _Atoms, i: int, e: str) -> str:
    if e == "C":
        return "C3"
    if e == "N":
        return "N3+"
    if e == "P":
        f = G.free_o(i)
        return "Pac" if f >= 2 else "Pox" if f == 1 else "P3+"
    if e == "S":
        f = G.free_o(i)
        return "Sac" if f >= 3 else "Son" if f >= 1 else "S"
    return e


def _three_neighbours(G: _Atoms, i: int, e: str) -> str:
    xyz, nb, element, d = G.xyz, G.nb, G.element, G.d
    a, b, c = nb[i]
    mean = (_angle(xyz[a], xyz[i], xyz[b]) + _angle(xyz[a], xyz[i], xyz[c])
            + _angle(xyz[b], xyz[i], xyz[c])) / 3.0
    if e == "C":
        short = min(d(i, j) for j in nb[i])
        if mean < 113.5 or (mean < 116.5 and (short > 1.53 or (short > 1.42 and mean < 115))):
            return "C3"
        return "Cac" if G.free_o(i, need_no_h=True) >= 2 else "C2"
    if e == "N":
        return "N3" if mean < 115 else ("Ntr" if G.free_o(i) >= 2 else "Npl")
    if e == "S":
        return "Sxd" if any(element[j] == "O" for j in nb[i]) else "S3+"
    if e == "O":
        return "O3"
    return "P3+"


def _two_neighbour_n(G: _Atoms, i: int, th: float) -> str:
    nb, element, d = G.nb, G.element, G.d
    if th < 115:
        return "N3"
    if th >= 160:
        return "N1+"
    dbl = False
    for j in nb[i]:
        if element[j] == "N" and d(i, j) <= 1.32:
            dbl = True
        if element[j] == "C" and d(i, j) <= 1.38:
            carbonyl = any(element[k] in ("O", "S") and len(nb[k]) == 1
                           and d(j, k) <= (1.30 if element[k] == "O" else 1.76)
                           for k in nb[j])
            if not carbonyl:
                dbl = True
    return "N2" if dbl else "Npl"


def _two_neighbours(G: _Atoms, i: int, e: str) -> str:
    xyz = G.xyz
    a, b = G.nb[i]
    th = _angle(xyz[a], xyz[i], xyz[b])
    if e == "C":
        return "C3" if th < 115 else "C2" if th < 160 else "C1"
    if e == "N":
        return _two_neighbour_n(G, i, th)
    if e == "O":
        return "O3"
    if e == "S":
        return "S3"
    return e


def _pass_neighbour_count(G: _Atoms) -> None:
    """Pass 2: by neighbour count (one neighbour: pass 3)."""
    t = G.t
    for i in G.atoms:
        e = G.el[i]
        if i in t:
            continue
        n = len(G.nb[i])
        if e not in ("C", "N", "O", "S", "P"):
            t[i] = e
        elif n >= 4:
            t[i] = _four_neighbours(G, i, e)
        elif n == 3:
            t[i] = _three_neighbours(G, i, e)
        elif n == 2:
            t[i] = _two_neighbours(G, i, e)
        elif n == 0:
            t[i] = {"O": "O3", "N": "N3", "S": "S3", "C": "C3"}.get(e, e)


def _terminal_c(G: _Atoms, i, j, pt, pe, dd) -> None:
    t, nb = G.t, G.nb
    if pt == "C1" and dd <= 1.22:
        t[i] = "C1"
    elif pe == "N" and len(nb[j]) < 3 and dd <= 1.20:
        t[i] = "C1"
        t[j] = "N1"
    elif (pe == "C" and dd <= 1.41) or (pe == "N" and dd <= 1.37):
        t[i] = "C2"
    else:
        t[i] = "C3"


def _terminal_n(G: _Atoms, i, j, pt, pe, dd, imine_n2: bool) -> None:
    t, nb, element = G.t, G.nb, G.element
    if (pt in ("C1",) and dd <= 1.20) or (pe == "N" and dd <= 1.20) or pt == "N1+" \
            or (pe == "O" and dd < 1.21):
        t[i] = "N1"
    elif (pt in ("C2", "C3") and dd > 1.38) or (pt == "N3" and dd > 1.43) or \
            (pt == "Npl" and dd > 1.41):
        t[i] = "N3"
    elif imine_n2 and pe == "C" and dd <= IMINE_CN and len(nb[j]) == 3 and not any(
            element[k] in ("N", "O") for k in nb[j] if k != i):
        # [fix] a terminal C=N-H (imine; e.g. the thioimidate a nitrile warhead forms with
        # Cys) is an acceptor N2, not an NH2; the reference types it Npl (donor only)
        t[i] = "N2"
    elif pe in ("C", "N"):
        t[i] = "Npl"
    else:
        t[i] = "N3"


def _terminal_o(G: _Atoms, i, j, pt, pe, dd) -> None:
    t, nb, element, d = G.t, G.nb, G.element, G.d
    if pt in ("Cac", "Ntr", "N1+"):
        t[i] = "O2-"
    elif pt in ("Pac", "Sac", "N3+", "Pox", "Son", "Sxd"):
        t[i] = "O3-"
        if pt == "Pac":
            terminal = [k for k in nb[j] if element[k] == "O" and len(nb[k]) == 1]
            others = [d(j, k) for k in terminal if k != i]
            if len(terminal) == 3 and all(dd >= o + 0.05 for o in others):
                t[i] = "O3"
    elif pe == "C" and len(nb[j]) == 1 and dd <= 1.17:
        t[i] = "O1+"
    elif pe == "C" and dd <= 1.30:
        t[i] = "O2"
        if t.get(j) in ("C3", None):
            t[j] = "C2"
    elif pe == "O" and len(nb[j]) == 1 and dd <= 1.338:
        t[i] = "O2"
    elif pe == "N" and len(nb[j]) == 1 and dd <= 1.21:
        t[i] = "O1"
    else:
        t[i] = "O3"


def _terminal_s(G: _Atoms, i, j, pt, pe, dd) -> None:
    t = G.t
    if pe == "P":
        t[i] = "S3-"
    elif pt == "N1+":
        t[i] = "S2"
    elif pe == "C" and dd <= 1.76:
        t[i] = "S2"
        if t.get(j) in ("C3", None):
            t[j] = "C2"
    else:
        t[i] = "S3"


def _pass_one_neighbour(G: _Atoms, imine_n2: bool) -> None:
    """Pass 3: atoms with one neighbour, by its type so far and the bond length."""
    t = G.t
    for i in G.atoms:
        if i in t or len(G.nb[i]) != 1:
            continue
        e, j = G.el[i], G.nb[i][0]
        pt, pe, dd = t.get(j, G.element[j]), G.element[j], G.d(i, j)
        if e == "C":
            _terminal_c(G, i, j, pt, pe, dd)
        elif e == "N":
            _terminal_n(G, i, j, pt, pe, dd, imine_n2)
        elif e == "O":
            _terminal_o(G, i, j, pt, pe, dd)
        elif e == "S":
            _terminal_s(G, i, j, pt, pe, dd)
        elif e == "P":
            t[i] = "P3+"


def _pass_bond_lengths(G: _Atoms) -> None:
    """Pass 4: bond-length re-checks of 2-neighbour C and N."""
    t, nb, element, el, d = G.t, G.nb, G.element, G.el, G.d
    for i in G.atoms:
        if len(nb[i]) != 2:
            continue
        if el[i] == "C" and t[i] in ("C3", "C2"):
            short = any((element[j] == "C" and d(i, j) <= 1.42) or (element[j] == "N" and d(i, j) <= 1.41)
                        for j in nb[i])
            long_ = any((element[j] == "C" and d(i, j) > 1.53) or (element[j] == "N" and d(i, j) > 1.46)
                        or (element[j] == "O" and d(i, j) > 1.44) for j in nb[i])
            if short:
                t[i] = "C2"
            elif long_:
                t[i] = "C3"
        elif el[i] == "N" and t[i] == "N3":
            if any((element[j] == "C" and d(i, j) <= 1.38) or (element[j] == "N" and d(i, j) <= 1.32)
                   for j in nb[i]):
                t[i] = "N2" if G.hav[i] < 2 else "Npl"


def _pass_npl_double_bond(G: _Atoms) -> set[int]:
    """Pass 4.25: a 2-connected Npl without H whose bonds are shorter than single bonds takes a
    double bond to the neighbour that is most double-bond-like (it is an N2 then). Returns the
    atoms given a double bond here."""
    t, nb, element, d = G.t, G.nb, G.element, G.d
    claimed: set[int] = set()
    for i in G.atoms:
        if t.get(i) != "Npl" or len(nb[i]) != 2 or any(element[j] in ("H", "D") for j in nb[i]):
            continue
        refs = [NPL_REF.get(_ref_key(element, nb, j)) for j in nb[i]]
        if None in refs:
            continue
        lengths = [d(i, j) for j in nb[i]]
        if np.prod(lengths) >= np.prod(refs):
            continue
        k = int(np.argmin([x / r for x, r in zip(lengths, refs)]))
        j = nb[i][k]
        if lengths[k] > refs[k] or j in claimed or t.get(j) == "Car" or \
                (element[j] == "N" and len(nb[j]) > 2) or \
                any(len(nb[m]) == 1 and t.get(m) in _TERMINAL_SP2 for m in nb[j] if m != i):
            continue
        t[i] = "N2"
        t[j] = {"C": "C2", "N": "N2", "O": "O2"}[element[j]]
        claimed.update((i, j))
    return claimed


def _homa_aromatic(G: _Atoms, ring) -> bool:
    """A HOMA-like check on the C-C / C-N bond lengths of a ring with sp3-like atoms."""
    ref = {frozenset(("C",)): 1.38586, frozenset(("C", "N")): 1.34148, frozenset(("C", "O")): 1.265}
    dev, nbond = [], 0
    for k in range(len(ring)):
        a, b = ring[k], ring[(k + 1) % len(ring)]
        key = frozenset((G.el[a], G.el[b]))
        nbond += 1
        if key in ref:
            dev.append((G.d(a, b) - ref[key]) ** 2)
    homa = 1 - 792 * (np.mean(dev) if dev else 0.0)
    return not nbond * homa < -35


def _ring_candidate(G: _Atoms, ring) -> bool:
    """Whether a ring may be aromatic: all its atoms typed here, sp2-compatible, planar."""
    t, nb, el = G.t, G.nb, G.el
    if not all(r in G.aset for r in ring):
        return False
    if any(len(nb[r]) > 3 or t.get(r) not in _HEAVY_SP2_RING for r in ring):
        return False
    if any(t[r] == "C3" and len(nb[r]) != 2 for r in ring):
        return False
    if len(ring) == 5 and 2 <= sum(el[r] == "O" for r in ring) <= 4:
        return False
    return True


def _aromatic_ring_types(G: _Atoms, ring) -> None:
    """Ring N / O / S (and C) types of an aromatic ring."""
    t, nb, element, el, d = G.t, G.nb, G.element, G.el, G.d
    donors_5 = [r for r in ring if (el[r] == "N" and len(nb[r]) == 3) or el[r] in ("O", "S")]
    two_n = [r for r in ring if el[r] == "N" and len(nb[r]) == 2]
    for r in ring:
        if el[r] == "C":
            t[r] = "Car"
        elif el[r] == "O":
            t[r] = "Oar"
        elif el[r] == "S":
            t[r] = "Sar"
        elif el[r] == "N" and len(nb[r]) == 3:
            t[r] = "Npl" if not any(element[k] == "O" and len(nb[k]) == 1 for k in nb[r]) else "N2+"
    if len(ring) == 5 and two_n and not donors_5:
        # the ring needs one pyrrole-type N: the 2-bonded N with the longest bonds carries the H
        nh = max(two_n, key=lambda r: (sum(d(r, k) for k in nb[r]), -r))
        for r in two_n:
            t[r] = "Npl" if r == nh else "N2"
    else:
        for r in two_n:
            t[r] = "N2"


def _pass_aromatic_rings(G: _Atoms, rings, claimed) -> set[int]:
    """Pass 4.5 (simplified): planar rings of sp2-compatible atoms are aromatic. Returns their atoms."""
    t, nb = G.t, G.nb
    aromatic_atoms: set[int] = set()
    for ring in rings:
        if not _ring_candidate(G, ring):
            continue
        # a ring C=O / C=S (pyrimidinone, guanine's 6-ring, pyridone): not aromatic in the
        # reference's bond-order model (3shy 5FO, 4dst GCP, 4kya 1UG); its ring N are typed below
        exo = {r for r in ring for m in nb[r] if m not in ring and len(nb[m]) == 1 and t.get(m) in ("O2", "S2")}
        if not _planar(G.xyz[list(ring)]):
            continue
        if any(t[r] in ("O3", "S3", "N3", "C3") for r in ring) and not _homa_aromatic(G, ring):
            continue
        if exo:
            _ring_n_from_bond_lengths(ring, exo, claimed, t, G.el, nb, G.d)
            continue
        aromatic_atoms.update(ring)
        _aromatic_ring_types(G, ring)
    return aromatic_atoms


def _pass_aryl_n(G: _Atoms, rings, claimed, aromatic_atoms) -> None:
    """Pass 4.75: a non-ring N2 next to an aromatic C whose other bond is no C=N double bond is an
    Npl (an aryl N-H: 1bju GP6's urea N)."""
    t, nb, element, d = G.t, G.nb, G.element, G.d
    ring_atoms = {r for ring in rings for r in ring}
    for i in G.atoms:
        if t.get(i) != "N2" or i in ring_atoms or i in claimed:
            continue
        heavy = [j for j in nb[i] if element[j] not in ("H", "D")]
        if len(heavy) == 2 and any(j in aromatic_atoms for j in heavy) and \
                all(j in aromatic_atoms or d(i, j) > IMINE_CN for j in heavy):
            t[i] = "Npl"


def _pass_late_sp2(G: _Atoms, aromatic_atoms) -> None:
    """Passes 5, 8 (part) and 9: a C2 with no sp2 neighbour is sp3; an aniline-like N (one heavy
    neighbour, aromatic) is planar; a terminal O3 on a non-aromatic sp2 C is a carbonyl O2."""
    t, nb, element, el = G.t, G.nb, G.element, G.el
    sp2 = {"C2", "Car", "Cac", "N2", "Npl", "O2", "S2", "Ntr", "N2+", "O2-", "Ng+", "C1", "N1"}
    for i in G.atoms:
        if t.get(i) == "C2" and not any(t.get(j, "") in sp2 for j in nb[i]):
            t[i] = "C3"
    for i in G.atoms:
        if el[i] == "N" and G.hav[i] == 1 and t[i] in ("N3", "N2", "Npl") and i not in aromatic_atoms:
            j = [k for k in nb[i] if element[k] not in ("H", "D")][0]
            if j in aromatic_atoms:
                t[i] = "Npl"
    for i in G.atoms:
        if t.get(i) == "O3" and len(nb[i]) == 1:
            j = nb[i][0]
            if t.get(j) == "C2" and j not in aromatic_atoms and not any(
                    t.get(k) in ("C2", "N2", "O2") for k in nb[j] if k != i):
                t[i] = "O2"


def _ring_n_from_bond_lengths(ring, saturated, claimed, t, el, nb, d):
    """A planar ring that is not aromatic (it has an exocyclic C=O): place its C=N / C=C double
    bonds greedily, shortest bond first relative to a C-N / C-C reference, each atom in at most one
    (atoms of aromatic rings, 3-connected N and the C of the C=O take none; those given one by
    pass 4.25, ``claimed``, keep it); a 2-connected ring N
    in one is N2, otherwise it carries the H (Npl). As the reference's bond orders (4dst GCP N1
    N2 / N3 Npl; 1h2t 7MG N1 Npl; 4alw HY7 N1 Npl)."""
    ref = {frozenset(("C",)): 1.38586, frozenset(("C", "N")): 1.34148}
    busy = set(saturated) | set(claimed) | {r for r in ring if t.get(r) == "Car" or (el[r] == "N" and len(nb[r]) >= 3)}
    bonds = []
    for k in range(len(ring)):
        a, b = ring[k], ring[(k + 1) % len(ring)]
        key = frozenset((el[a], el[b]))
        if key in ref:
            bonds.append((d(a, b) / ref[key], a, b))
    double = {r for r in ring if r in claimed}
    for _ratio, a, b in sorted(bonds):
        if a not in busy and b not in busy:
            busy.update((a, b))
            double.update((a, b))
    for r in ring:
        if el[r] == "N" and len(nb[r]) == 2 and t.get(r) in ("N2", "Npl", "N3"):
            t[r] = "N2" if r in double else "Npl"


def apply_charge_pass(atoms, t, element, nb, aromatic_atoms, rings, types_lookup=None, urea_ng=False):
    """Pass 6: aliphatic amines are N3+, guanidinium/amidinium N are Ng+, O on Cac is O2-.

    urea_ng: as a running ChimeraX does, the C=O of a urea does not stop its N becoming Ng+
    (1bju GP6, 1hvi A77; the criteria sheet, read from later sources, excludes an O2/S2 there)."""
    look = (lambda j: t.get(j) or (types_lookup(j) if types_lookup else element[j]))
    in_ring = set()
    for r in rings:
        in_ring.update(r)
    for i in atoms:
        if element[i] == "N" and t.get(i) in ("N3", "Npl", "N2") and nb[i] and i not in aromatic_atoms:
            if all(look(j) in ("C3", "H", "D", "HC") for j in nb[i]) and any(
                    look(j) == "C3" for j in nb[i]):
                t[i] = "N3+"
    for i in atoms:
        if t.get(i) != "C2":
            continue
        ns = [j for j in nb[i] if element[j] == "N" and (look(j) == "Npl" or
              sum(1 for k in nb[j] if element[k] not in ("H", "D")) == 1)]
        if len(ns) >= 2 and not any(j in in_ring for j in ns) and \
                (urea_ng or not any(look(j) in ("O2", "S2") for j in nb[i])):
            for j in ns:
                if j in t:
                    t[j] = "Ng+"
    for i in atoms:
        if element[i] == "O" and t.get(i) in ("O3", "O2") and \
                sum(1 for j in nb[i] if element[j] not in ("H", "D")) == 1:
            j = [k for k in nb[i] if element[k] not in ("H", "D")][0]
            if look(j) == "Cac":
                t[i] = "O2-"
