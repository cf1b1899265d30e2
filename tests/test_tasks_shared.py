"""Task planners on real shared complexes: every answer replays, ids and splits are stable."""
import json

import numpy as np
import pytest

from misigen.core.scene import geometry
from misigen.core.op_grammar import parse_ops
from misigen.core.structure.loader import discover, load_structure
from misigen.core.scene.scene_plan import shown_structure
from misigen.core.tasks import PartnerCatalog, load_suite, plan_samples, split_for
from misigen.core.tasks.answers import parse_pocket_hbonds
from misigen.core.tasks.common import spec_coords

from test_tasks import SUITE

pytestmark = pytest.mark.slow      # plans every task on the shared real complexes (takes long)

NAMES = ["brd41_ASH106", "3shy"]


@pytest.fixture(scope="module")
def real(complexes):
    out = []
    for src in discover([complexes / "paired", complexes / "pdb"]):
        if src.id in NAMES:
            out.append(load_structure(src))
    assert len(out) == len(NAMES)
    return out


def test_every_task_plans_and_replays_on_real_complexes(real, style):
    tasks = load_suite(SUITE).tasks
    by_id = {s.id: s for s in real}
    for s in real:
        split = split_for(s.id, 0)
        partners = PartnerCatalog({k: split for k in by_id}, lambda i: by_id[i])
        for t in tasks:
            samples, fails = plan_samples(t, s, style, split, 0, partners)
            assert len(samples) + len(fails) == t.samples(split)
            for x in samples:
                assert x.split == split and x.structure == s.id
                if t.name in ("translation", "rotation", "zooming"):
                    op = parse_ops(x.answer)[0]
                    sh = shown_structure(s, style)
                    a, b = spec_coords(sh, x.images[0]), spec_coords(sh, x.images[-1])
                    c = np.array(x.program["centre"])
                    if op.verb == "move":
                        v = np.zeros(3)
                        v["xyz".index(op.axis)] = op.value
                        assert np.allclose(b - a, v)
                    else:
                        assert np.allclose(b, (a - c) @ geometry.rotation_matrix(op.axis, op.value).T + c)
                if t.name == "docking":
                    assert x.program["replay_error"] < 1e-6
                if t.name == "pocket_ligand_interaction":
                    assert len(parse_pocket_hbonds(x.answer)) == x.program["n_hbonds"]
                if x.options is not None:
                    assert len(x.options) == 4 and x.answer in "ABCD"
            for f in fails:
                assert set(f) == {"structure", "task", "sample", "why", "category"} and f["why"]
        again = [json.dumps(x.as_record(), sort_keys=True)
                 for t in tasks for x in plan_samples(t, s, style, split, 0, partners)[0]]
        first = [json.dumps(x.as_record(), sort_keys=True)
                 for t in tasks for x in plan_samples(t, s, style, split, 0, partners)[0]]
        assert again == first
