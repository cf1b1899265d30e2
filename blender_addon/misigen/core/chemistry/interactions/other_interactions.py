"""Salt bridges, pi-stacking, cation-pi, halogen bonds, metal coordination, hydrophobic contacts.

Criteria: data/interactions/other_criteria.yaml (PLIP defaults, with sources there and in
docs/INTERACTIONS.md).  Charged groups and aromatic rings come from our own typing.
"""
from __future__ import annotations

import functools

import numpy as np

from ...data_files import load_table
from .hbond_geometry import angle, vec_angle
from .hbond_rules import ACCEPTOR_TYPES
from .model import Interaction
from .atom_typing import HIS_NAMES, Typed


@functools.lru_cache(maxsize=None)
def other_criteria() -> dict:
    return load_table("interactions/other_criteria.yaml")


class Group:
    """A charged group or an aromatic ring: atoms, centre, (normal)."""

    def __init__(self, atoms, coords, label):
        self.atoms = sorted(atoms)
        xyz = coords[self.atoms]
        self.centre = xyz.mean(0)
        self.label = label
        self.normal = None
        if len(self.atoms) >= 3:
            _u, _s, vt = np.linalg.svd(xyz - self.centre)
            self.normal = vt[-1]


def _partner_mask(T: Typed):
    s = T.s
    return ~s.ligand & ~s.is_water & T.active


def charged_groups(T: Typed, side_mask) -> tuple[list[Group], list[Group]]:
    """(positive, negative) groups among the atoms of ``side_mask``."""
    s = T.s
    t = T.types
    pos, neg = [], []
    done = set()
    idx = [i for i in np.nonzero(side_mask)[0].tolist() if not s.is_hydrogen[i]]
    for i in idx:
        if i in done:
            continue
        ti = t[i]
        if ti == "C2" or ti == "Cac" or ti in ("Pac", "Sac"):
            ng = [j for j in T.nb[i] if t[j] == "Ng+"]
            if len(ng) >= 2:
                pos.append(Group(ng + [i], s.coords, "guanidinium/amidinium"))
                done.update(ng)
                continue
            amid = [j for j in T.heavy_nb[i] if s.element[j] == "N" and t[j] in ("Npl", "N2")
                    and j not in T.atom_rings and len(T.heavy_nb[j]) == 1]
            if ti == "C2" and len(amid) >= 2 and not any(t[j] == "O2" for j in T.nb[i]) \
                    and s.ligand[i]:
                pos.append(Group(amid + [i], s.coords, "amidine"))
                done.update(amid)
                continue
            if ti == "Cac":
                o = [j for j in T.nb[i] if t[j] == "O2-"]
                if len(o) >= 2:
                    neg.append(Group(o, s.coords, "carboxylate"))
                    done.update(o)
                continue
            if ti in ("Pac", "Sac"):
                o = [j for j in T.nb[i] if t[j] == "O3-"]
                if len(o) >= 2:
                    neg.append(Group(o + [i], s.coords, "phosphate" if ti == "Pac" else "sulfonate"))
                    done.update(o)
                continue
        if ti == "N3+":
            if s.ligand[i] or s.resname[i] in ("LYS",) or s.name[i] == "N":
                pos.append(Group([i], s.coords, "ammonium"))
                done.add(i)
        elif ti == "N2+" and s.ligand[i]:
            pos.append(Group([i], s.coords, "cationic N"))
        elif s.ligand[i] and s.formal_charge[i] > 0 and s.element[i] == "N" and ti not in ("Ntr",) \
                and not any(t[j] == "O3-" for j in T.nb[i]):
            pos.append(Group([i], s.coords, "cationic N"))
        elif s.ligand[i] and s.formal_charge[i] < 0 and ti not in ("O2-", "O3-") and s.element[i] != "O":
            neg.append(Group([i], s.coords, "anionic atom"))
    # histidine: positive when both ring N carry H, or when the file has no H for it
    for i in idx:
        if s.resname[i] in HIS_NAMES and s.name[i] == "CE1" and not s.ligand[i]:
            ring_n = [j for j in T.nb[i] if s.name[j] in ("ND1", "NE2")]
            res_has_h = any(s.is_hydrogen[j] for k in ring_n for j in T.nb[k]) or \
                any(s.is_hydrogen[j] for j in T.nb[i])
            protonated = all(T.h_nb[k] for k in ring_n)
            if len(ring_n) == 2 and (protonated or not res_has_h or s.resname[i] in ("HIP", "HSP")):
                pos.append(Group(ring_n + [i], s.coords, "imidazolium"))
    return pos, neg


