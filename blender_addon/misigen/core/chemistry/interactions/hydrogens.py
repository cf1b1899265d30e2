"""Hydrogen positions on donors (explicit, or inferred as docs/HBOND_CRITERIA.md section 3),
ideal substituent positions and lone pairs."""
from __future__ import annotations

import numpy as np

from .atom_typing import Typed, type_geometry, type_subs

XH_BOND = {"N": 0.91, "O": 0.91, "S": 1.25}   # r_cov(D) + r_cov(H) (ChimeraX radii)
TET = np.degrees(np.arccos(-1.0 / 3.0))        # 109.47


def _unit(v):
    n = np.linalg.norm(v)
    return v / n if n > 1e-9 else v


COS5475, SIN5475 = np.cos(np.radians(54.75)), np.sin(np.radians(54.75))


def _plane_normal_away(center, dirs):
    """Unit normal of the plane through the tips of three unit bond vectors, on the centre's
    side: the fourth tetrahedral slot as the reference builds it (not minus the vector sum,
    which differs when the three bond angles are unequal)."""
    tips = [center + d for d in dirs]
    n = _unit(np.cross(tips[1] - tips[0], tips[2] - tips[0]))
    return -n if np.dot(center - tips[0], n) < 0 else n


def ideal_positions(center, known, geometry: int, bond: float, coplanar=None) -> list[np.ndarray]:
    """Positions filling the free slots of ``center`` (planar 3 or tetrahedral 4 slots), built
    the way the reference builds them (ChimeraX ``bond_geom.bond_positions``), so that angles
    near a limit come out the same.

    known: coordinates of the bonded atoms.  coplanar: for 1 known substituent on a planar
    centre, up to two points the new bonds lie in plane with (the other atoms bonded to that
    substituent); with two, the reference averages the two 120-degree positions, the second
    built against the negated direction.  One known substituent on a tetrahedral centre
    (a rotor) gives no positions.
    """
    c = np.asarray(center, float)
    dirs = [_unit(np.asarray(k, float) - c) for k in known]
    k = len(dirs)
    if geometry == 3:
        if k == 2:
            return [c + bond * _unit(-(dirs[0] + dirs[1]))]
        if k == 1:
            u = dirs[0]
            ws = []
            for n, p in enumerate(list(coplanar or [])[:2]):
                v = (np.asarray(p, float) - c) * (1.0 if n == 0 else -1.0)
                w = v - np.dot(v, u) * u
                if np.linalg.norm(w) > 1e-6:
                    ws.append(_unit(w))
            if not ws:
                return []   # the reference picks an arbitrary rotation here; we infer nothing
            w = sum(ws) / len(ws)
            if np.linalg.norm(w) < 1e-9:
                return []
            ang = np.radians(120.0)
            h1 = c + bond * _unit(np.cos(ang) * u + np.sin(ang) * w)
            h2 = c + bond * _unit(-(u + _unit(h1 - c)))   # anti-bisector of the two bonds
            return [h1, h2]
        return []
    if geometry == 4:
        if k == 3:
            return [c + bond * _plane_normal_away(c, dirs)]
        if k == 2:
            # third slot: anti-bisector raised 54.75 degrees out of the bonds' plane; the fourth
            # from the plane of the three (as the reference does; not an exact mirror image)
            anti = _unit(-(dirs[0] + dirs[1]))
            cross = _unit(np.cross(dirs[0], dirs[1]))
            third = _unit(anti * COS5475 + cross * SIN5475)
            fourth = _plane_normal_away(c, [dirs[0], dirs[1], third])
            return [c + bond * third, c + bond * fourth]
    return []


def deposited_rotor(T: Typed, d: int) -> bool:
    """[fix] A rotatable X-H of a HETATM ligand from a PDB/mmCIF file (hydroxyl, NH3+, thiol: a
    tetrahedral donor with one heavy neighbour). Its H was placed by the refinement program,
    not observed, so it does not restrict the H-bond: the donor is tested as a rotor without
    H (the reference trusts any explicit H; 1hvi's inhibitor hydroxyls point away from Asp25)."""
    s = T.s
    if T.rules.get("deposited_rotor_h", True):
        return False          # the chimerax definition trusts them, as the reference
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
    coplanar = None
    if k == 1:
        # planar NH2 on a planar atom: in plane with that atom's other substituents (all of
        # them, H included, as the reference); on a non-planar atom the reference picks an
        # arbitrary rotation, so none are inferred
        x = heavy[0]
        others = [j for j in T.nb[x] if j != d]
        if not others or type_geometry(T.types[x]) != 3:
            return np.zeros((0, 3))
        coplanar = [s.coords[j] for j in others]
    pos = ideal_positions(s.coords[d], known, geom, bond, coplanar=coplanar)
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
