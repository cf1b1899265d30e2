"""Every label is tied to its atom, on the sidecars of real whole-protein complexes at the sizes users
use: no two leaders end on one atom's disc, cross or run side by side; a leader ends on its own atom,
seen; no label covers a polar atom of the pocket's contacts. ``benchmarks/label_checks.py`` runs the
same checks over as much of the corpus as asked."""
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
import label_checks  # noqa: E402

PROBLEMS = ("shared_end", "crossing", "close", "off_disc", "covers_contact")


@pytest.fixture(scope="module")
def posebusters(complexes):
    folder = complexes.parent / "posebusters"
    if not folder.is_dir():
        pytest.skip("shared/data/posebusters not found")
    return folder


@pytest.mark.slow      # plans every task on two whole proteins at two sizes
def test_labels_are_tied_to_their_atoms_on_real_complexes(posebusters):
    picked = [str(posebusters / n) for n in ("5S8I_2LY", "7AVI_S2Q")]
    for suite in ("misi_bench", "misi_plus"):
        totals = label_checks.run(picked, ROOT / "task_specs" / f"{suite}.yaml", (256, 512), 2, "test", 3.0)
        for size, tot in totals.items():
            assert tot["images"] > 50 and tot["leaders"] > 20, (suite, size, tot)
            assert {k: tot[k] for k in PROBLEMS} == dict.fromkeys(PROBLEMS, 0), (suite, size, tot)


def test_the_checks_catch_what_they_look_for():
    """A planted sidecar breaks each rule once."""
    def atom(u, v, depth, element="C", ligand=False, visible=True, xyz=(0, 0, 0)):
        return {"pixel": [u, v], "depth": depth, "radius": 0.5, "element": element, "ligand": ligand,
                "visible": visible, "camera_xyz": list(xyz)}
    car = {"width": 512, "height": 512, "camera": {"projection": "perspective", "fov_deg": 30.0},
           "atoms": [atom(100, 100, 50), atom(103, 100, 40), atom(300, 300, 50, visible=False),
                     atom(200, 200, 50, "O", False, True, (0, 0, -50)), atom(210, 200, 50, "C", True, True, (3, 0, -50))],
           "labels": [{"atom": 0, "box": [10, 10, 30, 20], "leader": [[30, 20], [101, 100]]},
                      {"atom": 1, "box": [150, 10, 170, 20], "leader": [[150, 20], [95, 100]]},
                      {"atom": 2, "box": [310, 310, 330, 320], "leader": [[310, 310], [300, 300]]},
                      {"atom": 4, "box": [195, 195, 205, 205], "leader": None}]}
    got = label_checks.check_image(car, 3.0)
    assert got["shared_end"] == 1 and got["crossing"] == 1 and got["off_disc"] == 1 and got["covers_contact"] == 1
