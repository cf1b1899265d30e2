"""Render descriptions: what one image shows, and the annotation (sidecar) that goes with it.

A ``RenderSpec`` is a pure description (structure, selection, per-part transforms,
camera, style); its content hash names the image, so identical renders are made once.
"""
from __future__ import annotations

import collections
import hashlib
import json
import threading
from dataclasses import dataclass, field

import numpy as np

from . import geometry
from .camera import Camera, fit_camera, visible_atoms
from .labels import LabelPlan, label_homes, label_items, layout_labels, text_box_size
from ..structure.loader import shown_mask
from .shading import depth_cue_range
from ..structure.model import Structure
from ..look.style import atom_radii, style_hash

PARTS = ("protein", "ligand")


@dataclass(frozen=True)
class SiteMarker:
    """A ring drawn round one point of the structure (posed with the protein), in the labels' colour:
    ``radius`` Å at the point's depth (so it is a scale there too); its line ``thickness_px`` px at 512 px
    width, in proportion to the width."""
    point: tuple
    radius: float = 2.0
    thickness_px: float = 2.0

    def description(self) -> dict:
        return {"point": [round(float(x), 4) for x in self.point], "radius": float(self.radius),
                "thickness_px": float(self.thickness_px)}


@dataclass
class RenderSpec:
    structure_id: str
    camera: Camera
    style: dict
    ops: dict = field(default_factory=dict)     # part ("all", "protein", "ligand") → [Op]
    parts: tuple = PARTS                          # which parts are shown
    residues: tuple | None = None                 # restrict protein to these (chain, resseq, icode)
    labels: LabelPlan | None | bool = True        # which labels (True: the style's; False/None: none)
    centre: tuple | None = None                   # centre of rotation; None = centroid of shown atoms
    marker: "SiteMarker | None" = None            # a point ringed on the image

    def __post_init__(self):
        if self.labels is True:
            self.labels = LabelPlan.from_style(self.style)
        elif self.labels is False:
            self.labels = None

    def description(self) -> dict:
        """Canonical JSON-able description; everything that changes pixels is in here."""
        d = {
            "structure": self.structure_id,
            "parts": list(self.parts),
            "residues": [list(r) for r in self.residues] if self.residues is not None else None,
            "ops": {k: [op.as_dict() for op in v] for k, v in sorted(self.ops.items()) if v},
            "camera": self.camera.as_dict(),
            "style": style_hash(self.style),
            "selection": self.style["selection"],
            "labels": self.labels.description() if self.labels is not None else None,
            "centre": [round(float(x), 4) for x in self.centre] if self.centre is not None else None,
        }
        if self.marker is not None:            # only where drawn, so every other image keeps its name
            d["marker"] = self.marker.description()
        return d

    def matrices(self, shown: "Structure") -> tuple[dict, dict]:
        """Part matrices and rotation centres of this render for its shown atoms."""
        return part_matrices(shown, self.ops, self.centre)

    def key(self) -> str:
        blob = json.dumps(self.description(), sort_keys=True, separators=(",", ":"))
        return f"{self.structure_id}_{hashlib.sha256(blob.encode()).hexdigest()[:16]}"


class ShownCache:
    """The atoms a render shows, by (structure, parts, residues, the style's selection): the one
    cache of them, shared by planning, sidecars and scenes (they ask for the same selections many
    times). Bounded (least recently used go first) and locked, so the planning thread and the
    rendering thread may both use it. An entry holds its structure, so its id is not reused while
    the entry lives; structures are not changed once loaded."""

    def __init__(self, kept: int = 64):
        self.kept = kept
        self._items: collections.OrderedDict = collections.OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def key(s: Structure, style: dict, parts, residues) -> tuple:
        return (id(s), tuple(parts), None if residues is None else tuple(map(tuple, residues)),
                json.dumps(style["selection"], sort_keys=True))

    def _hit(self, key, s: Structure):
        hit = self._items.get(key)
        if hit is None or hit[0] is not s:
            return None
        self._items.move_to_end(key)
        return hit[1]

    def get(self, s: Structure, style: dict, parts, residues) -> Structure:
        key = self.key(s, style, parts, residues)
        with self._lock:
            hit = self._hit(key, s)
        if hit is not None:
            return hit
        shown = _select_shown(s, style, parts, residues)      # outside the lock: selections are pure
        with self._lock:
            hit = self._hit(key, s)       # another thread made it meanwhile: one object per selection
            if hit is not None:
                return hit
            self._items[key] = (s, shown)
            while len(self._items) > self.kept:
                self._items.popitem(last=False)
        return shown

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def __len__(self) -> int:
        return len(self._items)


