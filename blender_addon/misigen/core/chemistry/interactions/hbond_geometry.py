"""The geometric tests of the H-bond definition (docs/HBOND_CRITERIA.md 2.0, 2c, 2d)."""
from __future__ import annotations

import numpy as np

from .hbond_rules import Rule, acceptor_class, criteria
from .hydrogens import TET, ideal_positions, lone_pair_dirs
from .atom_typing import Typed, type_geometry


def angle(a, v, b) -> float:
    u, w = np.asarray(a) - v, np.asarray(b) - v
    c = np.dot(u, w) / (np.linalg.norm(u) * np.linalg.norm(w) + 1e-12)
    return float(np.degrees(np.arccos(np.clip(c, -1.0, 1.0))))


def vec_angle(u, w) -> float:
    c = np.dot(u, w) / (np.linalg.norm(u) * np.linalg.norm(w) + 1e-12)
    return float(np.degrees(np.arccos(np.clip(c, -1.0, 1.0))))


class Slop:
    def __init__(self, dist: float, ang: float):
        self.d, self.a = dist, ang

    def r(self, v):
        return v + self.d

    def low(self, v):
        return max(v - self.a, 0.0)

    def high(self, v):
        return min(v + self.a, 180.0)

    def ups(self, pair):
        return self.low(pair[0]), self.high(pair[1])


def projected_angle(p0, p1, p2, base, a, d) -> float | None:
    """Angle at A between base and D, all projected into the plane through p0, p1, p2."""
    n = _unit(np.cross(p1 - p0, p2 - p1))
    if n is None:
        return None
    return angle(_onto_plane(base, p0, n), _onto_plane(a, p0, n), _onto_plane(d, p0, n))


def _unit(v: np.ndarray) -> np.ndarray | None:
    n = np.linalg.norm(v)
    return None if n < 1e-9 else v / n


def _onto_plane(x, origin, normal):
    """``x`` projected onto the plane through ``origin`` with unit ``normal``."""
    return x - np.dot(x - origin, normal) * normal


def best_theta(D, A, H):
    if not len(H):
        return None
    return max(angle(D, h, A) for h in H)


def _theta_ok(theta_val, lim):
    return theta_val is None or theta_val >= lim


# ------------------------------------------------------------------ acceptor side
def acceptor_test(T: Typed, rule: Rule, d: int, a: int, H: np.ndarray, slop: Slop, out: dict) -> bool:
    s = T.s
    D, A = s.coords[d], s.coords[a]
    p = rule.params
    refs = rule.refs
    sulfur = criteria()["sulfur_comp"] if s.element[d] == "S" else 0.0
    dist = float(np.linalg.norm(D - A))
    th = best_theta(D, A, H)
    if th is not None:
        out["theta"] = th
    if rule.test == "syn_anti":
        P, S = s.coords[refs["P"]], s.coords[refs["S"]]
        axis = (P - A) / np.linalg.norm(P - A)
        u = (S - P) - np.dot(S - P, axis) * axis
        side = "syn" if np.dot(D - A, u) > 0 else "anti"
        out["_side"] = side
        q = p[side]
        if dist > slop.r(q["r"]) + sulfur:
            return False
        phi = projected_angle(A, P, S, P, A, D)
        if phi is not None:
            out["phi"] = phi
            if phi < slop.low(q["phi"]):
                return False
        return _theta_ok(th, slop.low(q["theta"]))
    if dist > slop.r(p["r"]) + sulfur:
        return False
    if rule.test == "phi_psi":
        phi = None
        if "B1" in refs:
            B1, B2 = s.coords[refs["B1"]], s.coords[refs["B2"]]
            phi = projected_angle(A, B1, B2, (B1 + B2) / 2, A, D)
        elif "B" in refs:
            b = refs["B"]
            others = [k for k in T.nb[b] if k != a]
            if len(others) > 2:
                return False  # connectivity error in the reference: acceptor skipped
            if len(others) == 1:
                phi = projected_angle(A, s.coords[b], s.coords[others[0]], s.coords[b], A, D)
            elif len(others) == 2:
                phi = projected_angle(A, s.coords[others[0]], s.coords[others[1]], s.coords[b], A, D)
        if phi is not None:
            out["phi"] = phi
            if phi < slop.low(p["phi"]):
                return False
        return _theta_ok(th, slop.low(p["theta"]))
    if rule.test in ("theta_tau", "theta_tau_lp"):
        lo, hi = slop.ups(p["ups"])
        if "partner" in refs and rule.test == "theta_tau":
            ups = angle(s.coords[refs["partner"]], A, D)
            out["upsilon"] = ups
            if not lo <= ups <= hi:
                return False
        elif not _lone_pair_range_ok(T, a, D - A, lo, hi, out, strict=False):
            return False
        if not _theta_ok(th, slop.low(p["theta"])):
            return False
        if "tau_fixed" in p:
            from .hydrogens import hydrogen_positions
            hs = hydrogen_positions(T, a)
            X = s.coords[refs["partner"]]
            for h in hs:
                tau = _tau_angle(A, X, D, h)
                if tau is not None and tau < p["tau_fixed"]:
                    return False
        return True
    if rule.test == "generic":
        lim = slop.low(p["angle"])
        for b in T.nb[a]:
            if angle(s.coords[b], A, D) < lim:
                return False
        return True
    return False


