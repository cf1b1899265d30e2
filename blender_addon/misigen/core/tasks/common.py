"""Shared pieces of the task planners: samples, seeds, splits, cameras, per-structure caches.

Pure numpy; never imports bpy. Every random choice comes from a ``numpy.random.Generator``
passed in explicitly and seeded from (root seed, structure, task, split, sample index).
"""
from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field

import numpy as np

from ..camera import Camera
from ..commands import Op, format_number
from ..scene_plan import PARTS, RenderSpec, part_matrices, posed_coords, shown_structure
from ..structure import Structure
from ..style import atom_radii, style_hash

LETTERS = "ABCD"
COMPLEX = ("protein", "ligand")


class Rejected(Exception):
    """A sample a careful human could not answer (or that cannot be made); ``why`` says why."""

    def __init__(self, why: str):
        super().__init__(why)
        self.why = why


@dataclass
class Sample:
    id: str
    task: str
    split: str
    structure: str
    question: str
    images: list                 # [RenderSpec] in prompt order
    options: list | None         # [str] or [RenderSpec] in A–D order, or None
    answer: str
    program: dict
    seed: int

    def as_record(self, image_path=None) -> dict:
        """The QA record; RenderSpecs become ``image_path(spec)`` (default images/<key>.png)."""
        image_path = image_path or (lambda spec: f"images/{spec.key()}.png")
        conv = lambda x: image_path(x) if isinstance(x, RenderSpec) else x  # noqa: E731
        return {"id": self.id, "task": self.task, "split": self.split, "structure": self.structure,
                "question": self.question, "images": [conv(s) for s in self.images],
                "options": None if self.options is None else [conv(o) for o in self.options],
                "answer": self.answer, "program": self.program, "seed": self.seed}


# ------------------------------------------------------------------ seeds and splits
def stable_hash(*parts) -> int:
    """A 64-bit integer from the parts' text (sha256): the same on every machine and run."""
    blob = "\x1f".join(str(p) for p in parts).encode("utf-8")
    return int.from_bytes(hashlib.sha256(blob).digest()[:8], "big")


def sample_seed(seed: int, structure: str, task: str, split: str, index) -> int:
    ss = np.random.SeedSequence([int(seed) & 0xFFFFFFFFFFFFFFFF, stable_hash(structure, task, split, index)])
    return int(ss.generate_state(1, np.uint64)[0])


def make_rng(seed: int, structure: str, task: str, split: str, index) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(
        np.random.SeedSequence([int(seed) & 0xFFFFFFFFFFFFFFFF, stable_hash(structure, task, split, index)])))


def split_for(structure_id: str, seed: int, test_fraction: float = 490 / 3993) -> str:
    """``train`` or ``test`` from a hash of (seed, structure id) alone: stable and per structure."""
    if not 0.0 <= test_fraction <= 1.0:
        raise ValueError(f"test_fraction must be in [0, 1], got {test_fraction}")
    u = stable_hash("split", int(seed), structure_id) / float(1 << 64)
    return "test" if u < test_fraction else "train"


# ------------------------------------------------------------------ value ranges
def range_values(r: dict) -> list[float]:
    """Values of a spec range {min, max, step, exclude}: min, min+step, … ≤ max, minus excluded."""
    lo, hi, step = float(r["min"]), float(r["max"]), float(r["step"])
    n = int(math.floor((hi - lo) / step + 1e-9)) + 1
    excl = {round(float(x), 6) for x in r.get("exclude", [])}
    out = []
    for k in range(max(n, 0)):
        v = round(lo + k * step, 6)
        if v not in excl:
            out.append(float(format_number(v, as_float=True)))
    return out


