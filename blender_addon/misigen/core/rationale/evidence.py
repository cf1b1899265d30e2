"""What a rationale may cite, read from the images' sidecars, and the facts it records.

A rationale names only what a reader can find in the images: an atom is *citable* in image k
when it is visible there (``visible`` in the sidecar) and its own label, or for a protein atom
its residue's label, is drawn in that image. Every number a rationale quotes is a ``Fact``: a
sidecar reading (pixel, 3D component, bond length) or an arithmetic step over earlier quoted
numbers. ``replay.py`` re-derives each one from the sidecars on their own.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np


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
        self.index = {atom_key(a): i for i, a in enumerate(self.atoms)}
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
        i = self.row(key)
        if i is None or not self.atoms[i]["visible"]:
            return False
        return i in self.atom_labels or (not self.atoms[i]["ligand"] and self.residue_label(i) is not None)

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
        return np.asarray(self.atoms[self.index[key]]["camera_xyz"], float)

    def focal(self) -> float:
        """Focal length in pixels of a perspective camera (horizontal field of view)."""
        return (self.width / 2) / math.tan(math.radians(self.fov) / 2)

    def bonds(self) -> list:
        return [tuple(b) for b in self.car.get("bonds", [])]

    def centroid(self, ligand: bool | None = None) -> np.ndarray:
        rows = [a for a in self.atoms if ligand is None or a["ligand"] == ligand]
        return np.mean([a["camera_xyz"] for a in rows], axis=0)


@dataclass
class Fact:
    """One quoted number (or citation) and how to re-derive it.

    kind: ``cite`` (atom citable in image), ``pixel`` (u or v of an atom), ``comp`` (one camera-frame
    component of the vector from atom a to atom b in image k, or of the centroid), ``length`` (3D
    distance between two atoms), ``angle3`` (angle at atom b of a–b–c, degrees), ``calc`` (expression
    over earlier facts' names), ``answer``."""
    kind: str
    name: str = ""
    value: float | str | None = None
    nd: int = 1                       # decimals quoted
    image: int | None = None
    atoms: tuple = ()
    comp: str = ""                    # "u", "v", "x", "y", "z"
    expr: str = ""                    # calc: python arithmetic over names, cos/sin in degrees
    extra: dict = field(default_factory=dict)


class Facts:
    """The facts of one rationale, in order; ``add`` returns the quoted text of the number."""

    def __init__(self):
        self.items: list[Fact] = []
        self.values: dict[str, float] = {}

    def add(self, fact: Fact) -> str:
        self.items.append(fact)
        if fact.name and isinstance(fact.value, (int, float)):
            self.values[fact.name] = q(fact.value, fact.nd)
        return fmt(fact.value, fact.nd) if isinstance(fact.value, (int, float)) else str(fact.value)

    def cite(self, view: View, key: str) -> None:
        self.items.append(Fact("cite", image=view.k, atoms=(key,)))

    def pixel(self, view: View, key: str, name: str) -> tuple[str, str]:
        """Quote an atom's pixel position (u, v) in one image; names ``<name>_u``, ``<name>_v``."""
        self.cite(view, key)
        u, v = view.pixel(key)
        return (self.add(Fact("pixel", f"{name}_u", u, 1, view.k, (key,), "u")),
                self.add(Fact("pixel", f"{name}_v", v, 1, view.k, (key,), "v")))

    def comp(self, view: View, a: str | None, b: str, comp: str, name: str, nd: int = 2, ligand=None) -> str:
        """b − a (camera frame, Å) along x/y/z in one image; a=None: centroid of the drawn atoms."""
        if a is None:
            c = view.centroid(ligand)
            val = c["xyz".index(comp)]
            return self.add(Fact("comp", name, float(val), nd, view.k, (), comp,
                                 extra={"centroid": "ligand" if ligand else ("protein" if ligand is False else "all")}))
        val = (view.xyz(b) - view.xyz(a))["xyz".index(comp)]
        return self.add(Fact("comp", name, float(val), nd, view.k, (a, b), comp))

    def length(self, view: View, a: str, b: str, name: str, nd: int = 2) -> str:
        return self.add(Fact("length", name, float(np.linalg.norm(view.xyz(a) - view.xyz(b))), nd, view.k, (a, b)))

    def angle3(self, view: View, a: str, b: str, c: str, name: str) -> str:
        u, w = view.xyz(a) - view.xyz(b), view.xyz(c) - view.xyz(b)
        ang = math.degrees(math.acos(max(-1.0, min(1.0, float(u @ w / (np.linalg.norm(u) * np.linalg.norm(w)))))))
        return self.add(Fact("angle3", name, ang, 0, view.k, (a, b, c)))

    def calc(self, name: str, expr: str, nd: int) -> str:
        return self.add(Fact("calc", name, evaluate(expr, self.values), nd, expr=expr))

    def answer(self, text: str) -> None:
        self.items.append(Fact("answer", value=text))


# ------------------------------------------------------------------ arithmetic (shared with replay)
_FUNCS = {"cos": lambda d: math.cos(math.radians(d)), "sin": lambda d: math.sin(math.radians(d)),
          "sqrt": math.sqrt, "abs": abs, "atan2": lambda y, x: math.degrees(math.atan2(y, x)),
          "tan": lambda d: math.tan(math.radians(d)), "min": min, "max": max}


def evaluate(expr: str, values: dict) -> float:
    """A calc fact's expression over quoted values (names), with degree trigonometry; nothing else."""
    import ast

    tree = ast.parse(expr, mode="eval")
    for node in ast.walk(tree):
        ok = isinstance(node, (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Constant, ast.Name, ast.Load, ast.Call,
                               ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.USub, ast.UAdd))
        if not ok or (isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in _FUNCS)):
            raise ValueError(f"calc expression not allowed: {expr!r}")
    return float(eval(compile(tree, "<calc>", "eval"), {"__builtins__": {}}, {**_FUNCS, **values}))  # noqa: S307
