"""Render descriptions: what one image shows, and the annotation (sidecar) that goes with it.

A ``RenderSpec`` is a pure description (structure, selection, per-part transforms,
camera, style); its content hash names the image, so identical renders are made once.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

import numpy as np

from . import geometry
from .camera import Camera, visible_atoms
from .labels import LabelPlan, label_items, layout_labels
from .loader import shown_mask
from .structure import Structure
from .style import atom_radii, style_hash

PARTS = ("protein", "ligand")


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

    def __post_init__(self):
        if self.labels is True:
            self.labels = LabelPlan.from_style(self.style)
        elif self.labels is False:
            self.labels = None

    def description(self) -> dict:
        """Canonical JSON-able description; everything that changes pixels is in here."""
        return {
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

    def matrices(self, shown: "Structure") -> tuple[dict, dict]:
        """Part matrices and rotation centres of this render for its shown atoms."""
        return part_matrices(shown, self.ops, self.centre)

    def key(self) -> str:
        blob = json.dumps(self.description(), sort_keys=True, separators=(",", ":"))
        return f"{self.structure_id}_{hashlib.sha256(blob.encode()).hexdigest()[:16]}"


def shown_structure(s: Structure, spec_or_style, parts=PARTS, residues=None) -> Structure:
    """The atoms a render shows, as a sub-structure (ligand rows keep their order)."""
    style = spec_or_style.style if isinstance(spec_or_style, RenderSpec) else spec_or_style
    sel = style["selection"]
    cutoff = sel["pocket_cutoff"] if sel["pocket_cutoff"] > 0 else None   # 0 = whole protein
    mask = shown_mask(s, cutoff, sel["hydrogens"], sel["waters"],
                      ligand="ligand" in parts, protein="protein" in parts)
    if residues is not None:
        keys = set(map(tuple, residues))
        in_res = np.array([(c, int(n), ic) in keys for c, n, ic in zip(s.chain, s.resseq, s.icode)])
        mask &= s.ligand | in_res
    return s.subset(mask)


def pose(structure: Structure, spec: RenderSpec) -> tuple[Structure, dict]:
    """The shown atoms of one planned render and the part matrices that pose them."""
    atoms = shown_structure(structure, spec.style, spec.parts, spec.residues)
    return atoms, spec.matrices(atoms)[0]


def scene_atoms(structure: Structure, spec: RenderSpec) -> Structure:
    """The atoms a scene must hold to render ``spec`` (both parts; a render hides what it omits)."""
    return shown_structure(structure, spec.style, PARTS, spec.residues)


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


def placed_labels(shown: Structure, spec: RenderSpec, xyz: np.ndarray | None = None) -> list[dict]:
    """The labels of one render as ``layout_labels`` places them (box None: left out)."""
    if spec.labels is None:
        return []
    cam = spec.camera
    if xyz is None:
        xyz = posed_coords(shown, spec.matrices(shown)[0])
    pix, depth = cam.project(xyz)
    plan = spec.labels
    avoid = {"ligand": shown.ligand, "all": np.ones(shown.n_atoms, bool),
             "none": np.zeros(shown.n_atoms, bool)}[plan.avoid] & (depth > cam.clip[0])
    radii = atom_radii(shown, spec.style)[avoid] * cam.pixel_scale(depth[avoid])
    obstacles = np.column_stack([pix[avoid], radii, np.nonzero(avoid)[0]]) if avoid.any() else None
    return layout_labels(label_items(shown, plan), pix, depth > cam.clip[0], spec.style, cam.width, cam.height,
                         obstacles=obstacles, may_cover=set(plan.first))


def annotate(shown: Structure, spec: RenderSpec, mats: dict) -> dict:
    """The sidecar of one image: camera, every shown atom's projection and visibility, labels."""
    cam = spec.camera
    xyz = posed_coords(shown, mats)
    pix, depth = cam.project(xyz)
    radii = atom_radii(shown, spec.style)
    bond_r = spec.style["bond_radius"] if spec.style["representation"] != "spheres" else 0.0
    visible = visible_atoms(cam, xyz, radii, shown.bonds, bond_r)
    in_image = (depth > cam.clip[0]) & (pix[:, 0] >= 0) & (pix[:, 0] < cam.width) & \
        (pix[:, 1] >= 0) & (pix[:, 1] < cam.height)
    cam_xyz = cam.to_camera(xyz)
    atoms = []
    for i in range(shown.n_atoms):
        atoms.append({
            "chain": str(shown.chain[i]), "resseq": int(shown.resseq[i]), "icode": str(shown.icode[i]),
            "resname": str(shown.resname[i]), "name": str(shown.name[i]),
            "element": str(shown.element[i]), "ligand": bool(shown.ligand[i]),
            "camera_xyz": [round(float(x), 3) for x in cam_xyz[i]],
            "pixel": [round(float(pix[i, 0]), 2), round(float(pix[i, 1]), 2)],
            "depth": round(float(depth[i]), 3),
            "radius": round(float(radii[i]), 3),
            "visible": bool(visible[i] and in_image[i]),
        })
    labels, dropped = [], []
    if spec.labels is not None:
        for lab in placed_labels(shown, spec, xyz):
            entry = {"text": lab["text"], "kind": lab["kind"], "id": lab["id"], "atom": lab["atom"],
                     "box": lab["box"]}
            (labels if lab["box"] is not None else dropped).append(entry)
    return {
        "key": spec.key(),
        "width": cam.width, "height": cam.height,
        "camera": cam.as_dict(),
        "description": spec.description(),
        "atoms": atoms,
        "bonds": shown.bonds.tolist(),
        "labels": labels,
        "labels_left_out": dropped,
    }
