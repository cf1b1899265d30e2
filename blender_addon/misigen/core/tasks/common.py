"""Shared pieces of the task planners: samples, seeds, splits, cameras, per-structure caches.

Pure numpy; never imports bpy. Every random choice comes from a ``numpy.random.Generator``
passed in explicitly and seeded from (root seed, structure, task, split, sample index).
"""
from __future__ import annotations

import hashlib
import math
import threading
from dataclasses import dataclass

import numpy as np

from ..scene import geometry
from ..scene.camera import Camera, fit_camera
from ..op_grammar import format_number
from ..scene.scene_plan import PARTS, RenderSpec, part_matrices, pocket_keep, posed_coords, shown_structure
from ..structure.model import Structure
from ..look.style import atom_radii, style_hash

LETTERS = "ABCD"
COMPLEX = ("protein", "ligand")
MISI_BENCH_TEST_FRACTION = 490 / 3993    # MiSI-Bench's test share: 490 of its 3,993 complexes


class Rejected(Exception):
    """A sample a careful human could not answer (or that cannot be made); ``why`` says why."""

    def __init__(self, why: str):
        super().__init__(why)
        self.why = why


@dataclass(frozen=True)
class Planned:
    """What a planner's ``make`` returns for one sample (the run loop adds id, seed, split)."""
    question: str
    images: list                 # [RenderSpec] in prompt order
    answer: str
    program: dict                # machine-readable ground truth
    options: list | None = None  # [str] or [RenderSpec] in A–D order, or None


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
    rationale: str | None = None  # step-by-step explanation from the sidecars (``core.rationale``)

    def render_specs(self) -> list:
        """Every RenderSpec of the sample: images, then option images."""
        return list(self.images) + [o for o in (self.options or []) if isinstance(o, RenderSpec)]

    def as_record(self, image_path=None) -> dict:
        """The QA record of the dataset contract (the one place it is built); RenderSpecs become
        ``image_path(spec)`` (default ``images/<key>.png``)."""
        image_path = image_path or (lambda spec: f"images/{spec.key()}.png")
        conv = lambda x: image_path(x) if isinstance(x, RenderSpec) else x  # noqa: E731
        return {"id": self.id, "task": self.task, "split": self.split, "structure": self.structure,
                "question": self.question, "images": [conv(s) for s in self.images],
                "options": None if self.options is None else [conv(o) for o in self.options],
                "answer": self.answer, "rationale": self.rationale, "program": self.program, "seed": self.seed}


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


def split_for(structure_id: str, seed: int, test_fraction: float = MISI_BENCH_TEST_FRACTION) -> str:
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


def frame_span(camera: Camera, xyz: np.ndarray, radii: np.ndarray) -> tuple[float, float]:
    """Fraction of the image width and height that the spheres' bounding box spans."""
    pix, depth = camera.project(xyz)
    r = np.asarray(radii) * camera.pixel_scale(depth)
    return (float(((pix[:, 0] + r).max() - (pix[:, 0] - r).min()) / camera.width),
            float(((pix[:, 1] + r).max() - (pix[:, 1] - r).min()) / camera.height))


def rmsd(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.sqrt(((a - b) ** 2).sum(axis=1).mean()))


def view_distance(pix_a: np.ndarray, pix_b: np.ndarray, classes: np.ndarray, max_atoms: int = 600) -> float:
    """How different two images of the same atoms look, ignoring atom identity (pixels).

    Symmetric mean nearest-neighbour distance between the projected atoms of the same
    class (element + ligand flag): near zero when one image is a near-symmetric copy of
    the other even if the atoms were permuted (C2 pockets, symmetric ligands).
    """
    step = max(1, int(math.ceil(len(pix_a) / max_atoms)))
    pa, pb, cl = pix_a[::step], pix_b[::step], classes[::step]
    total, count = 0.0, 0
    for c in np.unique(cl):
        rows = cl == c
        A, B = pa[rows], pb[rows]
        du, dv = A[:, None, 0] - B[None, :, 0], A[:, None, 1] - B[None, :, 1]
        d2 = du * du + dv * dv          # the root of the nearest is the nearest root: one root per atom
        total += np.sqrt(d2.min(axis=1)).sum() + np.sqrt(d2.min(axis=0)).sum()
        count += 2 * len(A)
    return total / max(count, 1)


def view_change(camera: Camera, pix_a: np.ndarray, pix_b: np.ndarray, classes: np.ndarray) -> float:
    """``view_distance`` as a fraction of the image width: the same for the same two views at any
    resolution, so look-alike thresholds (the specs' ``min_view_change``, ``min_option_view`` …)
    keep a dataset's task mix and answer balance whatever ``--resolution`` is."""
    return view_distance(pix_a, pix_b, classes) / camera.width


def same_pose(a: RenderSpec, b: RenderSpec) -> bool:
    """Whether two renders show the same atoms in the same pose, whatever commands led there and
    however each is framed (a start view seen again, only re-framed, is still a repeat)."""
    if (a.structure_id, a.parts, a.residues) != (b.structure_id, b.parts, b.residues):
        return False
    ca = np.zeros(3) if a.centre is None else np.asarray(a.centre, float)
    cb = np.zeros(3) if b.centre is None else np.asarray(b.centre, float)
    probe = np.array([[0.0, 0, 0], [10, 0, 0], [0, 10, 0], [0, 0, 10]]) + ca
    for part in ("all", "protein", "ligand"):
        ma, _ = geometry.compose(a.ops.get(part, []), ca)
        mb, _ = geometry.compose(b.ops.get(part, []), cb)
        if not np.allclose(geometry.apply(ma, probe), geometry.apply(mb, probe), atol=1e-3):
            return False
    return True


