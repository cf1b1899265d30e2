"""What a rationale may cite, read from the images' sidecars, and the facts it records.

A rationale names only what a reader can find in the images: an atom is *citable* in image k
when it is visible there (``visible`` in the sidecar) and its own label, or for a protein atom
its residue's label, is drawn in that image. Every number a rationale quotes is a ``Fact`` a reader
could take from the images or the question (``READABLE``): a pixel reading (position, offset, span,
the centre of a drawing), a standard bond length or the scale bar for the px/Å scale, the camera's
stated field of view, a criterion's limit, or arithmetic over earlier facts; a 3D length or angle is
such arithmetic, an estimate quoted as "about …". The sidecar's 3D coordinates may choose *which*
atoms to read (the truth says which pair is bonded) but are never quoted. ``replay.py`` re-derives
each fact from the sidecars on their own.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np


def marker_value(mark: dict, comp: str) -> float:
    """One reading of a site marker's sidecar entry (``u``, ``v``, ``radius_px``, ``radius_angstrom``)."""
    return float(mark["point"]["uv".index(comp)]) if comp in ("u", "v") else float(mark[comp])


class NoRationale(Exception):
    """The images do not support a step-by-step derivation of this record's answer."""


def fmt(x: float, nd: int) -> str:
    """A number as quoted in a rationale: fixed decimals, never '-0'."""
    s = f"{float(x):.{nd}f}"
    return s[1:] if s.startswith("-") and float(s) == 0 else s


def q(x: float, nd: int) -> float:
    """The value a quoted number stands for (what replay recomputes from)."""
    return float(fmt(x, nd))


def atom_key(a: dict) -> str:
    """An atom's identity across images: ``L:<name>`` (ligand) or ``P:<chain>:<resseq><icode>:<name>``."""
    if a["ligand"]:
        return f"L:{a['name']}"
    return f"P:{a['chain']}:{a['resseq']}{a['icode']}:{a['name']}"


class View:
    """One image's sidecar, indexed for citing (image number ``k`` as the prompt counts them)."""

    def __init__(self, k: int, sidecar: dict):
        self.k, self.car = k, sidecar
        self.atoms = sidecar["atoms"]
        self.keys = [atom_key(a) for a in self.atoms]            # per row
        self.index = {key: i for i, key in enumerate(self.keys)}
        self._citable: dict = {}
        self.atom_labels, self.res_labels = {}, {}
        for lab in sidecar.get("labels", []):
            if lab.get("kind") == "residue":
                self.res_labels[lab["id"]] = lab["text"]
            elif lab.get("atom") is not None:
                self.atom_labels[int(lab["atom"])] = lab["text"]
        self.width, self.height = int(sidecar["width"]), int(sidecar["height"])
        cam = sidecar["camera"]
        self.fov = float(cam.get("fov_deg") or 0.0)
        self.perspective = cam.get("projection") == "perspective"

    def row(self, key: str) -> int | None:
        return self.index.get(key)

    def residue_label(self, i: int) -> str | None:
        a = self.atoms[i]
        return self.res_labels.get(f"res {a['chain']}:{int(a['resseq'])}{a['icode']}")

    def citable(self, key: str) -> bool:
        known = self._citable.get(key)
        if known is None:
            i = self.row(key)
            known = self._citable[key] = i is not None and bool(self.atoms[i]["visible"]) and (
                i in self.atom_labels or (not self.atoms[i]["ligand"] and self.residue_label(i) is not None))
        return known

    def name(self, key: str) -> str:
        """How the rationale names an atom: by its label text in this image."""
        i = self.index[key]
        a = self.atoms[i]
        if a["ligand"]:
            return f"ligand atom {a['name']}"
        res = self.residue_label(i) or f"{a['resname']} {a['resseq']}{a['icode']}"
        return f"{a['name']} of {res}"

    def pixel(self, key: str) -> list:
        return self.atoms[self.index[key]]["pixel"]

    def xyz(self, key: str) -> np.ndarray:
        """The atom's 3D position (camera frame): for choosing what to read, never for quoting."""
        return np.asarray(self.atoms[self.index[key]]["camera_xyz"], float)

    def element(self, key: str) -> str:
        return str(self.atoms[self.index[key]]["element"]).upper()

    def focal(self) -> float:
        """Focal length in pixels of a perspective camera (horizontal field of view)."""
        return (self.width / 2) / math.tan(math.radians(self.fov) / 2)

    def bonds(self) -> list:
        return [tuple(b) for b in self.car.get("bonds", [])]

    def bonded(self, a: str, b: str) -> bool:
        if not hasattr(self, "_bondset"):
            self._bondset = {frozenset(map(int, b)) for b in self.bonds()}
        return frozenset((self.row(a), self.row(b))) in self._bondset


