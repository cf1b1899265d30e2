"""Protein–ligand hydrogen bonds by the ChimeraX `hbonds` definition (see docs/INTERACTIONS.md)."""
from __future__ import annotations

import numpy as np

from .hbond_geometry import Slop, acceptor_test, donor_test
from .hbond_limits import acceptor_limit, hbond_criterion, relaxation, shared_proton_criterion, \
    shared_proton_limit, widest_limit
from .hbond_rules import acceptor_rule, criteria, donor_rule
from .hydrogens import hydrogen_positions
from .model import Interaction
from .atom_typing import Typed, type_geometry

POLAR = ("N", "O", "S")


def _pairs_within(xyz1, xyz2, cutoff):
    out = []
    for start in range(0, len(xyz1), 2048):
        d2 = ((xyz1[start:start + 2048, None, :] - xyz2[None]) ** 2).sum(-1)
        ii, jj = np.nonzero(d2 <= cutoff * cutoff)
        out += list(zip((ii + start).tolist(), jj.tolist()))
    return out


def partner_masks(T: Typed):
    s = T.s
    polar = np.isin(s.element, POLAR)
    prot = polar & ~s.ligand & ~s.is_water & T.active
    lig = polar & s.ligand
    return prot, lig


def hbond_pairs(T: Typed, side1: np.ndarray, side2: np.ndarray, dist_slop=None, angle_slop=None):
    """(donor, acceptor, donor_rule, acceptor_rule, info) for every H-bond between the two atom
    sets, both directions.  Symmetric by construction: swapping the sets swaps nothing but order.
    Slops: None is the default relaxation (hbond_criteria.yaml)."""
    s = T.s
    dist_slop, angle_slop = _slops(dist_slop, angle_slop)
    slop = Slop(dist_slop, angle_slop)
    met_cfg = criteria()["metal"]
    metals = np.nonzero(T.metal & ~s.is_water)[0]
    idx1, idx2 = np.nonzero(side1)[0], np.nonzero(side2)[0]
    if not len(idx1) or not len(idx2):
        return []
    cutoff = widest_limit() + dist_slop + criteria()["sulfur_comp"] + 0.05
    pairs = _pairs_within(s.coords[idx1], s.coords[idx2], cutoff)
    drules, arules, hpos = {}, {}, {}

    def near_metals(a):
        if not len(metals):
            return []
        d = np.linalg.norm(s.coords[metals] - s.coords[a], axis=1)
        return metals[d <= met_cfg["acceptor_dist"]].tolist()

    def drule(i):
        if i not in drules:
            r = donor_rule(T, i)
            # metal rule (b): a planar N that coordinates a metal is not a donor. As in the
            # reference, "coordinates" means an acceptor within 4.0 A of the metal: a planar N
            # that is no acceptor (a heme pyrrole N) stays a donor
            if r is not None and s.element[i] == "N" and type_geometry(T.types[i]) == 3 and near_metals(i) \
                    and arule(i) is not None:
                r = None
            drules[i] = r
        return drules[i]

    def arule(i):
        if i not in arules:
            arules[i] = acceptor_rule(T, i)
        return arules[i]

    out = []
    for p, q in pairs:
        i, j = int(idx1[p]), int(idx2[q])
        for d, a in ((i, j), (j, i)):
            dr, ar = drule(d), arule(a)
            if dr is None or ar is None:
                continue
            if d not in hpos:
                hpos[d] = hydrogen_positions(T, d)
            H = hpos[d]
            info: dict = {}
            if not acceptor_test(T, ar, d, a, H, slop, info):
                continue
            if not donor_test(T, dr, d, a, H, slop, info):
                continue
            veto = False
            for m in near_metals(a):
                ang = np.degrees(np.arccos(np.clip(np.dot(
                    (s.coords[d] - s.coords[a]) / np.linalg.norm(s.coords[d] - s.coords[a]),
                    (s.coords[m] - s.coords[a]) / np.linalg.norm(s.coords[m] - s.coords[a])), -1, 1)))
                if ang < met_cfg["min_angle"]:
                    veto = True
            if veto:
                continue
            if len(H):
                hd = np.linalg.norm(H - s.coords[a], axis=1)
                k = int(np.argmin(hd))
                info["h_dist"] = float(hd[k])
                info["h_index"] = int(T.h_nb[d][k]) if T.h_nb[d] else -1
            out.append((d, a, dr, ar, info))
    return out