SHOWN = ShownCache()


def shown_structure(s: Structure, spec_or_style, parts=PARTS, residues=None) -> Structure:
    """The atoms a render shows, as a sub-structure (ligand rows keep their order); from ``SHOWN``."""
    style = spec_or_style.style if isinstance(spec_or_style, RenderSpec) else spec_or_style
    return SHOWN.get(s, style, parts, residues)


def _select_shown(s: Structure, style: dict, parts, residues) -> Structure:
    sel = style["selection"]
    cutoff = sel["pocket_cutoff"] if sel["pocket_cutoff"] > 0 else None   # 0 = whole protein
    mask = shown_mask(s, cutoff, sel["hydrogens"], sel["waters"],
                      ligand="ligand" in parts, protein="protein" in parts, keep=pocket_keep(style))
    if residues is not None:
        keys = {(str(c), int(n), str(ic)) for c, n, ic in residues}
        in_res = np.fromiter(((c, n, ic) in keys for c, n, ic in zip(s.chain.tolist(), s.resseq.tolist(),
                                                                      s.icode.tolist())), bool, s.n_atoms)
        mask &= s.ligand | in_res
    return s.subset(mask)


def pose(structure: Structure, spec: RenderSpec) -> tuple[Structure, dict]:
    """The shown atoms of one planned render and the part matrices that pose them."""
    atoms = shown_structure(structure, spec.style, spec.parts, spec.residues)
    return atoms, spec.matrices(atoms)[0]


def scene_atoms(structure: Structure, spec: RenderSpec) -> Structure:
    """The atoms a scene must hold to render ``spec`` (both parts; a render hides what it omits)."""
    return shown_structure(structure, spec.style, PARTS, spec.residues)


def pocket_keep(style: dict) -> tuple:
    """What the style keeps in the pocket besides protein: ("metals", "cofactors") or fewer."""
    sel = style["selection"]
    return tuple(k for k in ("metals", "cofactors") if sel.get(k))


def rotation_centre(shown: Structure) -> np.ndarray:
    """Default centre of rotation: centroid of the shown atoms."""
    return shown.coords.mean(axis=0)


def part_matrices(shown: Structure, ops: dict, centre=None) -> tuple[dict, dict]:
    """4×4 matrix per part ("protein", "ligand") and the centres used, from the op lists.

    "all" ops act on every part about the common centre; then "protein"/"ligand" ops act
    on that part alone, about that part's own (already moved) centroid.
    """
    centre = rotation_centre(shown) if centre is None else np.asarray(centre, float)
    m_all, c_all = geometry.compose(ops.get("all", []), centre)
    mats, centres = {}, {"all": c_all}
    for part in PARTS:
        rows = shown.ligand if part == "ligand" else ~shown.ligand
        m = m_all
        if ops.get(part) and rows.any():
            own = geometry.apply(m_all, shown.coords[rows]).mean(axis=0)
            m_part, centres[part] = geometry.compose(ops[part], own)
            m = m_part @ m_all
        mats[part] = m
    return mats, centres


def posed_coords(shown: Structure, mats: dict) -> np.ndarray:
    out = np.empty_like(shown.coords)
    for part, m in mats.items():
        rows = shown.ligand if part == "ligand" else ~shown.ligand
        out[rows] = geometry.apply(m, shown.coords[rows])
    return out


def scale_bar(shown: Structure, spec: RenderSpec) -> dict | None:
    """The style's scale bar of one render: ``length`` Å at the depth of the centre of rotation
    (the start pose's centre, so every image of one camera carries the same bar), drawn in a
    bottom corner; ``points``: its two end pixels; ``box``: the pixels it and its text take.
    None when the style has no scale bar. Halved until it fits in 40 % of the width."""
    cfg = spec.style.get("scale_bar") or {}
    if not cfg.get("enabled"):
        return None
    cam = spec.camera
    centre = rotation_centre(shown) if spec.centre is None else np.asarray(spec.centre, float)
    depth = -float(cam.to_camera(centre[None])[0, 2])
    per_a = float(cam.pixel_scale(np.array([depth]))[0])
    length = float(cfg["length"])
    while length * per_a > 0.4 * cam.width and length > 0.25:
        length /= 2
    scale = cam.width / 512
    margin = max(2, int(round(cfg["margin_px"] * scale)))
    thick = max(1, int(round(cfg["thickness_px"] * scale)))
    px = length * per_a
    v = cam.height - margin - thick / 2
    u0 = float(margin) if cfg["corner"] == "bottom_left" else cam.width - margin - px
    text = f"{length:g} Å"
    tw, th = text_box_size(text, spec.style, cam.width)
    top = v - thick / 2 - 2 - th
    box = [int(np.floor(u0)) - 1, int(np.floor(top)), int(np.ceil(max(u0 + px, u0 + tw))) + 1, cam.height - margin + 1]
    return {"length": length, "depth": round(depth, 3), "px_per_angstrom": round(per_a, 4),
            "points": [[round(u0, 2), round(v, 2)], [round(u0 + px, 2), round(v, 2)]],
            "thickness": thick, "text": text, "text_box": [int(round(u0)), int(np.floor(top)),
                                                          int(round(u0)) + tw, int(np.floor(top)) + th],
            "box": box}