# Fact kinds whose value a reader takes from the images or the question (``replay.py`` re-derives
# each): anything else (a 3D coordinate, depth or distance from the sidecar) is not citable.
READABLE = frozenset({
    "cite",        # an atom visible and labelled in image k
    "pixel",       # u or v of an atom in image k
    "offset",      # pixel offset (u or v) from atom a to atom b in image k
    "span",        # pixel distance between two atoms in image k
    "centre",      # mean pixel (u or v) of a set of drawn atoms in image k (the centre of a drawing)
    "marker",      # the ring drawn in image k (the site marker): its centre's u or v, its radius in px
    "ring",        # the site marker's radius in Å (the prompt states it)
    "camera",      # image width, height; the field of view the prompt states
    "standard",    # the standard length of a bonded pair (core/data/reading.yaml)
    "bar",         # the scale bar drawn in image k: its Å text or its pixel length
    "limit",       # a criterion's distance limit (the prompt states the criteria)
    "given",       # a number the question states (a step, a precision)
    "tolerance",   # how far a reading is trusted (core/data/reading.yaml: its relative and pixel error)
    "calc",        # arithmetic over earlier facts
    "round",       # an estimate rounded to the answer's step
    "answer",
})
# Kinds that are reference lengths a reader knows or is told (not estimates): quoted in Å without "about".
REFERENCE = frozenset({"standard", "bar", "ring", "limit", "given", "round"})


@dataclass
class Fact:
    """One quoted number (or citation) and how to re-derive it; ``kind`` is one of ``READABLE``.

    ``calc``: an expression over earlier facts' names (numeric literals: integers, or numbers the
    question states as ``given`` facts); ``estimate``: a quantity in Å (or degrees) derived from pixel
    readings, which a rationale quotes as "about …"."""
    kind: str
    name: str = ""
    value: float | str | None = None
    nd: int = 1                       # decimals quoted
    image: int | None = None
    atoms: tuple = ()
    comp: str = ""                    # "u", "v" (pixel axes); a camera field; a scale bar field
    expr: str = ""                    # calc: python arithmetic over names, cos/sin in degrees
    extra: dict = field(default_factory=dict)
    estimate: bool = False


