"""The distance limits of the H-bond rules, read from data/interactions/hbond_criteria.yaml alone.

An H-bond ``Interaction`` carries the rule that bounded its distance and that limit (``rule``,
``limit``). A record keeps only the ``criterion`` text the finder wrote (``hbond_criterion``);
``criterion_limit`` gives back the same rule and limit by looking the text up in the table of
every acceptor rule the finder can name (made with the same formatter, so nothing is parsed).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

from .hbond_rules import ACCEPTOR_TYPES, Rule, criteria, generic_acceptor, listed_acceptor

SEPARATOR = " / "                     # between the acceptor and the donor rule of a criterion
SHARED_PROTON = "shared proton"       # how the criterion of a shared proton starts, and its rule's name


@dataclass(frozen=True)
class Limit:
    rule: str              # the rule as a rationale names it: "amide O anti", "O2_planar", "shared proton"
    distance: float        # Å, the precise D···A limit
    relaxed: bool = True   # whether the relaxation widens it (a shared proton's never)

    def applied(self, dist_slop: float | None = None) -> float:
        """The limit the finder tests (``dist_slop``: None is the default relaxation)."""
        return self.distance + ((relaxation()["distance"] if dist_slop is None else dist_slop)
                                if self.relaxed else 0.0)


def relaxation() -> dict:
    """ChimeraX's default relaxation: {"distance": Å, "angle": degrees}."""
    return dict(criteria()["relaxation"])


def acceptor_limit(rule: Rule, side: str = "") -> Limit:
    """The precise D···A limit of an acceptor rule (a syn/anti rule: of that side; none given, the wider)."""
    p = rule.params
    name = f"{rule.short}{' ' + side if side else ''}"
    if "r" in p:
        return Limit(name, float(p["r"]))
    return Limit(name, max(float(p[s]["r"]) for s in ((side,) if side else ("syn", "anti")) if s in p))


def shared_proton_limit() -> Limit:
    return Limit(SHARED_PROTON, float(criteria()["shared_proton"]["max_distance"]), relaxed=False)


@functools.lru_cache(maxsize=None)
def _acceptor_rules() -> tuple[Rule, ...]:
    """Every acceptor rule the finder can match: the listed ones and each generic one per type."""
    c = criteria()
    return tuple([listed_acceptor(r["id"]) for r in c["acceptors"]] +
                 [generic_acceptor(key, t) for key in c["generic_acceptors"] for t in sorted(ACCEPTOR_TYPES)])


def _elements(rule: Rule) -> str:
    return rule.params.get("element", "NO")


def widest_limit(elements: str = "NOS") -> float:
    """The widest precise D···A limit of the acceptor rules of these elements ("NO": N and O acceptors)."""
    return max(max(float(p["r"]) for p in ([r.params] if "r" in r.params else
                                            [r.params[s] for s in ("syn", "anti") if s in r.params]))
               for r in _acceptor_rules() if any(e in elements for e in _elements(r)))


def acceptor_head(rule: Rule, side: str = "") -> str:
    """How a criterion names its acceptor rule: ``acceptor #6 amide O anti``."""
    return rule.label + (f" {side}" if side else "")


def hbond_criterion(acceptor: Rule, side: str, donor: Rule) -> str:
    return acceptor_head(acceptor, side) + SEPARATOR + donor.label


def shared_proton_criterion(distance: float) -> str:
    return f"{SHARED_PROTON}: acid O...acid O {distance:.2f} A <= {shared_proton_limit().distance} A"


@functools.lru_cache(maxsize=None)
def _limits_by_head() -> dict[str, Limit]:
    out = {}
    for rule in _acceptor_rules():
        for side in (("", "syn", "anti") if rule.test == "syn_anti" else ("",)):
            out[acceptor_head(rule, side)] = acceptor_limit(rule, side)
    return out


def criterion_limit(criterion: str) -> Limit | None:
    """The rule and limit of an H-bond record's ``criterion`` (None: not a criterion the finder writes)."""
    criterion = criterion or ""
    if criterion.startswith(SHARED_PROTON + ":"):
        return shared_proton_limit()
    head, sep, _donor = criterion.partition(SEPARATOR)
    return _limits_by_head().get(head) if sep else None


__all__ = ["Limit", "relaxation", "acceptor_limit", "shared_proton_limit", "widest_limit", "acceptor_head",
           "hbond_criterion", "shared_proton_criterion", "criterion_limit"]