# ------------------------------------------------------------------ per-structure context
class Context:
    """Everything the planners compute once per (structure, style): posed coordinates,
    interactions, row maps (the shown sets themselves live in ``scene_plan.SHOWN``). Cached by
    object identity (bounded), so planning every task of one structure reuses it; results never
    depend on what else was planned."""

    def __init__(self, structure: Structure, style: dict):
        self.structure = structure
        self.style = style
        self.cache: dict = {}

    def _memo(self, key, make):
        if key not in self.cache:
            self.cache[key] = make()
        return self.cache[key]

    def shown(self, parts=COMPLEX, residues=None) -> Structure:
        """The shown atoms of a selection (``scene_plan.SHOWN``: the one cache of them)."""
        return shown_structure(self.structure, self.style, tuple(parts), residues)

    def radii(self, shown: Structure) -> np.ndarray:
        return atom_radii(shown, self.style)

    def centre(self, parts=COMPLEX, residues=None) -> tuple:
        """Pinned centre of rotation: the centroid of the shown atoms, rounded (4 decimals)."""
        return tuple(rnd(self.shown(parts, residues).coords.mean(axis=0)))

    def posed(self, ops: dict, parts=COMPLEX, residues=None, centre=None) -> np.ndarray:
        """Posed coordinates of the shown atoms after ``ops`` ({"all"|"protein"|"ligand": [Op]})."""
        shown = self.shown(parts, residues)
        centre = self.centre(parts, residues) if centre is None else centre
        key = ("posed", tuple(parts), None if residues is None else tuple(map(tuple, residues)),
               tuple(centre), tuple((k, tuple(v)) for k, v in sorted(ops.items()) if v))
        return self._memo(key, lambda: posed_coords(shown, part_matrices(shown, ops, centre)[0]))

    def view_camera(self, ops: dict, parts=COMPLEX, residues=None, centre=None, fit_rows=None) -> Camera:
        """"View all" of the shown atoms posed by ``ops`` (``fit_rows``: only these rows count)."""
        shown = self.shown(parts, residues)
        xyz = self.posed(ops, parts, residues, centre)
        radii = self.radii(shown)
        if fit_rows is not None:
            xyz, radii = xyz[fit_rows], radii[fit_rows]
        return fit_camera(xyz, radii, self.style)

    def hbonds(self, definition: str | None = None) -> list:
        """Protein–ligand H-bonds of the full structure, one per (residue, protein atom, ligand
        atom), in the finder's order (chain, resseq, icode, protein atom, ligand atom), by the
        named H-bond definition (the suite's ``hbonds.definition``; None: the default)."""
        return self.interactions("hbond", definition)

    def interactions(self, kind: str, definition: str | None = None) -> list:
        """Protein–ligand interactions of one kind of the full structure, one per partner identity
        (an H-bond's: its residue and two atoms), in the finder's order."""
        def make():
            from ..chemistry.interactions import find_interactions
            seen, out = set(), []
            for it in find_interactions(self.structure, kinds=(kind,), definition=definition,
                                          keep=pocket_keep(self.style)):
                if it.kind == kind and it.identity() not in seen:
                    seen.add(it.identity())
                    out.append(it)
            return out
        return self._memo(("interactions", kind, definition), make)

    def ligand_classes(self) -> list:
        """The ligand's symmetry classes (``core.chemistry.equivalence.ligand_classes``), as records carry them."""
        from ..chemistry.equivalence import structure_ligand_classes
        return self._memo(("ligand_classes",), lambda: structure_ligand_classes(self.structure))

    def group_rows(self, it) -> tuple[list[int], list[int]]:
        """Full-structure rows of an interaction's protein group and ligand group (by atom name)."""
        s = self.structure
        p_names, l_names = it.partner_atoms()
        prot = [int(i) for i in range(s.n_atoms) if not s.ligand[i] and s.chain[i] == it.chain
                and int(s.resseq[i]) == int(it.resseq) and s.icode[i] == it.icode and s.name[i] in p_names]
        lig = [int(i) for i in range(s.n_atoms) if s.ligand[i] and s.name[i] in l_names]
        return prot or [int(it.protein_index)], lig or [int(it.ligand_index)]

    def row_map(self, shown: Structure) -> dict:
        """Full-structure row → shown row (matched by exact coordinates and atom name). The memo holds
        ``shown`` itself, so the id it is found by cannot be another structure's."""
        def make():
            index = {(c.tobytes(), n): k for k, (c, n) in enumerate(zip(shown.coords, shown.name))}
            s = self.structure
            return shown, {i: index[(s.coords[i].tobytes(), s.name[i])] for i in range(s.n_atoms)
                           if (s.coords[i].tobytes(), s.name[i]) in index}
        held, rows = self._memo(("rowmap", id(shown)), make)
        if held is not shown:
            held, rows = self.cache[("rowmap", id(shown))] = make()
        return rows


_CACHE: list = []          # (structure, style hash, Context): the last few, newest last
_CACHE_LOCK = threading.Lock()
CONTEXTS_KEPT = 4


def context_for(structure: Structure, style: dict) -> Context:
    """The planning context of (structure, style), kept while its structure is among the last few
    planned (locked: the planning thread and the caller's may ask at once)."""
    sh = style_hash(style)
    with _CACHE_LOCK:
        for s, h, ctx in _CACHE:
            if s is structure and h == sh:
                return ctx
        ctx = Context(structure, style)
        _CACHE.append((structure, sh, ctx))
        del _CACHE[:-CONTEXTS_KEPT]
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


__all__ = ["Rejected", "Planned", "Sample", "split_for", "make_rng", "sample_seed", "range_values", "Context",
           "context_for", "fit_camera", "view_distance", "view_change", "rmsd", "PARTS"]
