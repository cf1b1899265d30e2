"""T8 (interaction location) keeps the samples a complex can support: a question whose unused H-bonds
are all unanswerable in the start pose (on an image axis, an atom hidden in every view sharing an
axis) is asked in another of the spec's start poses instead of being rejected. Pure core, no Blender;
real PoseBusters complexes beside the shared complexes (skipped when absent)."""
import copy
import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from conftest import COMPLEXES
from misigen.core.op_grammar import parse_ops
from misigen.core.scene import geometry
from misigen.core.scene.scene_plan import shown_structure
from misigen.core.tasks import load_suite, plan_samples, split_for
from misigen.core.tasks import common
from misigen.core.tasks.common import spec_coords

ROOT = Path(__file__).resolve().parents[1]
SEED = 11
POSEBUSTERS = COMPLEXES.parent / "posebusters" if COMPLEXES is not None else None
# complex: (why its one question beyond the start pose was rejected, the samples it supports)
LOSERS = {"7BNH_BEZ": ("on an image axis", 1), "7AA0_R6B": ("an atom is hidden", 2)}


@pytest.fixture(scope="module")
def task():
    return {t.name: t for t in load_suite(ROOT / "task_specs" / "misi_bench.yaml").tasks}["interaction_location"]


def load(sid):
    from misigen.core.structure.loader import discover, load_structure
    folder = POSEBUSTERS / sid if POSEBUSTERS is not None else None
    if folder is None or not folder.is_dir():
        pytest.skip(f"PoseBusters complex {sid} not found beside the shared complexes")
    return load_structure(discover([folder])[0])


def without_other_poses(task):
    data = copy.deepcopy(task.data)
    data["rejection"]["other_poses"] = []
    return replace(task, data=data)


def records(samples):
    return [json.dumps(s.as_record(), sort_keys=True) for s in samples]


@pytest.mark.parametrize("sid", sorted(LOSERS))
def test_a_rejected_question_is_asked_in_another_pose(sid, task, style):
    s = load(sid)
    split = split_for(sid, SEED, task.settings.test_fraction)
    why, supported = LOSERS[sid]
    before, lost = plan_samples(without_other_poses(task), s, style, split, SEED)
    rejected = [f for f in lost if f["category"] == "rejected"]
    assert len(before) + len(rejected) == supported and rejected and why in rejected[0]["why"]

    after, failures = plan_samples(task, s, style, split, SEED)
    assert len(after) == supported and not [f for f in failures if f["category"] == "rejected"]
    assert records(after) == records(plan_samples(task, s, style, split, SEED)[0])     # deterministic
    kept = {b.id: b for b in before}
    for sample in after:
        if sample.id in kept:                  # answerable in the start pose: unchanged
            assert records([sample]) == records([kept[sample.id]])
            continue
        pose = sample.images[0].ops["all"]
        assert pose and all(spec.ops["all"][:len(pose)] == pose for spec in sample.images)
        # the answer's moves bring the H-bond's centre to the centre of the posed front view, and no
        # move is 0
        front = sample.images[0]
        shown = shown_structure(s, front.style, front.parts, front.residues)
        xyz = spec_coords(shown, front)
        hb = sample.program["hbond"]
        rows = common.context_for(s, style).row_map(shown)
        mid = (xyz[rows[hb["protein_index"]]] + xyz[rows[hb["ligand_index"]]]) / 2
        ops = parse_ops(sample.options["ABCD".index(sample.answer)])
        assert all(op.value != 0 for op in ops)
        m, _ = geometry.compose(ops, np.zeros(3))
        end = front.camera.to_camera(geometry.apply(m, mid[None]))[0]
        assert np.abs(end[:2]).max() <= task.data["precision"] / 2 + 1e-9