def site_marker(shown: Structure, spec: RenderSpec) -> dict | None:
    """The ring that marks ``spec.marker`` on the image: its centre pixel, its radius in Å and in px (at the
    point's depth), its line's thickness (px) and ``box``, the pixels it takes (labels keep clear of it).
    None without one."""
    if spec.marker is None:
        return None
    cam = spec.camera
    point = geometry.apply(spec.matrices(shown)[0]["protein"], np.asarray([spec.marker.point], float))
    pix, depth = cam.project(point)
    scale = cam.width / 512
    r = round(float(spec.marker.radius * cam.pixel_scale(depth)[0]), 2)
    thick = max(1, int(round(spec.marker.thickness_px * scale)))
    u, v = (round(float(x), 2) for x in pix[0])
    pad = r + thick + 1
    return {"point": [u, v], "depth": round(float(depth[0]), 3), "radius_angstrom": float(spec.marker.radius),
            "radius_px": r, "thickness": thick,
            "box": [int(np.floor(u - pad)), int(np.floor(v - pad)), int(np.ceil(u + pad)), int(np.ceil(v + pad))]}


def _layout_inputs(shown: Structure, spec: RenderSpec, xyz: np.ndarray) -> dict:
    """What ``layout_labels`` needs of one render besides its labels: anchor pixels, the atoms labels
    avoid, atom radii on screen, the scale bar's box."""
    cam = spec.camera
    pix, depth = cam.project(xyz)
    front = depth > cam.clip[0]
    avoid = {"ligand": shown.ligand, "all": np.ones(shown.n_atoms, bool),
             "none": np.zeros(shown.n_atoms, bool)}[spec.labels.avoid] & front
    radius_px = np.where(front, atom_radii(shown, spec.style) * cam.pixel_scale(np.where(front, depth, 1.0)), 0.0)
    obstacles = np.column_stack([pix[avoid], radius_px[avoid], np.nonzero(avoid)[0]]) if avoid.any() else None
    reserved = [m["box"] for m in (scale_bar(shown, spec), site_marker(shown, spec)) if m]
    return {"pixels": pix, "in_front": front, "width": cam.width, "height": cam.height, "obstacles": obstacles,
            "radius_px": radius_px, "reserved": reserved or None}


_HOMES: collections.OrderedDict = collections.OrderedDict()   # scene → (label homes, its canonical views' labels)
HOMES_KEPT = 64


def scene_label_homes(shown: Structure, spec: RenderSpec) -> tuple[dict, dict]:
    """Where each label of a scene goes first (``core.scene.labels.label_homes``), from the scene's six
    canonical views, each framed on its own as the planners frame them; and those views' labels
    (render key → (posed coordinates, labels)).

    A scene is what a render shows and labels, whatever the camera or the moves: structure, parts,
    residues, style, label plan and centre of rotation. Every image of the scene, canonical view or
    not, then puts a label on the same side of its atom wherever that side has room, so a label can
    be followed from image to image; each image stays a function of its own description."""
    centre = rotation_centre(shown) if spec.centre is None else np.asarray(spec.centre, float)
    key = (spec.structure_id, spec.parts, None if spec.residues is None else tuple(map(tuple, spec.residues)),
           style_hash(spec.style), json.dumps(spec.style["selection"], sort_keys=True), spec.labels,
           tuple(np.round(centre, 4).tolist()), hashlib.sha1(np.ascontiguousarray(shown.coords).tobytes()).hexdigest(),
           tuple(shown.name.tolist()))
    hit = _HOMES.get(key)
    if hit is not None:
        return hit
    radii = atom_radii(shown, spec.style)
    views, inputs = [], []
    for ops in ({"all": list(v)} for v in geometry.canonical_views().values()):
        xyz = posed_coords(shown, part_matrices(shown, ops, centre)[0])
        view = RenderSpec(spec.structure_id, fit_camera(xyz, radii, spec.style), spec.style, ops, spec.parts,
                          spec.residues, spec.labels, spec.centre)
        views.append((view.key(), xyz))
        inputs.append(_layout_inputs(shown, view, xyz))
    homes, placed = label_homes(label_items(shown, spec.labels), inputs, spec.style,
                                may_cover=set(spec.labels.first))
    _HOMES[key] = hit = (homes, {k: (xyz, labels) for (k, xyz), labels in zip(views, placed)})
    while len(_HOMES) > HOMES_KEPT:
        try:
            _HOMES.popitem(last=False)
        except KeyError:          # another thread emptied it meanwhile
            break
    return hit


