"""Which acceptor and donor rule applies to an atom (docs/HBOND_CRITERIA.md 2a-2c).

Each rule is a predicate on the typed structure (type names, neighbour counts,
rings), tried in the order of data/interactions/hbond_criteria.yaml; the first
match wins, then the generic rules by type.  Hydrogens in the reference group
patterns are optional, so rules count heavy neighbours and allow up to n H.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field

from ...data_files import load_table
from .atom_typing import Typed, type_geometry, type_subs

ACCEPTOR_TYPES = {"O3", "O2", "O3-", "O2-", "Oar", "Oar+", "O1", "O1+", "N3", "N2", "N1",
                  "Npl", "N2+", "S2", "Sar", "S3-"}


@functools.lru_cache(maxsize=None)
def criteria() -> dict:
    return load_table("interactions/hbond_criteria.yaml")


@dataclass
class Rule:
    kind: str            # "acceptor" | "donor"
    rule_id: str         # "#6", "l", "generic O2 planar", ...
    name: str
    test: str            # syn_anti | phi_psi | theta_tau | theta_tau_lp | generic | upsilon_tau
    params: dict
    refs: dict = field(default_factory=dict)   # partner, S, P, B1, B2, X
    short: str = ""      # how a rationale names it: a listed rule's name, a generic rule's key

    @property
    def label(self) -> str:
        return f"{self.kind} {self.rule_id} {self.name}"


def _acc(rid, p, **refs):
    return Rule("acceptor", f"#{rid}", p["name"], p["test"], p, refs, short=p["name"])


def listed_acceptor(rule_id) -> Rule:
    """The listed acceptor rule ``rule_id`` (HBOND_CRITERIA 2a), without its reference atoms."""
    return _acc(rule_id, next(r for r in criteria()["acceptors"] if str(r["id"]) == str(rule_id)))


def generic_acceptor(key: str, atom_type: str, **refs) -> Rule:
    """The generic acceptor rule ``key`` (HBOND_CRITERIA 2b) for an acceptor of ``atom_type``."""
    p = dict(criteria()["generic_acceptors"][key])
    p["name"] = f"generic {atom_type}"
    return Rule("acceptor", f"generic {key}", p["name"], p["test"], p, refs, short=key)


def acceptor_rule(T: Typed, a: int) -> Rule | None:
    """The first listed acceptor rule that matches atom ``a``, else the generic one of its type."""
    if T.types[a] not in ACCEPTOR_TYPES or T.skip[a]:
        return None
    return _listed_acceptor_rule(T, a) or _generic_acceptor_rule(T, a)


def _listed_acceptor_rule(T: Typed, a: int) -> Rule | None:
    """HBOND_CRITERIA 2a, in order: the first that matches."""
    s = T.s
    t = T.types
    ta = t[a]
    el = s.element
    nb, hn = T.nb[a], T.heavy_nb[a]
    nh = len(T.h_nb[a])
    rules = {str(r["id"]): r for r in criteria()["acceptors"]}

    def r(k):
        return rules[str(k)]

    if ta == "O3-" and len(hn) == 1 and t[hn[0]] == "Pac" and len(T.nb[hn[0]]) == 4:
        p = hn[0]
        others = [j for j in T.nb[p] if t[j] == "O3-" and j != a]
        if len(others) >= 2:
            return _acc(1, r(1), P=p, S=min(others))
        if len(others) == 1:
            return _acc(2, r(2), P=p, S=others[0])
    if ta == "O2-" and len(hn) == 1 and t[hn[0]] == "Cac" and len(T.nb[hn[0]]) == 3:
        c = hn[0]
        others = [j for j in T.nb[c] if t[j] == "O2-" and j != a]
        if others:
            return _acc(3, r(3), P=c, S=others[0])
    if ta == "S2" and len(hn) == 1 and el[hn[0]] == "C":
        return _acc(4, r(4), B=hn[0])
    if ta == "O2" and len(hn) == 1 and t[hn[0]] == "C2" and len(T.nb[hn[0]]) == 3:
        c = hn[0]
        sub = [j for j in T.nb[c] if j != a]
        acid = [j for j in sub if t[j] == "O3" and len(T.heavy_nb[j]) == 1]
        if acid:
            return _acc(5, r(5), P=c, S=acid[0])
        amide = [j for j in sub if t[j] == "Npl"]
        if amide:
            return _acc(6, r(6), P=c, S=amide[0])
        if all(el[j] in ("C", "H", "D") for j in sub) and any(el[j] == "C" for j in sub):
            return _acc(7, r(7), B=c)
        if any(t[j] == "O3" and len(T.heavy_nb[j]) == 2 for j in sub) and any(el[j] == "C" for j in sub):
            return _acc(8, r(8), B=c)
    if ta == "O2-" and len(hn) == 1 and t[hn[0]] == "Ntr":
        others = [j for j in T.nb[hn[0]] if t[j] == "O2-" and j != a]
        if others:
            return _acc(9, r(9), P=hn[0], S=others[0])
    if ta == "O2" and len(hn) == 1 and t[hn[0]] == "Son":
        others = [j for j in T.nb[hn[0]] if t[j] == "O2" and j != a]
        if len(others) == 1 and len(T.nb[hn[0]]) == 4:
            return _acc(10, r(10), P=hn[0], S=others[0])
    if ta == "O3" and len(hn) >= 1 and any(t[j] == "Pac" for j in hn):
        p = [j for j in hn if t[j] == "Pac"][0]
        if sum(t[j] == "O3-" for j in T.nb[p]) == 2 and len(T.nb[p]) == 4 and len(hn) == 1:
            return _acc(11, r(11), partner=p)
    if ta == "O2" and len(hn) == 1 and t[hn[0]] == "Pox":
        return _acc(12, r(12), partner=hn[0])
    if ta == "O2" and len(hn) == 1 and t[hn[0]] == "Sxd":
        return _acc(13, r(13), partner=hn[0])
    if ta == "N3" and len(hn) == 1 and T.is_tet(hn[0]) and nh <= 2:
        return _acc(14, r(14), partner=hn[0])
    if ta == "O3" and len(hn) == 1 and T.is_tet(hn[0]) and t[hn[0]] not in ("Sac", "Pac") and nh <= 1:
        return _acc(15, r(15), partner=hn[0])
    if ta == "O3" and len(hn) == 2 and nh == 0:
        sac = [j for j in hn if t[j] == "Sac" and sum(t[k] == "O3-" for k in T.nb[j]) >= 2]
        if sac and all(t[j] != "Pac" for j in hn if j != sac[0]):
            return _acc(16, r(16), partner=sac[0])
    if ta == "N3" and len(hn) == 3 and all(T.is_tet(j) for j in hn):
        return _acc(17, r(17))
    if ta == "N1" and len(hn) == 1 and t[hn[0]] == "C1":
        return _acc(18, r(18), partner=hn[0])
    if ta == "N3" and len(hn) == 2 and all(T.is_tet(j) for j in hn) and nh <= 1:
        return _acc(19, r(19))
    if ta == "O3" and len(hn) == 1 and t[hn[0]] == "Car" and nh <= 1:
        return _acc(20, r(20), partner=hn[0])
    if ta in ("Npl", "N3") and len(hn) == 1 and t[hn[0]] == "Car" and nh <= 2:
        return _acc(21, r(21), partner=hn[0])
    if el[a] == "O" and not hn:
        return _acc(22, r(22))
    rings = T.atom_rings.get(a, [])
    if ta == "O3" and not rings and len(hn) == 2 and nh == 0 and all(el[j] == "C" for j in hn):
        return _acc(23, r(23), B1=hn[0], B2=hn[1])
    if ta == "N2" and not rings and len(hn) == 2 and all(el[j] == "C" for j in hn):
        return _acc(24, r(24), B1=hn[0], B2=hn[1])
    if el[a] == "N" and len(rings) == 1:
        ring = T.rings[rings[0]]
        eligible = ta == "N2" or (ta in ("Npl", "N2+") and len(nb) == 2)
        if eligible:
            k = ring.index(a)
            n = len(ring)
            b1, b2 = ring[(k - 1) % n], ring[(k + 1) % n]
            c1, c2 = ring[(k - 2) % n], ring[(k + 2) % n]
            sym = el[b1] == el[b2] and el[c1] == el[c2]
            if n == 6 and ta == "N2":
                return _acc(25 if sym else 27, r(25 if sym else 27), B1=b1, B2=b2)
            if n == 5 and (ta == "N2" or any(el[j] == "N" for j in ring if j != a)):
                return _acc(26 if sym else 28, r(26 if sym else 28), B1=b1, B2=b2)
    if el[a] == "O" and any(len(T.rings[k]) == 5 for k in rings) and len(hn) == 2:
        return _acc(29, r(29), B1=hn[0], B2=hn[1])
    return None


def _generic_acceptor_rule(T: Typed, a: int) -> Rule | None:
    """HBOND_CRITERIA 2b: the generic rule of the acceptor's type."""
    t = T.types
    ta = t[a]
    el = T.s.element
    nb, hn = T.nb[a], T.heavy_nb[a]

    def gen(key, **refs):
        return generic_acceptor(key, ta, **refs)

    if ta in ("O2-", "O3-"):
        if nb and type_geometry(t[nb[0]]) == 3:
            return gen("O-_planar", B=nb[0])
        return gen("O-_other")
    if ta == "O2":
        if not nb:
            return gen("O2_other")
        gb = type_geometry(t[nb[0]])
        if gb == 3:
            return gen("O2_planar", B=nb[0])
        if gb == 4:
            return gen("O2_tet", partner=nb[0])
        return gen("O2_other")
    if ta == "O3":
        if len(nb) == 0:
            return gen("O3_0")
        if len(nb) == 1:
            return gen("O3_1", partner=nb[0])
        if len(nb) == 2:
            return gen("O3_2", B1=nb[0], B2=nb[1])
        return None
    if el[a] == "O":
        return gen("O_other")
    if ta == "N3":
        if not hn:
            return gen("N3_0")
        if len(hn) == 1:
            return gen("N3_1", partner=nb[0]) if len(nb) == 1 else gen("N3_2")
        return gen("N3_2")
    if ta == "N2":
        return gen("N2", **({"B1": nb[0], "B2": nb[1]} if len(nb) >= 2 else {"B": nb[0]} if nb else {}))
    if ta == "N1":
        return gen("N1", **({"partner": nb[0]} if len(nb) == 1 else {}))
    if ta == "S2":
        return gen("S2", **({"B": nb[0]} if nb else {}))
    if ta in ("Sar", "S3-"):
        return gen("S_other")
    return None


