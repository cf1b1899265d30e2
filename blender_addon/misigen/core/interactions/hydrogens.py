"""Hydrogen positions on donors (explicit, or inferred as docs/HBOND_CRITERIA.md section 3),
ideal substituent positions and lone pairs."""
from __future__ import annotations

import numpy as np

from .typing import Typed, type_geometry, type_subs

XH_BOND = {"N": 0.91, "O": 0.91, "S": 1.25}   # r_cov(D) + r_cov(H) (ChimeraX radii)
TET = np.degrees(np.arccos(-1.0 / 3.0))        # 109.47


def _unit(v):
    n = np.linalg.norm(v)
    return v / n if n > 1e-9 else v


def _perp(v):
    """A unit vector perpendicular to v (deterministic; used only where any choice is equivalent)."""
    a = np.array([1.0, 0.0, 0.0]) if abs(v[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    return _unit(np.cross(v, a))


def ideal_positions(center, known, geometry: int, bond: float, plane_ref=None) -> list[np.ndarray]:
    """Positions filling the free slots of ``center`` (planar 3 or tetrahedral 4 slots).

    known: coordinates of the bonded atoms.  plane_ref: for 1 known substituent on a
    planar centre, a point fixing the plane (e.g. an atom bonded to the substituent).
    """
    c = np.asarray(center, float)
    dirs = [_unit(np.asarray(k, float) - c) for k in known]
    k = len(dirs)
    if geometry == 3:
        if k == 2:
            return [c + bond * _unit(-(dirs[0] + dirs[1]))]
        if k == 1:
            if plane_ref is None:
                return []
            x = dirs[0]
            inplane = np.asarray(plane_ref, float) - np.asarray(known[0], float)
            inplane = _unit(inplane - np.dot(inplane, x) * x)
            if np.linalg.norm(inplane) < 1e-6:
                return []
            ang = np.radians(120.0)
            return [c + bond * _unit(np.cos(ang) * x + s * np.sin(ang) * inplane) for s in (1.0, -1.0)]
        return []
    if geometry == 4:
        if k == 3:
            return [c + bond * _unit(-(dirs[0] + dirs[1] + dirs[2]))]
        if k == 2:
            bis = _unit(-(dirs[0] + dirs[1]))
            nrm = _unit(np.cross(dirs[0], dirs[1]))
            half = np.radians(TET / 2.0)
            return [c + bond * _unit(np.cos(half) * bis + s * np.sin(half) * nrm) for s in (1.0, -1.0)]
        if k == 1 and plane_ref is not None:
            x = dirs[0]
            ref = np.asarray(plane_ref, float) - np.asarray(known[0], float)
            ref = _unit(ref - np.dot(ref, x) * x)
            if np.linalg.norm(ref) < 1e-6:
                return []
            y = np.cross(x, ref)
            th = np.radians(TET)
            out = []
            for phi in (180.0, 60.0, -60.0):
                p = np.radians(phi)
                out.append(c + bond * _unit(np.cos(th) * x + np.sin(th) * (np.cos(p) * ref + np.sin(p) * y)))
            return out
    return []


def deposited_rotor(T: Typed, d: int) -> bool:
    """[fix] A rotatable X-H of a HETATM ligand from a PDB/mmCIF file (hydroxyl, NH3+, thiol: a
    tetrahedral donor with one heavy neighbour). Its H was placed by the refinement program,
    not observed, so it does not restrict the H-bond: the donor is tested as a rotor without
    H (the reference trusts any explicit H; 1hvi's inhibitor hydroxyls point away from Asp25)."""
    s = T.s
    if not s.ligand[d] or not str(s.meta.get("ligand_bond_orders", "")).startswith(("ccd", "unknown")):
        return False
    return type_geometry(T.types[d]) == 4 and len(T.heavy_nb[d]) == 1


def hydrogen_positions(T: Typed, d: int) -> np.ndarray:
    """(k, 3) H positions on donor ``d``: explicit if any, else inferred, else empty."""
    s = T.s
    if T.h_nb[d] and not deposited_rotor(T, d):
        return s.coords[T.h_nb[d]]
    if T.h_nb[d]:
        return np.zeros((0, 3))
    t = T.types[d]
    geom, subs = type_geometry(t), type_subs(t)
    heavy = T.heavy_nb[d]
    k = len(heavy)
    g = {1: 1, 2: 2, 3: 3, 4: 4}.get(geom, 0)
    if k == 0 or k >= subs or (geom == 4 and k == 1) or g > subs:
        return np.zeros((0, 3))
    bond = XH_BOND.get(s.element[d], 0.91)
    known = [s.coords[j] for j in heavy]
    ref = None
    if k == 1:
        x = heavy[0]
        others = [j for j in T.nb[x] if j != d]
        if not others or type_geometry(T.types[x]) != 3:
            return np.zeros((0, 3))
        ref = s.coords[sorted(others, key=lambda j: (s.element[j] in ("H", "D"), j))[0]]
    pos = ideal_positions(s.coords[d], known, geom, bond, ref)
    return np.array(pos).reshape(-1, 3)


def lone_pair_dirs(T: Typed, a: int) -> tuple[np.ndarray, bool]:
    """Unit vectors of the inverted lone-pair reference directions of a tetrahedral acceptor.

    Returns (dirs, cone).  With one neighbour the lone pairs can rotate freely about the
    bond (cone=True; dirs holds the bond axis); see docs, quirk Q3.
    """
    s = T.s
    nbs = T.nb[a]
    c = s.coords[a]
    if len(nbs) >= 4 or not nbs:
        return np.zeros((0, 3)), False
    if len(nbs) == 1:
        return _unit(s.coords[nbs[0]] - c)[None], True
    pos = ideal_positions(c, [s.coords[j] for j in nbs], 4, 1.0)
    # reference = A - (LP - A): the direction opposite to the lone pair
    return np.array([_unit(c - p) for p in pos]).reshape(-1, 3), False
