"""Difficulty knobs (a spec's or suite's ``difficulty:`` block): each changes what it says, keeps
answer balance, and is off unless set (misi_bench's specs are unchanged)."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from misigen.core.errors import InputError
from misigen.core.op_grammar import Op, parse_ops
from misigen.core.tasks import PartnerCatalog, load_suite, plan_samples
from misigen.core.tasks.distractors import partners
from misigen.core.teaching import SidecarCache, enrich

from conftest import ROOT

BENCH = ROOT / "task_specs" / "misi_bench.yaml"
HARD = ROOT / "task_specs" / "misi_hard.yaml"
SEED = 5


@pytest.fixture(scope="module")
def suites():
    return {"bench": {t.name: t for t in load_suite(BENCH).tasks}, "hard": {t.name: t for t in load_suite(HARD).tasks}}


@pytest.fixture(scope="module")
def catalog(brd4, hivp):
    by_id = {brd4.id: brd4, hivp.id: hivp}
    return by_id, PartnerCatalog({k: "test" for k in by_id}, lambda i: by_id[i])


def planned(suites, which, name, s, style, catalog, split="test"):
    """Samples of one task on one complex, with their difficulty features (as generate makes them)."""
    by_id, cat = catalog
    task = suites[which][name]
    samples, _failures = plan_samples(task, s, style, split, SEED, cat)
    kept, _ = enrich(samples, task, SidecarCache(by_id))
    return kept


def feature(samples, name):
    return [s.program["difficulty"][name] for s in samples if s.program["difficulty"].get(name) is not None]


# ------------------------------------------------------------------ specs
def test_knobs_are_off_in_misi_bench_and_on_in_misi_hard(suites):
    assert all(t.data.get("difficulty") is None for t in suites["bench"].values())
    hard = {n: t.data["difficulty"] for n, t in suites["hard"].items()}
    assert hard["translation"] == {"values": "fine"} and hard["docking"] == {"values": "fine"}
    assert hard["rotation_rotation"] == {"decoys": "near"}
    assert hard["interaction_location"] == {"decoys": "near", "labels": "sparse", "occlusion": "high"}
    assert hard["residue_ligand_interaction"] == {"labels": "sparse", "occlusion": "high"}


def test_a_task_refuses_a_knob_it_does_not_implement(tmp_path):
    spec = (ROOT / "task_specs" / "translation.yaml").read_text() + "difficulty: {labels: sparse}\n"
    (tmp_path / "prompts").symlink_to(ROOT / "task_specs" / "prompts")
    path = tmp_path / "translation.yaml"
    path.write_text(spec)
    from misigen.core.tasks import load_task_spec
    with pytest.raises(InputError, match="difficulty.labels: unknown key"):
        load_task_spec(path)
    path.write_text(spec.replace("{labels: sparse}", "{values: tiny}"))
    with pytest.raises(InputError, match="difficulty.values: 'tiny' is not one of default, fine"):
        load_task_spec(path)
    path.write_text(spec.replace("{labels: sparse}", "{values: fine}"))
    assert load_task_spec(path).data["difficulty"] == {"values": "fine"}


# ------------------------------------------------------------------ values: fine
def test_values_fine_halves_the_step_and_the_pixel_gap(suites, hivp, style, catalog):
    base = planned(suites, "bench", "translation", hivp, style, catalog, "train")
    fine = planned(suites, "hard", "translation", hivp, style, catalog, "train")
    assert {s.program["value_step"] for s in base} == {1.0} and {s.program["value_step"] for s in fine} == {0.5}
    assert len(fine[0].program["values"]) == 2 * len(base[0].program["values"])
    assert "in steps of 0.5" in fine[0].question and "in steps of 1" in base[0].question
    assert np.median(feature(fine, "option_gap_px")) == pytest.approx(np.median(feature(base, "option_gap_px")) / 2,
                                                                      rel=0.1)
    assert Counter(s.program["balance_class"]["axis"] for s in fine) == Counter(
        s.program["balance_class"]["axis"] for s in base)          # the axis/sign balance is the planner's


def test_values_fine_docking_asks_half_angstrom_distances(suites, hivp, style, catalog):
    fine = planned(suites, "hard", "docking", hivp, style, catalog, "train")
    assert fine and all(s.program["move_step"] == 0.5 for s in fine)
    assert "a multiple of 0.5 Å" in fine[0].question
    assert all(float(s.program["extra"]) * 2 == int(float(s.program["extra"]) * 2) for s in fine)
    base = planned(suites, "bench", "docking", hivp, style, catalog, "train")
    assert "move_step" not in base[0].program
    assert np.median(feature(fine, "option_gap_px")) < np.median(feature(base, "option_gap_px"))


# ------------------------------------------------------------------ decoys: near
def test_near_magnitude_pairing_is_its_own_inverse():
    step = {"verb": "roll", "axes": ["x"], "values": {"min": -90, "max": 90, "step": 15, "exclude": [0]}}
    for off in (0, 1):
        mates = {}
        for v in (-90, -75, -60, -45, -30, -15, 15, 30, 45, 60, 75, 90):
            got = partners(Op("roll", "x", float(v)), "magnitude", step, near=off)
            if got:
                (p,) = got
                assert abs(abs(p.value) - abs(v)) == 15 and (p.value > 0) == (v > 0)
                mates[v] = p.value
        assert all(mates.get(int(p)) == v for v, p in mates.items())        # the partner's partner is v
        assert len(mates) == (12 if off == 0 else 8)                        # offset 1 leaves out ±15, ±90
    assert partners(Op("roll", "x", 15.0), "magnitude", step, near=1) == []   # left out by offset 1


def test_decoys_near_bring_option_images_closer(suites, hivp, style, catalog):
    base = planned(suites, "bench", "rotation_rotation", hivp, style, catalog, "train")
    near = planned(suites, "hard", "rotation_rotation", hivp, style, catalog, "train")
    for s in near:
        for ch in s.program["changes"]:
            if ch["change"] == "magnitude":
                k = ch["step"]
                mags = {abs(o["ops"][k]["value"]) for o in s.program["options"]}
                assert max(mags) - min(mags) == 15.0
    assert np.median(feature(near, "option_gap_px")) < np.median(feature(base, "option_gap_px"))


def test_decoys_near_location_moves_one_angstrom_apart(suites, hivp, style, catalog):
    near = planned(suites, "hard", "interaction_location", hivp, style, catalog, "train")
    assert near
    for s in near:
        moves = [[op.value for op in parse_ops(t)] for t in s.options]
        for k, ch in enumerate(s.program["changes"]):
            vals = {abs(m[k]) for m in moves}
            if ch["change"] == "magnitude":
                assert max(vals) - min(vals) == 1.0
            else:
                assert len(vals) == 1


# ------------------------------------------------------------------ labels: sparse
def test_labels_sparse_labels_every_other_view_whatever_the_answer(suites, brd4, style, catalog):
    base = planned(suites, "bench", "residue_ligand_interaction", brd4, style, catalog, "train")
    sparse = planned(suites, "hard", "residue_ligand_interaction", brd4, style, catalog, "train")
    answers = Counter(s.answer == "No" for s in sparse)
    assert answers[True] and answers[False]                       # Yes and No questions both asked
    for s in sparse:
        specs = s.render_specs()
        assert [sp.labels is not None for sp in specs] == [True, False, True, False, True, False]
        assert "Labels are drawn in images 1, 3 and 5 only" in s.question
    cache = SidecarCache({brd4.id: brd4})
    drawn = {k: sum(len(cache.of(sp)["labels"]) for s in got for sp in s.render_specs()) / len(got)
             for k, got in (("bench", base), ("sparse", sparse))}
    assert drawn["sparse"] < 0.7 * drawn["bench"]
    assert np.mean(feature(sparse, "answer_named_share")) < np.mean(feature(base, "answer_named_share")) - 0.2


# ------------------------------------------------------------------ occlusion: high
def test_occlusion_high_picks_the_pose_hiding_the_contact_atoms(suites, hivp, style, catalog):
    from misigen.core.tasks.common import context_for
    from misigen.core.tasks.pocket_ligand_interaction.planner import PocketPlanner
    from misigen.core.tasks.shared.hbond import POSES

    base = planned(suites, "bench", "pocket_ligand_interaction", hivp, style, catalog)
    hard = planned(suites, "hard", "pocket_ligand_interaction", hivp, style, catalog)
    assert base[0].answer == hard[0].answer                        # the same bonds, seen from another start
    task = suites["hard"]["pocket_ligand_interaction"]
    planner = PocketPlanner(task, context_for(hivp, style), "test", SEED)
    rows = planner.contact_rows()
    pose = planner.hiding_pose(rows)
    assert pose and hard[0].render_specs()[0].ops["all"][:len(pose)] == pose

    def hidden(p):
        specs = [planner.view_spec(v, labels=None, pose=p) for v in task.data["views"]]
        return np.mean([1 - planner.visible(s)[rows].mean() for s in specs])
    others = [[Op("roll", ax, float(v)) for ax, v in (("y", a), ("x", b)) if v] for a, b in POSES]
    assert hidden(pose) == pytest.approx(max(hidden(p) for p in others))
    assert hidden(pose) > hidden([])
    assert hard[0].program["difficulty"]["occlusion_max"] >= base[0].program["difficulty"]["occlusion_max"]


# ------------------------------------------------------------------ the knob-on suite stays fair
@pytest.mark.slow      # runs run_blender.py in a subprocess
def test_misi_hard_dataset_passes_the_audit(tmp_path, examples, cli):
    import json

    out = tmp_path / "hard"
    res = cli("generate", "--structures", examples, "--out", out, "--suite", "misi_hard", "--split", "test",
              "--plan-only", "--resolution", "256", "256", "--no-progress")
    assert res.returncode in (0, 3), res.stderr[-3000:]           # 3: rejected samples past the budget
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["audit"]["ok"], manifest["audit"]
    report = json.loads((out / "audit.json").read_text())
    for task in ("translation_rotation", "rotation_rotation", "interaction_location"):
        steps = report["tasks"][task]["necessity"]["steps"]
        assert len(steps) == 2 and all(st["share"] >= 0.5 for st in steps), (task, steps)
    records = [json.loads(line) for line in (out / "annotations.jsonl").read_text().splitlines()]
    assert {r["task"] for r in records} >= {"translation", "docking", "residue_ligand_interaction"}