def aromatic_rings(T: Typed, side_mask) -> list[Group]:
    s = T.s
    out = []
    for k, ring in enumerate(T.rings):
        if not T.aromatic_ring[k] or not side_mask[ring[0]] or len(ring) not in (5, 6):
            continue
        g = Group(list(ring), s.coords, f"{len(ring)}-ring")
        out.append(g)
    return out


def _nearest(atoms, point, coords):
    d = np.linalg.norm(coords[atoms] - point, axis=1)
    return atoms[int(np.argmin(d))]


def _make(T, kind, p, l_, dist, angles, criterion, donor="", extra=None, p_atoms=None,
          l_atoms=None) -> Interaction:
    s = T.s
    return Interaction(kind=kind, protein_index=int(p), ligand_index=int(l_), chain=str(s.chain[p]),
                       resname=str(s.resname[p]), resseq=int(s.resseq[p]), icode=str(s.icode[p]),
                       protein_atom=str(s.name[p]), ligand_atom=str(s.name[l_]), donor=donor,
                       distance=float(dist), angles=angles, criterion=criterion, extra=extra or {},
                       protein_atoms=tuple(_names(T, p_atoms if p_atoms is not None else [p])),
                       ligand_atoms=tuple(_names(T, l_atoms if l_atoms is not None else [l_])),
                       rule=kind, limit=float(other_criteria()[kind]["max_distance"]))


def _names(T, atoms):
    return [str(T.s.name[a]) for a in atoms]


def _offset(g1: Group, g2: Group) -> float:
    v = g2.centre - g1.centre
    o1 = np.linalg.norm(v - np.dot(v, g1.normal) * g1.normal)
    o2 = np.linalg.norm(v - np.dot(v, g2.normal) * g2.normal)
    return float(min(o1, o2))


class Search:
    """One search of a typed structure: its protein and ligand sides, the H-bond slops, and what
    several detectors share (charged groups, aromatic rings), each found once."""

    def __init__(self, T: Typed, dist_slop=None, angle_slop=None):
        self.T, self.s = T, T.s
        self.dist_slop, self.angle_slop = dist_slop, angle_slop
        self.prot = _partner_mask(T)
        self.lig = T.s.ligand.copy()

    @functools.cached_property
    def charged(self) -> tuple[tuple[list, list], tuple[list, list]]:
        """((protein +, protein −), (ligand +, ligand −)) charged groups."""
        return charged_groups(self.T, self.prot), charged_groups(self.T, self.lig)

    @functools.cached_property
    def rings(self) -> tuple[list, list]:
        """(protein, ligand) aromatic rings."""
        return aromatic_rings(self.T, self.prot), aromatic_rings(self.T, self.lig)


def salt_bridges(S: Search) -> list[Interaction]:
    s, T = S.s, S.T
    lim = other_criteria()["salt_bridge"]["max_distance"]
    (ppos, pneg), (lpos, lneg) = S.charged
    out = []
    for pg_list, lg_list, sign in ((ppos, lneg, "protein +, ligand -"), (pneg, lpos, "protein -, ligand +")):
        for pg in pg_list:
            for lg in lg_list:
                d = float(np.linalg.norm(pg.centre - lg.centre))
                if d <= lim:
                    p = _nearest(pg.atoms, lg.centre, s.coords)
                    l_ = _nearest(lg.atoms, pg.centre, s.coords)
                    out.append(_make(T, "salt_bridge", p, l_, d, {},
                                     f"charge centres <= {lim} A ({pg.label} / {lg.label}; {sign})",
                                     extra={"protein_atoms": _names(T, pg.atoms),
                                            "ligand_atoms": _names(T, lg.atoms)},
                                     p_atoms=pg.atoms, l_atoms=lg.atoms))
    return out


