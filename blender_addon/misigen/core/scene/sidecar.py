"""One image's sidecar (``images/<key>.json``) as arrays: what ``validate`` re-derives answers from.

The sidecar lists every atom drawn with its identity, camera-frame position, pixel and depth,
and the camera's world→camera matrix; pure numpy, so task types can replay their answers on it.
"""
from __future__ import annotations

import numpy as np

from . import geometry


class Sidecar:
    """The parts of one image's sidecar that the checks use."""

    def __init__(self, meta: dict):
        self.meta = meta
        atoms = meta["atoms"]
        self.keys = [(a["chain"], int(a["resseq"]), a["icode"], a["resname"], a["name"], bool(a["ligand"]))
                     for a in atoms]
        self.cam = np.array([a["camera_xyz"] for a in atoms], float).reshape(-1, 3)
        self.ligand = np.array([bool(a["ligand"]) for a in atoms], bool)
        w2c = np.asarray(meta["camera"].get("world_to_camera", np.eye(4)), float)
        self.w2c, self.c2w = w2c, np.linalg.inv(w2c)
        self.world = geometry.apply(self.c2w, self.cam) if len(atoms) else self.cam
        centre = (meta.get("description") or {}).get("centre")
        self.centre = np.asarray(centre, float) if centre is not None else None
        self.ops = (meta.get("description") or {}).get("ops") or {}

    @property
    def depth(self) -> np.ndarray:
        """Each atom's distance along the view direction (Å), as the renderer recorded it."""
        return np.array([float(a["depth"]) for a in self.meta["atoms"]], float)

    def find(self, chain=None, resseq=None, icode=None, resname=None, name=None, ligand=None) -> list[int]:
        want = (chain, resseq, icode, resname, name, ligand)
        return [i for i, k in enumerate(self.keys)
                if all(w is None or (str(v).upper() == str(w).upper() if isinstance(w, str) else v == w)
                       for v, w in zip(k, want))]