def _acid_oxygen(T: Typed, i: int, parents) -> bool:
    """An O of a group that is anionic at pH 7 as typed (carboxylate O2-, phosphate/sulfate O3-)."""
    if T.types[i] not in ("O2-", "O3-") or len(T.heavy_nb[i]) != 1 or T.h_nb[i]:
        return False
    return T.types[T.heavy_nb[i][0]] in parents


def shared_proton_pairs(T: Typed, side1, side2) -> list[tuple[int, int, float]]:
    """(i, j, distance) for anionic acid O pairs closer than ``shared_proton.max_distance``.

    Typed as two acceptors the reference reports nothing, but two O− cannot approach that
    closely: one of the groups is protonated and the proton is shared (a short, strong
    H-bond). Which side holds it is not decidable from the model, so donor is "shared"."""
    cfg = criteria()["shared_proton"]
    parents = set(cfg["acid_parents"])
    s = T.s
    a = [i for i in np.nonzero(side1)[0].tolist() if s.element[i] == "O" and _acid_oxygen(T, i, parents)]
    b = [j for j in np.nonzero(side2)[0].tolist() if s.element[j] == "O" and _acid_oxygen(T, j, parents)]
    if not a or not b:
        return []
    out = []
    for p, q in _pairs_within(s.coords[a], s.coords[b], cfg["max_distance"]):
        i, j = a[p], b[q]
        out.append((i, j, float(np.linalg.norm(s.coords[i] - s.coords[j]))))
    return out


def _slops(dist_slop, angle_slop) -> tuple[float, float]:
    default = relaxation()
    return (default["distance"] if dist_slop is None else dist_slop,
            default["angle"] if angle_slop is None else angle_slop)


def _partner_fields(s, p: int, l_: int) -> dict:
    return dict(protein_index=int(p), ligand_index=int(l_), chain=str(s.chain[p]), resname=str(s.resname[p]),
                resseq=int(s.resseq[p]), icode=str(s.icode[p]), protein_atom=str(s.name[p]),
                ligand_atom=str(s.name[l_]), protein_atoms=(str(s.name[p]),), ligand_atoms=(str(s.name[l_]),))


def find_hbonds(T: Typed, dist_slop=None, angle_slop=None) -> list[Interaction]:
    """Protein–ligand H-bonds (shared protons first, when the definition has them); each carries its
    acceptor rule's name and distance limit (``rule``, ``limit``). Slops: None is the default relaxation."""
    s = T.s
    dist_slop, angle_slop = _slops(dist_slop, angle_slop)
    prot, lig = partner_masks(T)
    out = []
    shared = shared_proton_limit()
    for p, l_, dist in (shared_proton_pairs(T, prot, lig) if T.rules.get("shared_proton") else []):
        out.append(Interaction(
            kind="hbond", **_partner_fields(s, p, l_), donor="shared", distance=dist,
            angles={}, criterion=shared_proton_criterion(dist),
            extra={"donor_type": T.types[p], "acceptor_type": T.types[l_], "hydrogens": "none"},
            rule=shared.rule, limit=shared.applied(dist_slop)))
    sulfur = criteria()["sulfur_comp"]
    for d, a, dr, ar, info in hbond_pairs(T, prot, lig, dist_slop, angle_slop):
        p, l_ = (d, a) if not s.ligand[d] else (a, d)
        side = info.pop("_side", "")
        angles = {k: float(info[k]) for k in ("theta", "phi", "upsilon", "tau", "phi_d", "upsilon_lp")
                  if info.get(k) is not None}
        extra = {"donor_type": T.types[d], "acceptor_type": T.types[a],
                 "hydrogens": "explicit" if T.h_nb[d] else ("inferred" if "h_dist" in info else "none")}
        if "h_dist" in info:
            extra["h_distance"] = float(info["h_dist"])
        if info.get("h_index", -1) >= 0:
            extra["hydrogen"] = str(s.name[info["h_index"]])
        limit = acceptor_limit(ar, side)
        out.append(Interaction(
            kind="hbond", **_partner_fields(s, p, l_), donor="ligand" if s.ligand[d] else "protein",
            distance=float(np.linalg.norm(s.coords[d] - s.coords[a])), angles=angles,
            criterion=hbond_criterion(ar, side, dr), extra=extra, rule=limit.rule,
            limit=limit.applied(dist_slop) + (sulfur if s.element[d] == "S" else 0.0)))
    return out