def _stacking(q: dict, pr: Group, lr: Group) -> tuple[str, float, float] | None:
    """(geometry, angle between the normals, offset) of two rings that stack, else None."""
    a = vec_angle(pr.normal, lr.normal)
    a = min(a, 180.0 - a)
    off = _offset(pr, lr)
    if off > q["max_offset"]:
        return None
    if a <= q["parallel_max_angle"]:
        return "face-to-face", a, off
    if a >= q["tshape_min_angle"]:
        return "edge-to-face", a, off
    return None


def pi_stacking(S: Search) -> list[Interaction]:
    s, T = S.s, S.T
    q = other_criteria()["pi_stacking"]
    prings, lrings = S.rings
    out = []
    for pr in prings:
        for lr in lrings:
            d = float(np.linalg.norm(pr.centre - lr.centre))
            if d > q["max_distance"]:
                continue
            got = _stacking(q, pr, lr)
            if got is None:
                continue
            kind_txt, a, off = got
            p = _nearest(pr.atoms, lr.centre, s.coords)
            l_ = _nearest(lr.atoms, pr.centre, s.coords)
            out.append(_make(T, "pi_stacking", p, l_, d, {"normals": a},
                             f"{kind_txt}: centroids <= {q['max_distance']} A, offset <= {q['max_offset']} A",
                             extra={"geometry": kind_txt, "offset": off,
                                    "protein_ring": _names(T, pr.atoms), "ligand_ring": _names(T, lr.atoms),
                                    "protein_ring_rows": list(map(int, pr.atoms)),
                                    "ligand_ring_rows": list(map(int, lr.atoms))},
                             p_atoms=pr.atoms, l_atoms=lr.atoms))
    return out


def cation_pi(S: Search) -> list[Interaction]:
    s, T = S.s, S.T
    q = other_criteria()["cation_pi"]
    (ppos, _pneg), (lpos, _lneg) = S.charged
    prings, lrings = S.rings
    out = []
    for cations, rings, cation_side in ((ppos, lrings, "protein"), (lpos, prings, "ligand")):
        for cg in cations:
            for rg in rings:
                d = float(np.linalg.norm(cg.centre - rg.centre))
                if d > q["max_distance"]:
                    continue
                v = cg.centre - rg.centre
                off = float(np.linalg.norm(v - np.dot(v, rg.normal) * rg.normal))
                if off > q["max_offset"]:
                    continue
                if cation_side == "protein":
                    p, l_ = _nearest(cg.atoms, rg.centre, s.coords), _nearest(rg.atoms, cg.centre, s.coords)
                else:
                    p, l_ = _nearest(rg.atoms, cg.centre, s.coords), _nearest(cg.atoms, rg.centre, s.coords)
                out.append(_make(T, "cation_pi", p, l_, d, {},
                                 f"{cg.label} ({cation_side}) over ring: <= {q['max_distance']} A, "
                                 f"offset <= {q['max_offset']} A",
                                 extra={"offset": off, "cation_side": cation_side,
                                        "ring": _names(T, rg.atoms), "cation_atoms": _names(T, cg.atoms)},
                                 p_atoms=cg.atoms if cation_side == "protein" else rg.atoms,
                                 l_atoms=rg.atoms if cation_side == "protein" else cg.atoms))
    return out