def _don(p, **refs):
    return Rule("donor", str(p["id"]), p["name"], p["test"], p, refs)


def donor_rule(T: Typed, d: int) -> Rule | None:
    s = T.s
    t = T.types
    e = s.element[d]
    if e not in ("N", "O", "S") or T.skip[d]:
        return None
    td = t[d]
    hn = T.heavy_nb[d]
    nh = len(T.h_nb[d])
    rules = {str(r["id"]): r for r in criteria()["donors"]}
    R = rules.__getitem__

    def c2_with_o2(j):
        return t[j] == "C2" and any(t[k] == "O2" for k in T.nb[j])

    if td == "O3" and len(hn) == 1 and t[hn[0]] == "Cac" and nh <= 1:
        return _don(R("a"), X=hn[0])
    if len(hn) == 1:
        x = hn[0]
        others = [k for k in T.nb[x] if k != d]
        if td == "Npl" and nh <= 2 and t[x] == "C2" and len(others) == 2 and \
                all(T.explicit_single(k) for k in others):
            return _don(R("b"), X=x)
        if td == "Ng+" and nh <= 2 and t[x] == "C2":
            return _don(R("c"), X=x)
        if td == "N3+" and nh <= 3 and T.is_tet(x):
            return _don(R("d"), X=x)
        if td == "O3" and nh <= 1 and T.is_tet(x):
            return _don(R("e"), X=x)
        if e == "N" and nh <= 2 and c2_with_o2(x):
            return _don(R("f"), X=x)
        if td == "Npl" and nh <= 2 and t[x] == "Car" and not T.in_aromatic_ring(d):
            return _don(R("g"), X=x)
        if td == "O3" and nh <= 1 and t[x] == "Car":
            return _don(R("h"), X=x)
        if td == "N3" and nh <= 2 and T.is_tet(x):
            return _don(R("i"), X=x)
    if len(hn) == 2:
        tet = [j for j in hn if T.is_tet(j)]
        if td == "Npl" and nh <= 1 and len(tet) == 1:
            pl = [j for j in hn if j not in tet][0]
            others = [k for k in T.nb[pl] if k != d]
            if type_geometry(t[pl]) == 3 and len(others) == 2 and all(T.explicit_single(k) for k in others):
                return _don(R("j"))
        if td == "N3+" and nh <= 2 and len(tet) == 2:
            return _don(R("k"))
        if td == "Npl" and nh <= 1 and len(tet) == 1 and c2_with_o2([j for j in hn if j not in tet][0]):
            return _don(R("l"))
    if td == "N3+" and nh <= 1 and len(hn) == 3 and all(T.is_tet(j) for j in hn):
        return _don(R("m"))
    if td == "N2" and nh <= 1 and any(type_geometry(t[j]) == 3 for j in hn):
        return _don(R("n"))
    if td == "N3" and nh <= 1 and len(hn) == 2 and all(T.is_tet(j) for j in hn):
        return _don(R("o"))
    rings = T.atom_rings.get(d, [])
    if e == "N" and len(rings) == 1:
        ring = T.rings[rings[0]]
        ok = td in ("Npl", "N2+") and (len(T.nb[d]) < 3 or nh >= 1)
        n2_mate = td == "N2" and any(t[j] in ("Npl", "N2+") for j in ring if j != d)
        if ok or n2_mate:
            if len(ring) == 5:
                return _don(R("p"))
            if len(ring) == 6 and T.aromatic_ring[rings[0]]:
                return _don(R("q"))
    # generic donors
    nbonds = len(T.nb[d])
    if not (nh or nbonds < type_subs(td)):
        return None
    if td == "Npl" and nbonds == 2 and nh == 1:
        return None
    g = criteria()["generic_donors"]
    if td in ("Npl", "N2+"):
        if len(hn) >= 2:
            p = dict(g["planar_N_2heavy"], id="generic", name=f"generic {td} (>=2 heavy)")
            return Rule("donor", "generic", p["name"], "theta_tau", p, {})
        p = dict(g["planar_N_1heavy"], id="generic", name=f"generic {td} (<=1 heavy)")
        return Rule("donor", "generic", p["name"], "upsilon_tau", p, {"X": hn[0]} if hn else {})
    p = {"elem": g["element"][e], "bonded_angle": g["bonded_angle"], "h_angle": g["h_angle"],
         "name": f"generic {e} ({td})"}
    return Rule("donor", "generic", p["name"], "generic", p, {})


def acceptor_class(T: Typed, a: int) -> str | None:
    """sp2O | sp3O | sp3N | other (None: type unknown to the info map)."""
    ta = T.types[a]
    geom = type_geometry(ta)
    e = T.s.element[a]
    if geom == 0:
        return None
    if e == "O" and geom == 3:
        return "sp2O"
    if (e == "O" and ta in ("O3", "O3-")) or (e == "N" and geom == 3):
        return "sp3O"
    if ta in ("N3", "N3+"):
        return "sp3N"
    return "other"