class Facts:
    """The facts of one rationale, in order; ``add`` returns the quoted text of the number.

    ``margins``: how far, in reading errors, each estimate the derivation turns on is from changing
    the answer (``estimates.py``); the least is the record's ``reading_margin``."""

    def __init__(self):
        self.items: list[Fact] = []
        self.values: dict[str, float] = {}
        self.margins: list[float] = []

    def add(self, fact: Fact) -> str:
        self.items.append(fact)
        if fact.name and isinstance(fact.value, (int, float)):
            self.values[fact.name] = q(fact.value, fact.nd)
        return fmt(fact.value, fact.nd) if isinstance(fact.value, (int, float)) else str(fact.value)

    def fork(self) -> "Facts":
        """A copy to try one reading on; ``adopt`` keeps it."""
        out = Facts()
        out.items, out.values, out.margins = list(self.items), dict(self.values), list(self.margins)
        return out

    def adopt(self, other: "Facts") -> None:
        self.items, self.values, self.margins = other.items, other.values, other.margins

    def cite(self, view: View, key: str) -> None:
        self.items.append(Fact("cite", image=view.k, atoms=(key,)))

    def pixel(self, view: View, key: str, name: str) -> tuple[str, str]:
        """Quote an atom's pixel position (u, v) in one image; names ``<name>_u``, ``<name>_v``."""
        self.cite(view, key)
        u, v = view.pixel(key)
        return (self.add(Fact("pixel", f"{name}_u", u, 1, view.k, (key,), "u")),
                self.add(Fact("pixel", f"{name}_v", v, 1, view.k, (key,), "v")))

    def offset(self, view: View, a: str, b: str, comp: str, name: str) -> str:
        """b's pixel position minus a's, along u (right) or v (down), in one image."""
        self.cite(view, a)
        self.cite(view, b)
        i = "uv".index(comp)
        return self.add(Fact("offset", name, view.pixel(b)[i] - view.pixel(a)[i], 1, view.k, (a, b), comp))

    def span(self, view: View, a: str, b: str, name: str) -> str:
        """The pixel distance between two atoms in one image."""
        self.cite(view, a)
        self.cite(view, b)
        pa, pb = view.pixel(a), view.pixel(b)
        return self.add(Fact("span", name, math.dist(pa, pb), 1, view.k, (a, b)))

    def centre(self, view: View, which: str, comp: str, name: str, atoms: tuple = ()) -> str:
        """Mean pixel (u or v) of drawn atoms: ``which`` is ``ligand``, ``protein``, ``all`` or ``atoms``
        (those named)."""
        return self.add(Fact("centre", name, centre_of(view, which, comp, atoms), 1, view.k, tuple(atoms), comp,
                             extra={"which": which}))

    def marker(self, view: View, comp: str, name: str) -> str:
        """The ring drawn in one image: its centre's ``u`` or ``v``, its radius in px (``radius_px``) or, as
        the prompt states it, in Å (``radius_angstrom``)."""
        mark = view.car.get("marker")
        if not mark:
            raise NoRationale(f"image {view.k} has no site marker")
        kind = "ring" if comp == "radius_angstrom" else "marker"
        return self.add(Fact(kind, name, marker_value(mark, comp), 2 if comp == "radius_px" else 1, view.k, comp=comp))

    def calc(self, name: str, expr: str, nd: int, estimate: bool = False) -> str:
        return self.add(Fact("calc", name, evaluate(expr, self.values), nd, expr=expr, estimate=estimate))

    def given(self, name: str, value: float, key: str) -> str:
        """A number the question states: ``key`` names it in the record's program."""
        return self.add(Fact("given", name, float(value), decimals(value), extra={"key": key}))

    def answer(self, text: str) -> None:
        self.items.append(Fact("answer", value=text))


def centre_of(view: View, which: str, comp: str, atoms: tuple = ()) -> float:
    """The mean pixel coordinate a ``centre`` fact quotes (shared with replay)."""
    i = "uv".index(comp)
    if which == "atoms":
        return float(np.mean([view.pixel(k)[i] for k in atoms]))
    return float(np.mean([a["pixel"][i] for a in view.atoms if which == "all" or a["ligand"] == (which == "ligand")]))


def decimals(x: float) -> int:
    s = f"{float(x):g}"
    return len(s.split(".")[1]) if "." in s else 0


# ------------------------------------------------------------------ arithmetic (shared with replay)
_FUNCS = {"cos": lambda d: math.cos(math.radians(d)), "sin": lambda d: math.sin(math.radians(d)),
          "sqrt": math.sqrt, "abs": abs, "atan2": lambda y, x: math.degrees(math.atan2(y, x)),
          "tan": lambda d: math.tan(math.radians(d)), "acos": lambda x: math.degrees(math.acos(x)), "min": min,
          "max": max}


def evaluate(expr: str, values: dict) -> float:
    """A calc fact's expression over quoted values (names), with degree trigonometry; nothing else."""
    return float(eval(_compiled(expr), {"__builtins__": {}}, {**_FUNCS, **values}))  # noqa: S307


@functools.lru_cache(maxsize=4096)
def _compiled(expr: str):
    """An allowed expression's code (rationales quote the same few expressions many times)."""
    import ast

    tree = ast.parse(expr, mode="eval")
    for node in ast.walk(tree):
        ok = isinstance(node, (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Constant, ast.Name, ast.Load, ast.Call,
                               ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.USub, ast.UAdd))
        if not ok or (isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in _FUNCS)):
            raise ValueError(f"calc expression not allowed: {expr!r}")
    return compile(tree, "<calc>", "eval")
