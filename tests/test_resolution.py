"""Resolution-independent planning: the same inputs and seed give the same task mix and
answer balance at 128², 256² and 512²; below the suite's smallest resolution generate refuses."""
from collections import Counter

import pytest

from misigen.core.structure.loader import discover, load_structure
from misigen.core.look.style import load_style
from misigen.core.tasks import load_suite, plan_samples

from test_tasks import SUITE
ROOT = SUITE.parent.parent

# Shared complexes whose x/y rotations came out as look-alikes at 128² when the threshold was 3 px
# (x4/y4/z16 against 8/8/8 at 512²).
NAMES = ["1acj", "1hvi", "3ems", "5ddr"]


@pytest.fixture(scope="module")
def shared(complexes):
    out = [load_structure(s) for s in discover([complexes / "pdb"]) if s.id in NAMES]
    assert len(out) == len(NAMES)
    return out


def _plan(structures, task, size):
    style = load_style("misi_bench", {"render": {"resolution": [size, size]}})
    samples, fails = [], []
    for s in structures:
        got, bad = plan_samples(task, s, style, "train", 0)
        samples += got
        fails += bad
    return samples, fails


@pytest.mark.slow      # takes long
def test_rotation_axes_same_at_128_and_512(shared):
    rotation = next(t for t in load_suite(SUITE).tasks if t.name == "rotation")
    small, small_fails = _plan(shared, rotation, 128)
    large, large_fails = _plan(shared, rotation, 512)
    axes = {size: Counter(x.program["ops"][0]["axis"] for x in got) for size, got in ((128, small), (512, large))}
    assert sum(axes[512].values()) == len(NAMES) * rotation.samples("train")
    for axis in "xyz":
        assert abs(axes[128][axis] - axes[512][axis]) <= 1, axes
    # Not just the counts: the looks-alike checks decide alike, so the answers are the same.
    assert [x.answer for x in small] == [x.answer for x in large]
    assert len(small_fails) == len(large_fails)


def test_pixel_threshold_of_an_old_spec_names_its_replacement(tmp_path):
    from misigen.core.errors import InputError
    from test_tasks import _copy_specs
    d = _copy_specs(tmp_path)
    p = d / "rotation.yaml"
    p.write_text(p.read_text().replace("min_view_change: 0.012", "min_view_change_px: 3.0"))
    with pytest.raises(InputError) as exc:
        load_suite(d / "misi_bench.yaml")
    msg = str(exc.value)
    assert "rotation.yaml" in msg and "min_view_change_px: renamed" in msg and "fraction of the image width" in msg


# ------------------------------------------------------------------ refusals and exit codes
@pytest.mark.slow      # runs run_blender.py in a subprocess
def test_below_the_suite_min_resolution_is_one_line_before_work(cli, examples, tmp_path):
    """64² is one line naming min_resolution, exit 2, nothing written (rather than a run that rejects
    translation, rotation, both composites and docking sample by sample)."""
    out = tmp_path / "o"
    res = cli("generate", "--structures", examples / "1hvi.pdb", "--out", out, "--plan-only", "--resolution", "64", "64",
              "--no-progress")
    lines = [l for l in res.stderr.splitlines() if l.strip()]
    assert res.returncode == 2 and len(lines) == 1, res.stderr
    assert "64x64" in lines[0] and "min_resolution" in lines[0] and "128" in lines[0]
    assert not out.exists()


def _manifest(failures, by_category, asked, rejected, audit_ok=None, budget=0.05):
    m = {"counts": {"failures": failures, "failures_by_category": by_category, "samples_asked_by_task": asked,
                    "rejected_by_task": rejected}, "inputs_not_used": [], "rejection_budget": budget}
    if audit_ok is not None:
        m["audit"] = {"ok": audit_ok}
    return m


def test_rejections_within_the_budget_exit_0():
    from misigen.pipeline.exit_codes import EXIT_AUDIT, EXIT_OK, EXIT_PARTIAL, dataset_exit_code
    # a large healthy run: 5 of 600 rotation samples rejected (0.8 %), 2 unavailable
    assert dataset_exit_code(_manifest(7, {"rejected": 5, "unavailable": 2}, {"rotation": 600},
                                       {"rotation": 5})) == EXIT_OK
    # over the budget in one task: exit 3
    assert dataset_exit_code(_manifest(7, {"rejected": 7}, {"rotation": 600, "docking": 60},
                                       {"rotation": 2, "docking": 5})) == EXIT_PARTIAL
    # a failed structure always counts
    assert dataset_exit_code(_manifest(6, {"rejected": 5, "input": 1}, {"rotation": 600},
                                       {"rotation": 5})) == EXIT_PARTIAL
    # budget 0: every rejection counts (the behaviour before)
    assert dataset_exit_code(_manifest(5, {"rejected": 5}, {"rotation": 600}, {"rotation": 5}, budget=0.0)) \
        == EXIT_PARTIAL
    # a failed audit is exit 4, before 3
    assert dataset_exit_code(_manifest(0, {}, {"rotation": 6}, {}, audit_ok=False)) == EXIT_AUDIT
    assert dataset_exit_code(_manifest(1, {"input": 1}, {"rotation": 6}, {}, audit_ok=False)) == EXIT_AUDIT
    assert dataset_exit_code(_manifest(0, {}, {"rotation": 6}, {}, audit_ok=True)) == EXIT_OK


@pytest.mark.slow      # runs run_blender.py in a subprocess
def test_a_failed_audit_exits_4(cli, examples, tmp_path):
    """A planted shortcut fails the audit and generate exits 4: the example plugin task with its
    answer letter fixed to A, so "always A" beats the chance of 1/2 of its two options."""
    import shutil
    task = tmp_path / "planted"
    shutil.copytree(ROOT / "examples" / "custom_task", task)
    code = (task / "nearer_atom.py").read_text()
    balanced = 'self.letters = balanced_order(["A", "B"], self.srng)'
    assert balanced in code
    (task / "nearer_atom.py").write_text(code.replace(balanced, 'self.letters = ["A"]'))
    spec = (task / "nearer_atom.yaml").read_text()
    assert "samples: {train: 2, test: 2}" in spec
    (task / "nearer_atom.yaml").write_text(spec.replace("samples: {train: 2, test: 2}", "samples: {train: 2, test: 12}"))
    res = cli("generate", "--structures", examples / "1hvi.pdb", examples / "wagner_brd4", "--suite", task / "suite.yaml",
              "--out", tmp_path / "o", "--split", "test", "--plan-only", "--resolution", "128", "128", "--no-progress")
    assert res.returncode == 4, res.stderr
    assert "audit: FAIL" in res.stdout + res.stderr and "(exit 4)" in res.stderr
    # merge rebuilds the folder's files: the audit it had judged the records before (one shard's, in
    # an array job) and is not carried into the merged manifest, nor into merge's exit code
    res = cli("merge", tmp_path / "o")
    assert res.returncode in (0, 3), res.stderr
    import json
    assert "audit" not in json.loads((tmp_path / "o" / "manifest.json").read_text())