def placed_labels(shown: Structure, spec: RenderSpec, xyz: np.ndarray | None = None) -> list[dict]:
    """The labels of one render as ``layout_labels`` places them (box None: left out), each first
    tried at its home in the scene (``scene_label_homes``; a canonical view of the scene is laid out
    there already).

    Kept on the spec (keyed by the shown atoms), so the planner's readability checks and
    the sidecar share one layout."""
    if spec.labels is None:
        return []
    if xyz is None:
        xyz = posed_coords(shown, spec.matrices(shown)[0])
    memo_key = (spec.key(), shown.n_atoms, hash(np.ascontiguousarray(xyz).tobytes()))
    memo = spec.__dict__.setdefault("_placed_memo", {})
    if memo_key in memo:
        return memo[memo_key]
    homes, canonical = scene_label_homes(shown, spec)
    known = canonical.get(spec.key())
    if known is not None and np.array_equal(known[0], xyz):
        placed = known[1]
    else:
        inputs = _layout_inputs(shown, spec, xyz)
        placed = layout_labels(label_items(shown, spec.labels), inputs["pixels"], inputs["in_front"], spec.style,
                               inputs["width"], inputs["height"], obstacles=inputs["obstacles"],
                               may_cover=set(spec.labels.first), radius_px=inputs["radius_px"],
                               reserved=inputs["reserved"], homes=homes)
    memo.clear()                      # one layout per spec is enough
    memo[memo_key] = placed
    return placed


def _rounded(a: np.ndarray, digits: int) -> list:
    return np.round(np.asarray(a, float), digits).tolist()


def annotate(shown: Structure, spec: RenderSpec, mats: dict) -> dict:
    """The sidecar of one image: camera, depth-cue ramp, every shown atom's projection and
    visibility, labels, scale bar (and the site marker where one is drawn)."""
    cam = spec.camera
    xyz = posed_coords(shown, mats)
    pix, depth = cam.project(xyz)
    radii = atom_radii(shown, spec.style)
    ramp = depth_cue_range(cam.to_camera(xyz), radii, spec.style["depth_cue"])
    bond_r = spec.style["bond_radius"] if spec.style["representation"] != "spheres" else 0.0
    visible = visible_atoms(cam, xyz, radii, shown.bonds, bond_r)
    in_image = (depth > cam.clip[0]) & (pix[:, 0] >= 0) & (pix[:, 0] < cam.width) & \
        (pix[:, 1] >= 0) & (pix[:, 1] < cam.height)
    columns = zip(shown.chain.tolist(), shown.resseq.tolist(), shown.icode.tolist(), shown.resname.tolist(),
                  shown.name.tolist(), shown.element.tolist(), shown.ligand.tolist(),
                  _rounded(cam.to_camera(xyz), 3), _rounded(pix, 2), _rounded(depth, 3), _rounded(radii, 3),
                  (visible & in_image).tolist())
    atoms = [{"chain": str(c), "resseq": int(n), "icode": str(ic), "resname": str(rn), "name": str(nm),
              "element": str(el), "ligand": bool(lg), "camera_xyz": cx, "pixel": px, "depth": d,
              "radius": r, "visible": bool(vis)}
             for c, n, ic, rn, nm, el, lg, cx, px, d, r, vis in columns]
    labels, dropped = [], []
    if spec.labels is not None:
        for lab in placed_labels(shown, spec, xyz):
            entry = {"text": lab["text"], "kind": lab["kind"], "id": lab["id"], "atom": lab["atom"],
                     "box": lab["box"], "leader": lab.get("leader")}
            (labels if lab["box"] is not None else dropped).append(entry)
    return {
        "key": spec.key(),
        "width": cam.width, "height": cam.height,
        "camera": cam.as_dict(),
        "depth_cue": list(ramp) if ramp is not None else None,   # [start, end] Å from the camera, or off
        "description": spec.description(),
        "atoms": atoms,
        "bonds": shown.bonds.tolist(),
        "labels": labels,
        "labels_left_out": dropped,
        "scale_bar": scale_bar(shown, spec),
        **({"marker": site_marker(shown, spec)} if spec.marker is not None else {}),
    }