def magnitude_bin(value: float, values: list, bins: int) -> int:
    mags = sorted({abs(v) for v in values})
    if len(mags) <= 1 or bins <= 1:
        return 0
    pos = mags.index(abs(value))
    return min(bins - 1, pos * bins // len(mags))


def balanced_order(items: list, rng: np.random.Generator) -> list:
    """A random order of the answer classes ``items``: sample i takes class order[i % n].

    Classes that are tuples of (feature, value) pairs are ordered greedily so that every
    prefix is as balanced as possible on each feature (e.g. the first two of
    axis × sign cover both axes and both signs); ties are broken at random."""
    perm = [items[k] for k in rng.permutation(len(items))]
    if not all(isinstance(c, tuple) and c and all(isinstance(p, tuple) and len(p) == 2 for p in c) for c in perm):
        return perm
    counts: dict = {}
    out, rest = [], list(perm)
    while rest:
        best = min(rest, key=lambda c: sum(counts.get(p, 0) for p in c))
        rest.remove(best)
        out.append(best)
        for p in best:
            counts[p] = counts.get(p, 0) + 1
    return out


# ------------------------------------------------------------------ geometry helpers
def rnd(v, nd=4):
    return [round(float(x), nd) for x in v]


def sphere_camera(centre, radius: float, style: dict, max_zoom: float = 0.0,
                  clearance: float = 0.0) -> Camera:
    """The camera looking at ``centre`` down −Z that shows a sphere of ``radius`` in every view.

    Any rotation about ``centre`` keeps the atoms inside the sphere, so one camera fits all
    canonical views and rolls. Perspective: far enough that the sphere fits the narrower
    field of view (less the style's margin) and that after the largest ``move z`` the
    nearest atom is still ``clearance`` Å in front of the camera.
    """
    w, h = (int(x) for x in style["render"]["resolution"])
    cam_cfg = style["camera"]
    fill = 1.0 - float(cam_cfg["margin"])
    aspect = h / w
    c = np.asarray(centre, float)
    if cam_cfg["projection"] == "perspective":
        fov = float(cam_cfg["fov_deg"])
        t = math.tan(math.radians(fov) / 2) * fill * min(1.0, aspect)
        dist = radius / math.sin(math.atan(t))
        dist = max(dist, max_zoom + radius + clearance)
        pos = (float(c[0]), float(c[1]), float(c[2] + dist))
        return Camera(tuple(rnd(pos)), w, h, "perspective", fov,
                      clip=(0.1, round(dist + radius + 10.0, 1)))
    half_w = max(radius, radius / aspect) / fill
    pos = (float(c[0]), float(c[1]), float(c[2] + radius + 50.0))
    return Camera(tuple(rnd(pos)), w, h, "orthographic", ortho_scale=round(2 * half_w, 4),
                  clip=(0.1, round(2 * radius + 100.0, 1)))


def rmsd(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.sqrt(((a - b) ** 2).sum(axis=1).mean()))


def view_distance(pix_a: np.ndarray, pix_b: np.ndarray, classes: np.ndarray, max_atoms: int = 600) -> float:
    """How different two images of the same atoms look, ignoring atom identity (pixels).

    Symmetric mean nearest-neighbour distance between the projected atoms of the same
    class (element + ligand flag): near zero when one image is a near-symmetric copy of
    the other even if the atoms were permuted (C2 pockets, symmetric ligands).
    """
    n = len(pix_a)
    keep = np.arange(0, n, max(1, int(math.ceil(n / max_atoms))))
    pa, pb, cl = pix_a[keep], pix_b[keep], classes[keep]
    total, count = 0.0, 0
    for c in np.unique(cl):
        A, B = pa[cl == c], pb[cl == c]
        d = np.sqrt(((A[:, None, :] - B[None, :, :]) ** 2).sum(-1))
        total += d.min(axis=1).sum() + d.min(axis=0).sum()
        count += len(A) + len(B)
    return total / max(count, 1)


# ------------------------------------------------------------------ per-structure context
class Context:
    """Everything the planners compute once per (structure, style): shown sets, centres,
    cameras, H-bonds. Cached by object identity (bounded), so planning every task of one
    structure reuses it; results never depend on what else was planned."""

    def __init__(self, structure: Structure, style: dict):
        self.structure = structure
        self.style = style
        self._shown: dict = {}
        self._hbonds = None

    def shown(self, parts=COMPLEX, residues=None) -> Structure:
        key = (tuple(parts), None if residues is None else tuple(map(tuple, residues)))
        if key not in self._shown:
            self._shown[key] = shown_structure(self.structure, self.style, tuple(parts), residues)
        return self._shown[key]

    def radii(self, shown: Structure) -> np.ndarray:
        return atom_radii(shown, self.style)

    def centre(self, parts=COMPLEX, residues=None) -> tuple:
        """Pinned centre of rotation: the centroid of the shown atoms, rounded (4 decimals)."""
        return tuple(rnd(self.shown(parts, residues).coords.mean(axis=0)))

    def radius(self, parts, residues, centre) -> float:
        s = self.shown(parts, residues)
        r = np.linalg.norm(s.coords - np.asarray(centre), axis=1) + self.radii(s)
        return float(r.max())

    def camera(self, group: dict, parts=COMPLEX, residues=None) -> Camera:
        """The one camera of a shown set: its bounding sphere about the pinned centre, grown by
        the largest in-plane move (``pad``) and distanced for the largest zoom (``max_zoom``)."""
        c = self.centre(parts, residues)
        radius = self.radius(parts, residues, c) + float(group.get("pad", 0.0))
        radius = max(radius, float(group.get("min_radius", 0.0)))
        return sphere_camera(c, radius, self.style, float(group.get("max_zoom", 0.0)),
                             float(group.get("zoom_clearance", 0.0)))

    def hbonds(self) -> list:
        """Protein–ligand H-bonds of the full structure, one per (residue, protein atom, ligand
        atom), in the finder's order (chain, resseq, icode, protein atom, ligand atom)."""
        if self._hbonds is None:
            from ..interactions import find_interactions
            seen, out = set(), []
            for it in find_interactions(self.structure, kinds=("hbond",)):
                if it.kind != "hbond":
                    continue
                key = (it.chain, int(it.resseq), it.icode, it.resname, it.protein_atom, it.ligand_atom)
                if key not in seen:
                    seen.add(key)
                    out.append(it)
            self._hbonds = out
        return self._hbonds

    def row_map(self, shown: Structure) -> dict:
        """Full-structure row → shown row (matched by exact coordinates and atom name)."""
        key = ("rowmap", id(shown))
        if key not in self._shown:
            index = {(c.tobytes(), n): k for k, (c, n) in enumerate(zip(shown.coords, shown.name))}
            s = self.structure
            self._shown[key] = {i: index[(s.coords[i].tobytes(), s.name[i])] for i in range(s.n_atoms)
                                if (s.coords[i].tobytes(), s.name[i]) in index}
        return self._shown[key]


_CACHE: list = []


def context_for(structure: Structure, style: dict) -> Context:
    sh = style_hash(style)
    for s, h, ctx in _CACHE:
        if s is structure and h == sh:
            return ctx
    ctx = Context(structure, style)
    _CACHE.append((structure, sh, ctx))
    del _CACHE[:-4]
    return ctx


def spec_coords(shown: Structure, spec: RenderSpec) -> np.ndarray:
    """Posed coordinates (world/screen frame) of a render's shown atoms."""
    mats, _ = part_matrices(shown, spec.ops, spec.centre)
    return posed_coords(shown, mats)


def atom_classes(shown: Structure) -> np.ndarray:
    return np.array([f"{e}{'L' if l else 'P'}" for e, l in zip(shown.element, shown.ligand)])


def in_frame(camera: Camera, xyz: np.ndarray, radii=None) -> np.ndarray:
    pix, depth = camera.project(xyz)
    r = 0.0 if radii is None else np.asarray(radii) * camera.pixel_scale(depth)
    return (depth > camera.clip[0] + (0 if radii is None else np.asarray(radii))) & \
        (pix[:, 0] - r >= 0) & (pix[:, 0] + r <= camera.width) & \
        (pix[:, 1] - r >= 0) & (pix[:, 1] + r <= camera.height)


def ops_dicts(ops) -> list[dict]:
    return [op.as_dict() for op in ops]


def op_from_dict(d: dict) -> Op:
    return Op(d["op"], d["axis"], float(d["value"]))


def canonical_json(obj) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


__all__ = ["Rejected", "Sample", "split_for", "make_rng", "sample_seed", "range_values", "Context",
           "context_for", "sphere_camera", "view_distance", "rmsd", "PARTS"]
