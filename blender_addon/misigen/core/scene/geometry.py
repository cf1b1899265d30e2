"""Rigid transforms of the models in the screen frame (numpy only)."""
from __future__ import annotations

import functools

import numpy as np

from ..op_grammar import Op
from ..data_files import load_table

AXIS_VECTORS = {"x": np.array([1.0, 0, 0]), "y": np.array([0, 1.0, 0]), "z": np.array([0, 0, 1.0])}


def rotation_matrix(axis: str, degrees: float) -> np.ndarray:
    """3×3 right-handed rotation about a screen axis."""
    a = np.deg2rad(degrees)
    c, s = np.cos(a), np.sin(a)
    if axis == "x":
        return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])
    if axis == "y":
        return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])
    if axis == "z":
        return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
    raise ValueError(f"unknown axis {axis!r}")


def translation(v) -> np.ndarray:
    m = np.eye(4)
    m[:3, 3] = v
    return m


def rotation_about(axis: str, degrees: float, centre) -> np.ndarray:
    """4×4 rotation about an axis through ``centre``."""
    m = np.eye(4)
    r = rotation_matrix(axis, degrees)
    m[:3, :3] = r
    m[:3, 3] = np.asarray(centre, float) - r @ np.asarray(centre, float)
    return m


def apply(matrix: np.ndarray, points: np.ndarray) -> np.ndarray:
    return points @ matrix[:3, :3].T + matrix[:3, 3]


@functools.lru_cache(maxsize=None)
def canonical_views() -> dict:
    return {name: [Op("roll", ax, float(a)) for ax, a in steps]
            for name, steps in load_table("views.yaml").items()}


def view_ops(name: str) -> list[Op]:
    try:
        return list(canonical_views()[name])
    except KeyError:
        raise ValueError(f"unknown view {name!r} (known: {', '.join(canonical_views())})") from None


def compose(ops, centre) -> tuple[np.ndarray, list[list[float]]]:
    """Matrix of applying ``ops`` in order to models whose centre of rotation is ``centre``.

    The centre moves with the models: ``roll`` turns about where the centre is *now*
    (after earlier moves), so a model always turns about its own centre. Returns the
    4×4 matrix and, per op, the centre it used (the record that answers carry).
    """
    m = np.eye(4)
    centres = []
    c0 = np.asarray(centre, dtype=float)
    for op in ops:
        current = apply(m, c0[None])[0]
        centres.append([round(float(x), 4) for x in current])
        if op.verb == "move":
            step = translation(AXIS_VECTORS[op.axis] * op.value)
        else:
            step = rotation_about(op.axis, op.value, current)
        m = step @ m
    return m, centres