def _lone_pair_range_ok(T, a, v, lo, hi, out, strict: bool) -> bool:
    """Some inverted lone-pair direction makes an angle with v in [lo, hi] (or > lo if strict)."""
    dirs, cone = lone_pair_dirs(T, a)
    if not len(dirs):
        return True
    if cone:
        # one neighbour: the lone pairs may sit anywhere on the cone (quirk Q3 fixed)
        alpha = vec_angle(v, dirs[0])
        beta = 180.0 - TET
        amin, amax = abs(alpha - beta), min(alpha + beta, 360.0 - alpha - beta)
        out["upsilon_lp"] = amax
        return amin <= hi and (amax > lo if strict else amax >= lo)
    vals = [vec_angle(v, u) for u in dirs]
    ok = [(x > lo if strict else x >= lo) and x <= hi for x in vals]
    out["upsilon_lp"] = max(vals)
    return any(ok)


def _tau_angle(D, X, A, ref) -> float | None:
    axis = _unit(X - D)
    if axis is None:
        return None
    pa, pr = _onto_plane(A, D, axis) - D, _onto_plane(ref, D, axis) - D
    if np.linalg.norm(pa) < 1e-6 or np.linalg.norm(pr) < 1e-6:
        return None
    return vec_angle(pa, pr)


# ------------------------------------------------------------------ donor side
def _tau_refs(T: Typed, d: int, x: int, H: np.ndarray, tau_sym: int) -> list:
    s = T.s
    if tau_sym == 4 and len(H) == 2:
        return list(H)
    refs = [s.coords[h] for h in T.h_nb[x]]
    geom = type_geometry(T.types[x])
    known = T.nb[x]
    if geom in (3, 4) and (len(known) >= 2 or geom != 4):
        refs += ideal_positions(s.coords[x], [s.coords[k] for k in known], geom, 1.0)
    refs += [s.coords[k] for k in T.heavy_nb[x] if k != d]
    return refs


def donor_test(T: Typed, rule: Rule, d: int, a: int, H: np.ndarray, slop: Slop, out: dict) -> bool:
    s = T.s
    D, A = s.coords[d], s.coords[a]
    cls = acceptor_class(T, a)
    if cls is None:
        return False
    sulfur_acc = s.element[a] == "S" and cls == "other"
    comp = criteria()["sulfur_comp"] if sulfur_acc else 0.0
    p = rule.params
    if p.get("never"):
        return False
    dist = float(np.linalg.norm(D - A))
    if rule.test == "upsilon_tau":
        q = p.get(cls) or criteria()["donor_other_class"]["upsilon_tau"]
        if q.get("never"):
            return False
        if dist > slop.r(q["r"]) + comp:
            return False
        hn = T.heavy_nb[d]
        if len(hn) != 1:
            return False
        x = hn[0]
        ups = angle(s.coords[x], D, A)
        out["upsilon"] = ups
        lo, hi = slop.ups(q["ups"])
        if not lo <= ups <= hi:
            return False
        th = best_theta(D, A, H)
        if th is not None and th < slop.low(q["theta"]):
            return False
        if "tau" in q:
            refs = _tau_refs(T, d, x, H, p["tau_sym"])
            if refs:
                if len(refs) != p["tau_sym"] // 2:
                    return False
                taus = [_tau_angle(D, s.coords[x], A, r) for r in refs]
                taus = [t for t in taus if t is not None]
                if taus:
                    tv = q["tau"]
                    if tv < 0:
                        out["tau"] = min(taus)
                        if min(taus) > slop.high(-tv):
                            return False
                    else:
                        out["tau"] = min(taus)
                        if min(taus) < slop.low(tv):
                            return False
        if cls == "sp3N" and "upsN" in q and len(T.nb[a]) >= 2:
            if not _lone_pair_range_ok(T, a, D - A, slop.low(q["upsN"]), 180.0, out, strict=False):
                return False
        return True
    if rule.test == "theta_tau":
        if not len(H):
            return False
        q = p.get(cls) or (criteria()["donor_other_class"]["theta_tau"] if cls == "other" else None)
        if q is None:
            return False
        ha = np.linalg.norm(H - A, axis=1)
        out["h_dist"] = float(ha.min())
        if ha.min() > slop.r(q["r"]) + comp:
            return False
        th = best_theta(D, A, H)
        out["theta"] = th
        if th < slop.low(q["theta"]):
            return False
        if cls == "sp3O" and "phi" in q and len(T.nb[a]) == 2:
            b1, b2 = (s.coords[k] for k in T.nb[a])
            phi = projected_angle(A, b1, b2, (b1 + b2) / 2, A, D)
            if phi is not None:
                out["phi_d"] = phi
                if phi < slop.low(q["phi"]):
                    return False
        if cls == "sp3N" and "upsN" in q:
            if not _lone_pair_range_ok(T, a, D - A, slop.low(q["upsN"]), 180.0, out, strict=True):
                return False
        return True
    if rule.test == "generic":
        rp, r = p["elem"][cls]
        if len(H):
            ha = np.linalg.norm(H - A, axis=1)
            out["h_dist"] = float(ha.min())
            if not ha.min() < slop.r(rp):   # sulfur compensation ineffective here (quirk Q5)
                return False
        elif dist > slop.r(r):
            return False
        lim = slop.low(p["bonded_angle"]) - (9.0 if sulfur_acc else 0.0)
        for x in T.heavy_nb[d]:
            if angle(s.coords[x], D, A) < lim:
                return False
        if len(H):
            th = best_theta(D, A, H)
            out["theta"] = th
            if th < slop.low(p["h_angle"]):
                return False
        return True
    return False
