"""The pinhole / orthographic camera model shared by annotations and the Blender camera.

The camera never rotates: it looks down −Z of the screen frame (X right, Y up), so
its world-to-camera matrix is a pure translation and Blender's camera object keeps a
zero rotation. Pixel coordinates are continuous with origin at the image's top-left
corner; pixel (i, j) covers u ∈ [i, i+1), v ∈ [j, j+1).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np


@dataclass(frozen=True)
class Camera:
    position: tuple            # camera centre in the world (screen) frame, Å
    width: int
    height: int
    projection: str = "perspective"   # or "orthographic"
    fov_deg: float = 30.0      # horizontal field of view (perspective)
    ortho_scale: float = 40.0  # visible width in Å (orthographic)
    clip: tuple = (0.1, 1000.0)

    @property
    def aspect(self) -> float:
        return self.height / self.width

    def world_to_camera(self) -> np.ndarray:
        m = np.eye(4)
        m[:3, 3] = -np.asarray(self.position, float)
        return m

    def to_camera(self, points: np.ndarray) -> np.ndarray:
        return np.asarray(points, float) - np.asarray(self.position, float)

    def half_extent(self, depth: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Half the visible width/height (Å) at a distance ``depth`` in front of the camera."""
        if self.projection == "perspective":
            hw = depth * math.tan(math.radians(self.fov_deg) / 2)
        else:
            hw = np.full_like(np.asarray(depth, float), self.ortho_scale / 2)
        return hw, hw * self.aspect

    def project(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """World points → (pixels (N, 2) as [u, v], depth (N,) along the view direction)."""
        cam = self.to_camera(points)
        depth = -cam[:, 2]
        hw, hh = self.half_extent(depth)
        with np.errstate(divide="ignore", invalid="ignore"):
            x_ndc = cam[:, 0] / hw
            y_ndc = cam[:, 1] / hh
        u = (x_ndc + 1.0) * 0.5 * self.width
        v = (1.0 - y_ndc) * 0.5 * self.height
        return np.stack([u, v], axis=1), depth

    def pixel_scale(self, depth) -> np.ndarray:
        """Pixels per Å at ``depth`` (for sphere radii on screen)."""
        hw, _ = self.half_extent(np.asarray(depth, float))
        return self.width / (2 * hw)

    def ray_origins(self, points: np.ndarray) -> np.ndarray:
        """Where the eye ray through each point starts (the camera centre, or the image plane)."""
        if self.projection == "perspective":
            return np.broadcast_to(np.asarray(self.position, float), points.shape)
        origins = np.array(points, float)
        origins[:, 2] = self.position[2]
        return origins

    def as_dict(self) -> dict:
        """The camera as the sidecar and the render key record it (a fresh dict each call; made once)."""
        d = self.__dict__.get("_as_dict")
        if d is None:
            d = self._make_dict()
            object.__setattr__(self, "_as_dict", d)      # frozen: every field is fixed, so is this
        return {**d, "position": list(d["position"]), "world_to_camera": [list(r) for r in d["world_to_camera"]],
                "clip": list(d["clip"])}

    def _make_dict(self) -> dict:
        d = {"projection": self.projection, "width": self.width, "height": self.height,
             "position": [round(float(x), 4) for x in self.position],
             "world_to_camera": [[round(float(x), 4) for x in row] for row in self.world_to_camera()],
             "clip": [float(self.clip[0]), float(self.clip[1])]}
        if self.projection == "perspective":
            d["fov_deg"] = float(self.fov_deg)
        else:
            d["ortho_scale"] = round(float(self.ortho_scale), 4)
        return d


def frame_points(points: np.ndarray, radii: np.ndarray, width: int, height: int,
                 projection: str = "perspective", fov_deg: float = 30.0,
                 margin: float = 0.08) -> Camera:
    """The camera that shows every sphere (point + radius) with ``margin`` (fraction of half-width).

    Solved from the points ("view all"): the camera is centred on the XY bounding box and
    moved back just far enough that the outermost sphere is inside the margin.
    """
    points = np.asarray(points, float).reshape(-1, 3)
    radii = np.broadcast_to(np.asarray(radii, float), (len(points),))
    lo = (points[:, :2] - radii[:, None]).min(axis=0)
    hi = (points[:, :2] + radii[:, None]).max(axis=0)
    cx, cy = (lo + hi) / 2
    aspect = height / width
    fill = 1.0 - margin
    if projection == "perspective":
        t = math.tan(math.radians(fov_deg) / 2) * fill
        need_x = points[:, 2] + (np.abs(points[:, 0] - cx) + radii) / t
        need_y = points[:, 2] + (np.abs(points[:, 1] - cy) + radii) / (t * aspect)
        z = float(max(need_x.max(), need_y.max(), (points[:, 2] + radii).max() + 1.0))
        extent = float(max(np.abs(points - [cx, cy, z]).max(), 1.0))
        return Camera((float(cx), float(cy), z), width, height, "perspective", fov_deg,
                      clip=(0.1, round(2 * extent + 100.0, 1)))
    half_w = max((hi[0] - lo[0]) / 2, (hi[1] - lo[1]) / 2 / aspect) / fill
    z = float((points[:, 2] + radii).max() + 50.0)
    extent = float(np.abs(points[:, 2] - z).max())
    return Camera((float(cx), float(cy), z), width, height, "orthographic",
                  ortho_scale=float(2 * half_w), clip=(0.1, round(extent + 100.0, 1)))


def fit_camera(points: np.ndarray, radii: np.ndarray, style: dict) -> Camera:
    """"View all" (as ChimeraX's ``view``): the camera looking down −Z, centred on what it shows
    and set back until the spheres' bounding box fills the frame less the style's margin.
    Perspective is refined a few times (near atoms look bigger, so the first solve is off).
    Position and scale are rounded (4 decimals) so records do not depend on float noise."""
    w, h = (int(x) for x in style["render"]["resolution"])
    cfg = style["camera"]
    fill = 1.0 - float(cfg["margin"])
    points = np.asarray(points, float)
    radii = np.broadcast_to(np.asarray(radii, float), (len(points),))
    cam = frame_points(points, radii, w, h, cfg["projection"], float(cfg["fov_deg"]), float(cfg["margin"]))
    if cam.projection == "perspective":
        for _ in range(6):
            pix, depth = cam.project(points)
            r = radii * cam.pixel_scale(depth)
            u0, u1 = (pix[:, 0] - r).min(), (pix[:, 0] + r).max()
            v0, v1 = (pix[:, 1] - r).min(), (pix[:, 1] + r).max()
            span = max((u1 - u0) / w, (v1 - v0) / h)
            ref = float(np.median(depth))
            scale = float(cam.pixel_scale(np.array([ref]))[0])
            dx, dy = ((u0 + u1) / 2 - w / 2) / scale, -((v0 + v1) / 2 - h / 2) / scale
            dz = ref * (span / fill - 1.0)
            x, y, z = cam.position
            cam = replace(cam, position=(x + dx, y + dy, z + dz))
            if abs(span / fill - 1.0) < 1e-3 and abs(dx) + abs(dy) < 1e-3:
                break
        far = float(cam.position[2] - (points[:, 2] - radii).min())
        cam = replace(cam, clip=(0.1, round(far + 10.0, 1)))
    return replace(cam, position=tuple((round(float(x), 4) for x in cam.position)), ortho_scale=round(float(cam.ortho_scale), 4))


def visible_atoms(camera: Camera, centres: np.ndarray, radii: np.ndarray,
                  bonds: np.ndarray | None = None, bond_radius: float = 0.0,
                  tolerance: float = 0.05) -> np.ndarray:
    """Which atoms have their camera-facing point unhidden by other spheres (and bond cylinders).

    The test point is the sphere's point nearest the eye; it is hidden if the ray from the
    eye to it passes through another atom's sphere (shrunk by ``tolerance`` Å) or a bond
    cylinder not touching the atom itself (sampled as small spheres along the bond axis).

    Only blockers whose image can overlap an atom's are tested exactly: each atom meets the
    blockers within a conservative bound of it on the screen, so the cost grows with the
    crowding of the picture, not with atoms × blockers.
    """
    centres = np.asarray(centres, float)
    n = len(centres)
    radii = np.broadcast_to(np.asarray(radii, float), (n,))
    visible = np.ones(n, dtype=bool)
    if n == 0:
        return visible
    origins = camera.ray_origins(centres)
    to_atom = centres - origins
    dist = np.linalg.norm(to_atom, axis=1)
    direction = to_atom / dist[:, None]
    target = dist - radii                 # distance along the ray to the test point
    r_atom = np.maximum(radii - tolerance, 0)
    blocked = _tiled(camera, centres, r_atom, centres,
                     lambda i, j: _sphere_hits(centres, r_atom, origins, direction, target, i, j))
    visible &= ~blocked
    if bonds is not None and len(bonds) and bond_radius > 0:
        bonds = np.asarray(bonds)
        a, b = centres[bonds[:, 0]], centres[bonds[:, 1]]
        ts = np.linspace(0.25, 0.75, 5)
        samples = (a[:, None, :] * (1 - ts)[None, :, None] + b[:, None, :] * ts[None, :, None]).reshape(-1, 3)
        owner = np.repeat(bonds, len(ts), axis=0)
        r_bond = np.full(len(samples), max(bond_radius - tolerance, 0.0))
        r2 = (bond_radius - tolerance) ** 2

        def bond_hits(i, j):
            rel = samples[j] - origins[i]
            along = np.einsum("pj,pj->p", rel, direction[i])
            perp2 = (rel ** 2).sum(-1) - along ** 2
            return (perp2 < r2) & (along > 0) & (along < target[i]) & (owner[j, 0] != i) & (owner[j, 1] != i)

        todo = np.nonzero(visible)[0]
        hidden = _tiled(camera, centres[todo], r_bond, samples, bond_hits, atom_index=todo)
        visible[todo[hidden]] = False
    return visible


def _sphere_hits(centres, r, origins, direction, target, i, j) -> np.ndarray:
    """Whether sphere j hides the test point of atom i, pair by pair (``i``, ``j``: rows of equal length)."""
    rel = centres[j] - origins[i]
    along = np.einsum("pj,pj->p", rel, direction[i])                   # projection of the other on the ray
    perp2 = (rel ** 2).sum(-1) - along ** 2
    rj = r[j]
    return (perp2 < rj ** 2) & (along - np.sqrt(np.maximum(rj ** 2 - perp2, 0)) < target[i]) & (along > 0) & (j != i)


def _screen_coords(camera: Camera, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Tangent-plane coordinates (perspective: x/−z, y/−z; orthographic: x, y) and the
    camera-frame points (the camera looks down −Z without rotating)."""
    cam = np.asarray(points, float) - np.asarray(camera.position, float)
    if camera.projection != "perspective":
        return cam[:, :2].copy(), cam
    depth = np.maximum(-cam[:, 2], 1e-9)
    return cam[:, :2] / depth[:, None], cam


def _tiled(camera: Camera, atoms: np.ndarray, blocker_r: np.ndarray, blockers: np.ndarray, hits,
           atom_index: np.ndarray | None = None) -> np.ndarray:
    """Blocked mask of ``atoms``: hits(atom rows, blocker rows) → whether each pair blocks, evaluated
    only for pairs whose screen images can overlap."""
    k = len(atoms)
    out = np.zeros(k, dtype=bool)
    if k == 0 or len(blockers) == 0:
        return out
    rows = np.arange(k) if atom_index is None else np.asarray(atom_index)
    qa, _ = _screen_coords(camera, atoms)
    qb, cam_b = _screen_coords(camera, blockers)
    if camera.projection == "perspective":
        dist = np.linalg.norm(cam_b, axis=1)
        inside = (dist <= blocker_r) | (-cam_b[:, 2] <= blocker_r)   # the eye in or beside a blocker
        alpha = np.arcsin(np.clip(blocker_r / np.maximum(dist, 1e-9), 0.0, 1.0))
        theta = np.arctan(np.sqrt(max(float((qa ** 2).sum(1).max()), float((qb ** 2).sum(1).max()))))
        stretch = 1.0 / math.cos(min(theta + float(alpha.max()), math.radians(89.0))) ** 2
        reach = np.where(inside, np.inf, alpha * stretch * 1.01 + 1e-9)
    else:
        reach = blocker_r * 1.01 + 1e-9
    # The pairs to test: the atom within the blocker's reach on both screen axes. Blockers sorted
    # along u give each atom its strip of candidates; the eye inside a blocker meets every atom.
    finite = np.isfinite(reach)
    pairs = []
    if finite.any():
        fb = np.nonzero(finite)[0]
        fb = fb[np.argsort(qb[fb, 0], kind="stable")]
        u, widest = qb[fb, 0], float(reach[fb].max()) * (1 + 1e-9) + 1e-12
        start = np.searchsorted(u, qa[:, 0] - widest, side="left")
        count = np.searchsorted(u, qa[:, 0] + widest, side="right") - start
        a = np.repeat(np.arange(k), count)
        b = fb[np.repeat(start - (np.cumsum(count) - count), count) + np.arange(len(a))]
        pairs.append((a, b))
    if not finite.all():
        nb = np.nonzero(~finite)[0]
        pairs.append((np.repeat(np.arange(k), len(nb)), np.tile(nb, k)))
    for a, b in pairs:
        r = reach[b]
        close = (np.abs(qa[a, 0] - qb[b, 0]) <= r) & (np.abs(qa[a, 1] - qb[b, 1]) <= r)
        a, b = a[close], b[close]
        if len(a):
            out[a[hits(rows[a], b)]] = True
    return out
