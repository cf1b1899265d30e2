"""The direct lighting model and depth cueing in numpy: what the atom material computes.

``lighting.model: direct`` is ChimeraX's default lighting (its ``lighting default``): a key and a
fill directional light plus ambient light, Phong specular from the key light only, no shadows and
no ambient occlusion, evaluated on the sRGB colour values as ChimeraX's OpenGL shader does. The
render material (``render/materials.py``) builds the same formula from shader nodes; tests compare
rendered pixels with ``shade_direct``. Depth cueing fades colours linearly toward the background
over the depth range ChimeraX uses: from the centre of the shown atoms' bounding box to its back.

Directions are in the camera frame (X right, Y up, Z toward the viewer) and point toward the light;
the camera never rotates (``core/scene/camera.py``), so the camera frame is the world frame too.
"""
from __future__ import annotations

import numpy as np

# ChimeraX pads the scene's bounding radius by this much when it sets its near and far planes.
NEAR_FAR_PAD = 0.01


def unit(v) -> np.ndarray:
    v = np.asarray(v, float)
    return v / np.linalg.norm(v)


def light_terms(lighting: dict) -> dict:
    """The scalar and vector constants of the direct model (ChimeraX's lighting × material)."""
    refl = lighting["reflectivity"]
    return {"key": unit(lighting["key_direction"]), "fill": unit(lighting["fill_direction"]),
            "ambient": float(lighting["ambient"]) * float(refl["ambient"]),
            "key_diffuse": float(lighting["key_strength"]) * float(refl["diffuse"]),
            "fill_diffuse": float(lighting["fill_strength"]) * float(refl["diffuse"]),
            "key_specular": float(lighting["key_strength"]) * float(refl["specular"]),
            "exponent": float(lighting["specular_exponent"])}


def shade_direct(colour, normal, to_eye, lighting: dict) -> np.ndarray:
    """sRGB colour of surface points lit by the direct model, before depth cueing and clipping.

    ``colour`` (N, 3) sRGB in 0..1, ``normal`` (N, 3) unit normals, ``to_eye`` (N, 3) unit vectors from
    the point toward the camera."""
    t = light_terms(lighting)
    n = np.asarray(normal, float)
    e = np.asarray(to_eye, float)
    key = np.maximum(n @ t["key"], 0.0)
    fill = np.maximum(n @ t["fill"], 0.0)
    reflected = 2.0 * (n @ t["key"])[:, None] * n - t["key"]     # the key light mirrored about the normal
    specular = np.maximum((reflected * e).sum(axis=1), 0.0) ** t["exponent"]
    diffuse = t["ambient"] + t["key_diffuse"] * key + t["fill_diffuse"] * fill
    return np.asarray(colour, float) * diffuse[:, None] + (t["key_specular"] * specular)[:, None]


def depth_cue_range(xyz_camera, radii, cue: dict) -> tuple[float, float] | None:
    """(start, end) of the depth-cue ramp, as distances in front of the camera, or None when off.

    ChimeraX's near and far planes enclose the bounding sphere of what is shown (the centre of its
    bounding box ± the box's half-diagonal, padded 1 %); the ramp runs between the ``start`` and
    ``end`` fractions of that span. Atoms count with their radii."""
    if not cue.get("enabled") or not len(xyz_camera):
        return None
    xyz = np.asarray(xyz_camera, float)
    r = np.asarray(radii, float)[:, None]
    lo, hi = (xyz - r).min(axis=0), (xyz + r).max(axis=0)
    centre_depth = -0.5 * float(lo[2] + hi[2])
    radius = (1.0 + NEAR_FAR_PAD) * 0.5 * float(np.linalg.norm(hi - lo))
    near, far = centre_depth - radius, centre_depth + radius
    return (round(near + (far - near) * float(cue["start"]), 4), round(near + (far - near) * float(cue["end"]), 4))


def depth_cue_factor(depth, ramp: tuple[float, float] | None) -> np.ndarray:
    """How much of its own colour a point at ``depth`` keeps (1 before the ramp, 0 at its end)."""
    depth = np.asarray(depth, float)
    if ramp is None:
        return np.ones_like(depth)
    start, end = ramp
    if end <= start:
        return (depth < end).astype(float)
    return np.clip((end - depth) / (end - start), 0.0, 1.0)
