"""Are the labels tied to their atoms? Checks over the sidecars of planned questions (no rendering).

For every image of every question a suite plans on the given complexes, at each resolution:

- ``shared_end``: two leader lines end on the same atom's disc;
- ``crossing``: two leader lines cross;
- ``close``: two leader lines run closer than ``--close`` px (away from where they start and end);
- ``off_disc``: a leader ends outside its own atom's drawn disc, or on an atom that is hidden;
- ``covers_contact``: a label's box lies over a visible polar atom of the pocket's contacts (N, O, S within
  4 Å of an atom of the other side, protein or ligand), other than the label's own atom.

Prints one line per resolution with the number of images, labels, leaders and each count; exit 1 when
any count is above zero and ``--strict`` is given.

    .venv/bin/python benchmarks/label_checks.py --structures ../shared/data/posebusters --first 20
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "blender_addon"))

from misigen.core.look.style import load_style  # noqa: E402
from misigen.core.rationale.sidecars import sample_sidecars  # noqa: E402
from misigen.core.structure.loader import discover, load_structure  # noqa: E402
from misigen.core.tasks import load_suite, plan_samples  # noqa: E402

POLAR = {"N", "O", "S"}
CONTACT = 4.0          # Å between a polar atom and any atom of the other side


def disc_px(car: dict, atom: dict) -> float:
    fov = math.radians(car["camera"].get("fov_deg", 30.0))
    if car["camera"]["projection"] != "perspective":
        return atom["radius"] * car["width"] / car["camera"]["ortho_scale"]
    return atom["radius"] * car["width"] / (2 * atom["depth"] * math.tan(fov / 2))


def _seg_dist(p, q, r, s) -> float:
    """Least distance between segments pq and rs (0 when they cross)."""
    p, q, r, s = map(np.asarray, (p, q, r, s))
    if _crosses(p, q, r, s):
        return 0.0
    return min(_pt_seg(p, r, s), _pt_seg(q, r, s), _pt_seg(r, p, q), _pt_seg(s, p, q))


def _pt_seg(x, a, b) -> float:
    ab = b - a
    t = 0.0 if not ab.any() else float(np.clip(np.dot(x - a, ab) / np.dot(ab, ab), 0, 1))
    return float(np.linalg.norm(x - (a + t * ab)))


def _crosses(p, q, r, s) -> bool:
    def orient(a, b, c):
        return np.sign((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]))
    return orient(p, q, r) * orient(p, q, s) < 0 and orient(r, s, p) * orient(r, s, q) < 0


def contact_polar(car: dict) -> set:
    """Rows of the polar atoms within ``CONTACT`` Å of an atom of the other side (camera frame)."""
    xyz = np.array([a["camera_xyz"] for a in car["atoms"]], float)
    lig = np.array([a["ligand"] for a in car["atoms"]], bool)
    if not lig.any() or lig.all():
        return set()
    d = np.sqrt(((xyz[:, None] - xyz[None]) ** 2).sum(-1))
    other = lig[:, None] != lig[None]
    near = (np.where(other, d, np.inf) <= CONTACT).any(axis=1)
    return {i for i, a in enumerate(car["atoms"]) if near[i] and a["element"] in POLAR and a["visible"]}


def check_image(car: dict, close_px: float) -> dict:
    out = dict.fromkeys(("labels", "leaders", "shared_end", "crossing", "close", "off_disc", "covers_contact"), 0)
    labels = car["labels"]
    out["labels"] = len(labels)
    atoms = car["atoms"]
    pix = np.array([a["pixel"] for a in atoms], float) if atoms else np.zeros((0, 2))
    radii = np.array([disc_px(car, a) for a in atoms]) if atoms else np.zeros(0)
    visible = np.array([a["visible"] for a in atoms], bool) if atoms else np.zeros(0, bool)
    leaders = [(lab, lab["leader"]) for lab in labels if lab.get("leader")]
    out["leaders"] = len(leaders)
    ends = []
    for lab, ((a, b), (c, d)) in leaders:
        i = lab["atom"]
        if i is None or not visible[i] or math.dist((c, d), pix[i]) > radii[i] + 0.5:
            out["off_disc"] += 1
        # the atom whose disc (front-most first) the leader ends on
        on = [j for j in np.nonzero(np.hypot(*(pix - (c, d)).T) <= radii + 0.5)[0] if visible[j]]
        ends.append(min(on, key=lambda j: atoms[j]["depth"]) if on else None)
    for x in range(len(leaders)):
        for y in range(x + 1, len(leaders)):
            if ends[x] is not None and ends[x] == ends[y]:
                out["shared_end"] += 1
            (p, q), (r, s) = leaders[x][1], leaders[y][1]
            if _crosses(np.asarray(p), np.asarray(q), np.asarray(r), np.asarray(s)):
                out["crossing"] += 1
            elif _seg_dist(p, q, r, s) < close_px:
                out["close"] += 1
    polar = contact_polar(car)
    for lab in labels:
        u0, v0, u1, v1 = lab["box"]
        for i in polar:
            if i != lab["atom"] and u0 <= pix[i][0] <= u1 and v0 <= pix[i][1] <= v1:
                out["covers_contact"] += 1
    return out


def run(paths, suite: Path, sizes, first: int, split: str, close_px: float) -> dict:
    tasks = load_suite(suite).tasks
    totals = {}
    for size in sizes:
        style = load_style("misi_bench", {"render": {"resolution": [size, size]}})
        seen, tot = set(), {"images": 0}
        for src in discover(paths)[:first]:
            s = load_structure(src)
            for task in tasks:
                samples, _ = plan_samples(task, s, style, split, 11, None)
                for smp in samples:
                    for key, car in sample_sidecars(smp, {s.id: s}).items():
                        if car["key"] in seen:
                            continue
                        seen.add(car["key"])
                        tot["images"] += 1
                        for k, v in check_image(car, close_px).items():
                            tot[k] = tot.get(k, 0) + v
        totals[size] = tot
    return totals


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--structures", nargs="+", default=[str(ROOT.parent / "shared" / "data" / "posebusters")])
    ap.add_argument("--suite", default=str(ROOT / "task_specs" / "misi_bench.yaml"))
    ap.add_argument("--sizes", nargs="+", type=int, default=[256, 512])
    ap.add_argument("--first", type=int, default=20, help="the first N complexes (sorted)")
    ap.add_argument("--split", default="test")
    ap.add_argument("--close", type=float, default=3.0, help="px: leaders closer than this count as close")
    ap.add_argument("--strict", action="store_true")
    a = ap.parse_args(argv)
    totals = run(a.structures, Path(a.suite), a.sizes, a.first, a.split, a.close)
    bad = 0
    for size, tot in totals.items():
        print(f"{size}²: " + ", ".join(f"{k} {v}" for k, v in tot.items()))
        bad += sum(tot.get(k, 0) for k in ("shared_end", "crossing", "close", "off_disc", "covers_contact"))
    return 1 if a.strict and bad else 0


if __name__ == "__main__":
    sys.exit(main())
