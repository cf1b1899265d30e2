"""Difficulty features and levels on small synthetic sidecars (core/quality/difficulty.py)."""
from __future__ import annotations

import math

import pytest

from misigen.core.quality import difficulty as D
from misigen.core.quality.difficulty import LEVELS, _project, level_of
from misigen.core.tasks import REGISTRY

PART_OF = {"cloze": "translation", "choice": "rotation_rotation", "pocket_hbonds": "pocket_ligand_interaction"}


def difficulty_features(rec, cars):
    part = REGISTRY[PART_OF[rec["program"]["kind"]]].difficulty          # the task's own part, by program kind
    return D.difficulty_features(rec, cars, part)


def car(points, visible=None, labels=0, left=0, w=512, h=512):
    cam = {"projection": "perspective", "fov_deg": 30.0}
    sc = {"width": w, "height": h, "camera": cam}
    pts = [list(map(float, p)) for p in points]
    import numpy as np
    pix = _project(sc, np.array(pts))
    atoms = []
    for i, (p, (u, v)) in enumerate(zip(pts, pix)):
        atoms.append({"chain": "A", "resseq": 1, "icode": "", "resname": "GLY", "name": f"C{i}", "element": "C",
                      "ligand": i % 2 == 0, "camera_xyz": p, "pixel": [float(u), float(v)],
                      "visible": True if visible is None else visible[i]})
    return dict(sc, atoms=atoms, labels=[{"text": "x"}] * labels, labels_left_out=[{"text": "y"}] * left)


PTS = [(0, 0, -60), (3, 0, -60), (0, 3, -62), (-3, -1, -58)]


def rec(program, n_images=2, options=None):
    return {"images": [f"images/i{k}.png" for k in range(n_images)], "options": options, "program": program}


def test_cloze_gap_is_the_next_step_in_pixels():
    cars = {"images/i0.png": car(PTS), "images/i1.png": car(PTS)}
    p = {"kind": "cloze", "ops": [{"op": "move", "axis": "x", "value": 2.0}], "values": [-4, -2, 2, 4],
         "value_step": 1.0}
    f = difficulty_features(rec(p), cars)
    focal = 256 / math.tan(math.radians(15))
    assert f["option_gap_px"] == pytest.approx(focal / 60, rel=0.05)      # 1 Å at ~60 Å from the camera
    assert f["magnitude"] == 2.0 and f["magnitude_share"] == 0.5
    assert f["atoms_shown"] == 4


def test_option_gap_is_the_closest_pair_of_option_images():
    base = car(PTS)
    shifted = [(x + 1, y, z) for x, y, z in PTS]
    far = [(x + 5, y, z) for x, y, z in PTS]
    cars = {"images/i0.png": base, "images/i1.png": base, "images/o0.png": car(PTS), "images/o1.png": car(shifted),
            "images/o2.png": car(far)}
    p = {"kind": "choice", "ops": [{"op": "roll", "axis": "x", "value": 30.0}]}
    f = difficulty_features(rec(p, options=["images/o0.png", "images/o1.png", "images/o2.png"]), cars)
    one_a = 256 / math.tan(math.radians(15)) / 60
    assert f["option_gap_px"] == pytest.approx(one_a, rel=0.05)


def test_occlusion_counts_the_answer_atoms_per_view():
    hb = {"chain": "A", "resseq": 1, "icode": "", "protein_atom": "C1", "ligand_atom": "C0", "distance": 3.0,
          "donor": "protein", "criterion": "acceptor #6 amide O syn / donor l amide N-H"}
    p = {"kind": "pocket_hbonds", "interaction": "hbond", "hbonds": [hb]}
    cars = {"images/i0.png": car(PTS, visible=[True, False, True, True]),
            "images/i1.png": car(PTS, visible=[False, False, True, True])}
    f = difficulty_features(rec(p), cars)
    assert f["occlusion"] == [0.5, 1.0] and f["occlusion_max"] == 1.0 and f["occlusion_min"] == 0.5
    assert f["n_interactions"] == 1
    assert f["hbond_margin"] == pytest.approx(3.30 + 0.4 - 3.0)          # amide O: 3.30 Å relaxed by 0.4 Å


def test_label_density_and_left_out_share():
    cars = {"images/i0.png": car(PTS, labels=26, left=2), "images/i1.png": car(PTS, labels=26, left=0)}
    f = difficulty_features(rec({"kind": "cloze", "ops": [{"op": "roll", "axis": "z", "value": 15}]}), cars)
    assert f["label_density"] == pytest.approx(26 / (512 * 512 / 1e4), abs=1e-3)
    assert f["labels_left_out_share"] == pytest.approx(2 / 54, abs=1e-3)


TABLE = {"features": {"gap": {"harder": "lower", "medium": 10, "hard": 5},
                      "occ": {"harder": "higher", "medium": 0.3, "hard": 0.6}},
         "levels": {"medium": 0.6, "hard": 1.2}, "default": ["gap"]}


@pytest.mark.parametrize("gap,occ,level", [(20, 0.0, "easy"), (8, 0.0, "easy"), (8, 0.4, "medium"),
                                            (4, 0.4, "hard"), (4, 0.7, "hard"), (20, 0.7, "medium")])
def test_level_from_documented_thresholds(gap, occ, level):
    assert level_of({"gap": gap, "occ": occ}, ("gap", "occ"), TABLE) == level


def test_level_ignores_missing_features_and_uses_default():
    assert level_of({"gap": 4, "occ": None}, ("gap", "occ"), TABLE) == "hard"
    assert level_of({"gap": 30}, None, TABLE) == "easy"            # a task without its own list: the default
    assert level_of({}, None, TABLE) == "medium"
    assert set(LEVELS) == {"easy", "medium", "hard"}