def halogen_bonds(S: Search) -> list[Interaction]:
    s, T = S.s, S.T
    q = other_criteria()["halogen_bond"]
    xs = [i for i in np.nonzero(S.lig)[0] if s.element[i] in q["donors"]
          and len(T.heavy_nb[i]) == 1 and s.element[T.heavy_nb[i][0]] == "C"]
    accs = [i for i in np.nonzero(S.prot)[0] if s.element[i] in ("O", "N", "S")
            and T.types[i] in ACCEPTOR_TYPES and T.heavy_nb[i]]
    out = []
    for x in xs:
        cx = T.heavy_nb[x][0]
        for a in accs:
            d = float(np.linalg.norm(s.coords[x] - s.coords[a]))
            if d > q["max_distance"]:
                continue
            th1 = angle(s.coords[cx], s.coords[x], s.coords[a])
            if not q["donor_angle"][0] <= th1 <= q["donor_angle"][1]:
                continue
            th2s = [angle(s.coords[x], s.coords[a], s.coords[y]) for y in T.heavy_nb[a]]
            ok = [t2 for t2 in th2s if q["acceptor_angle"][0] <= t2 <= q["acceptor_angle"][1]]
            if not ok:
                continue
            out.append(_make(T, "halogen_bond", a, x, d, {"C-X..A": th1, "X..A-Y": max(ok)},
                             f"C-{s.element[x]}...{s.element[a]} <= {q['max_distance']} A, "
                             f"C-X..A {q['donor_angle'][0]}-180, X..A-Y {q['acceptor_angle'][0]}-"
                             f"{q['acceptor_angle'][1]}", donor="ligand"))
    return out


def metal_coordination(S: Search) -> list[Interaction]:
    s, T = S.s, S.T
    q = other_criteria()["metal"]
    metals_p = [i for i in np.nonzero((S.prot | (~s.ligand & ~s.is_water)) & T.metal)[0]]
    metals_l = [i for i in np.nonzero(S.lig & T.metal)[0]]
    lig_coord = [i for i in np.nonzero(S.lig)[0] if s.element[i] in q["ligand_elements"]]
    prot_coord = [i for i in np.nonzero(S.prot)[0] if s.element[i] in q["ligand_elements"]]
    limit = q["max_distance"]
    out = []
    for metals, partners, protein_metal in ((metals_p, lig_coord, True), (metals_l, prot_coord, False)):
        for m in metals:
            for a in partners:
                d = float(np.linalg.norm(s.coords[m] - s.coords[a]))
                if d > limit:
                    continue
                text = (f"{s.element[m]} (protein side) - ligand {s.element[a]} <= {limit} A" if protein_metal
                        else f"ligand {s.element[m]} - protein {s.element[a]} <= {limit} A")
                # (protein atom, ligand atom) in that order, whichever side holds the metal
                out.append(_make(T, "metal", *((m, a) if protein_metal else (a, m)), d, {}, text))
    return out


def hydrophobic_contacts(S: Search) -> list[Interaction]:
    s, T = S.s, S.T
    q = other_criteria()["hydrophobic"]

    def apolar(i):
        if s.element[i] == "C":
            return all(s.element[j] in ("C", "H", "D") for j in T.nb[i])
        return bool(s.ligand[i]) and s.element[i] in q["halogen_partners"]
    pc = np.array([i for i in np.nonzero(S.prot)[0] if s.element[i] == "C" and apolar(i)], dtype=int)
    lc = np.array([i for i in np.nonzero(S.lig)[0] if apolar(i)], dtype=int)
    if not len(pc) or not len(lc):
        return []
    dm = np.linalg.norm(s.coords[pc][:, None] - s.coords[lc][None], axis=-1)
    best: dict = {}
    for a, b in zip(*np.nonzero(dm <= q["max_distance"])):
        p, l_ = int(pc[a]), int(lc[b])
        key = (s.chain[p], int(s.resseq[p]), s.icode[p], l_) if q["one_per_residue_atom"] else (p, l_)
        if key not in best or dm[a, b] < best[key][2]:
            best[key] = (p, l_, float(dm[a, b]))
    return [_make(T, "hydrophobic", p, l_, d, {}, f"apolar C...{s.element[l_]} <= {q['max_distance']} A")
            for p, l_, d in best.values()]
