"""Task planners (issue 3): specs, answers, geometry, distractors, replay, determinism. No rendering."""
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from misigen.core import geometry
from misigen.core.commands import Op, format_ops, parse_ops
from misigen.core.errors import InputError
from misigen.core.scene_plan import PARTS, shown_structure
from misigen.core.tasks import answer_distribution, load_suite, plan_samples, split_for
from misigen.core.tasks import common
from misigen.core.tasks.answers import (canonical, format_pocket_hbonds, format_residue_answer, parse_letter,
                                        parse_pocket_hbonds, parse_residue_answer)
from misigen.core.tasks.choice import scheme_distractors
from misigen.core.tasks.common import spec_coords

ROOT = Path(__file__).resolve().parents[1]
SUITE = ROOT / "task_specs" / "misi_bench.yaml"
SEED = 7


@pytest.fixture(scope="module")
def tasks():
    return {t.name: t for t in load_suite(SUITE)}


def plan(tasks, name, s, style, split="train", seed=SEED):
    return plan_samples(tasks[name], s, style, split, seed)


def records(samples):
    return json.dumps([x.as_record() for x in samples], sort_keys=True)


def shown_for(s, spec):
    return shown_structure(s, spec.style, spec.parts, spec.residues)


def coords_of(s, spec):
    return spec_coords(shown_for(s, spec), spec)


# ------------------------------------------------------------------ specs
def test_suite_loads_all_nine(tasks):
    assert set(tasks) == {"translation", "rotation", "zooming", "residue_ligand_interaction",
                          "translation_rotation", "rotation_rotation", "docking", "interaction_location",
                          "pocket_ligand_interaction"}
    t = tasks["translation"]
    assert t.samples("train") == 4 and t.samples("test") == 2
    assert abs(t.suite["test_fraction"] - 490 / 3993) < 1e-9
    # the complex group shares one camera: the largest in-plane move and the largest zoom
    assert tasks["rotation"].camera == tasks["zooming"].camera == {"group": "complex", "pad": 4.0,
                                                                    "max_zoom": 60.0, "zoom_clearance": 4.0}


def _copy_specs(tmp_path):
    dst = tmp_path / "specs"
    shutil.copytree(ROOT / "task_specs", dst)
    return dst


@pytest.mark.parametrize("file,old,new,key", [
    ("translation.yaml", "after_view: front", "after_view: front\nbogus: 1", "bogus"),
    ("translation.yaml", "samples: {train: 4, test: 2}", "samples: {train: four, test: 2}", "samples.train"),
    ("translation.yaml", "values: {min: -4, max: 4, step: 1, exclude: [0]}", "values: {min: 4, max: -4, step: 1}",
     "operation.values"),
    ("zooming.yaml", "values: {min: 40, max: 60, step: 1}", "values: {min: 40, max: 40, step: 1, exclude: [40]}",
     "operation.values"),
    ("translation.yaml", "samples: {train: 4, test: 2}", "samples: {train: 40, test: 2}", "samples.train"),
    ("rotation.yaml", "axes: [x, y, z]", "axes: [x, w]", "operation.axes[1]"),
    ("translation.yaml", "verb: move", "verb: roll", "operation.verb"),
    ("rotation.yaml", "max_retries: 30", "max_retries: 0", "rejection.max_retries"),
    ("translation_rotation.yaml", "values: {min: -90, max: 90, step: 15, exclude: [0]}}",
     "values: {min: 15, max: 15, step: 15}}", "distractor_schemes"),
])
def test_spec_errors_name_file_and_key(tmp_path, file, old, new, key):
    d = _copy_specs(tmp_path)
    text = (d / file).read_text()
    assert old in text
    (d / file).write_text(text.replace(old, new, 1))
    with pytest.raises(InputError) as exc:
        load_suite(d / "misi_bench.yaml")
    msg = str(exc.value)
    assert file in msg and key in msg, msg


@pytest.mark.parametrize("field", ["{structure.__class__}", "{structure!r}", "{nonexistent}", "{structure:>10}",
                                   "{0}"])
def test_templates_only_take_named_fields(tmp_path, field):
    d = _copy_specs(tmp_path)
    p = d / "prompts" / "translation.txt"
    p.write_text(p.read_text() + field)
    with pytest.raises(InputError) as exc:
        load_suite(d / "misi_bench.yaml")
    assert "translation.txt" in str(exc.value) and "template field" in str(exc.value)


def test_suite_errors(tmp_path):
    d = _copy_specs(tmp_path)
    (d / "misi_bench.yaml").write_text((d / "misi_bench.yaml").read_text().replace("zooming.yaml", "nope.yaml"))
    with pytest.raises(InputError, match=r"tasks\[2\]"):
        load_suite(d / "misi_bench.yaml")


# ------------------------------------------------------------------ splits and seeds
def test_split_for_is_deterministic_and_proportional():
    ids = [f"s{i:04d}" for i in range(3000)]
    a = [split_for(i, 3) for i in ids]
    assert a == [split_for(i, 3) for i in ids]
    frac = a.count("test") / len(a)
    assert abs(frac - 490 / 3993) < 0.03
    assert [split_for(i, 4) for i in ids] != a          # the seed matters
    assert split_for("x", 1, 0.0) == "train" and split_for("x", 1, 1.0) == "test"


# ------------------------------------------------------------------ formatters / parsers
@pytest.mark.parametrize("ops", [[Op("move", "x", 3)], [Op("roll", "y", -15)], [Op("move", "z", 42)],
                                 [Op("roll", "x", 75), Op("move", "x", -14)],
                                 [Op("move", "x", 2.5), Op("move", "y", -5.5)]])
def test_ops_round_trip(ops):
    text = format_ops(ops)
    assert parse_ops(text) == ops and format_ops(parse_ops(text)) == text


def test_hbond_answer_round_trips():
    bonds = [{"resname": "ARG", "resseq": 221, "icode": "", "chain": "A", "protein_atom": "NH2", "ligand_atom": "O22"},
             {"resname": "ARG", "resseq": 221, "icode": "B", "chain": "", "protein_atom": "N", "ligand_atom": "O23"}]
    t9 = format_pocket_hbonds(bonds)
    assert t9 == "ARG 221 NH2 A, O22; ARG 221B N -, O23"
    assert parse_pocket_hbonds(t9) == [("ARG", 221, "", "NH2", "A", "O22"), ("ARG", 221, "B", "N", "-", "O23")]
    assert canonical("pocket", "arg 221 nh2 a , o22;ARG 221B N -, O23") == t9
    t4 = format_residue_answer(bonds)
    assert t4 == "Yes: ARG NH2, O22; ARG N, O23"
    assert parse_residue_answer(t4) == (True, [("ARG", "NH2", "O22"), ("ARG", "N", "O23")])
    assert format_residue_answer([]) == "No" and parse_residue_answer("no.") == (False, [])
    assert canonical("residue", "yes: ARG NH2 , O22; ARG N, O23") == t4
    for good in ("B", "(b)", "B.", "Option B", "b) because"):
        assert parse_letter(good) == "B"
    with pytest.raises(ValueError):
        parse_letter("E")


# ------------------------------------------------------------------ T1–T3 geometry
def test_translation_moves_camera_frame_coords(tasks, brd4, style):
    samples, fails = plan(tasks, "translation", brd4, style)
    assert len(samples) == 4 and not fails
    for s in samples:
        op = parse_ops(s.answer)[0]
        assert s.answer == format_ops([op]) and s.program["ops"] == [op.as_dict()]
        front, after = s.images[0], s.images[-1]
        assert front.camera == after.camera and front.centre == after.centre
        cam = front.camera
        delta = cam.to_camera(coords_of(brd4, after)) - cam.to_camera(coords_of(brd4, front))
        want = np.zeros(3)
        want["xyz".index(op.axis)] = op.value
        assert np.allclose(delta, want, atol=1e-9)
    # balanced: the four samples of a complex cover x/y × +/− once each
    assert sorted((s.program["balance_class"]["axis"], s.program["balance_class"]["sign"]) for s in samples) == \
        [("x", "+"), ("x", "-"), ("y", "+"), ("y", "-")]


def test_rotation_turns_about_recorded_centre(tasks, hivp, style):
    samples, fails = plan(tasks, "rotation", hivp, style)
    assert len(samples) == 6 and not fails
    axes_signs = set()
    for s in samples:
        op = parse_ops(s.answer)[0]
        centre = np.array(s.program["centre"])
        assert np.allclose(centre, s.images[-1].centre)
        start, after = coords_of(hivp, s.images[0]), coords_of(hivp, s.images[-1])
        expect = (start - centre) @ geometry.rotation_matrix(op.axis, op.value).T + centre
        assert np.allclose(after, expect, atol=1e-9)
        axes_signs.add((op.axis, op.value > 0))
    assert len(axes_signs) == 6


def test_zoom_moves_toward_viewer_and_stays_in_front(tasks, brd4, style):
    samples, _ = plan(tasks, "zooming", brd4, style)
    assert len(samples) == 4
    for s in samples:
        d = parse_ops(s.answer)[0].value
        assert 40 <= d <= 60
        cam = s.images[0].camera
        start, after = coords_of(brd4, s.images[0]), coords_of(brd4, s.images[-1])
        assert np.allclose(after - start, [0, 0, d])
        _, depth = cam.project(after)
        assert depth.min() > 4.0 - 1e-6          # zoom_clearance (atom radii included)
    # camera far enough for the largest zoom of the suite
    cam = samples[0].images[0].camera
    assert cam.position[2] - samples[0].program["centre"][2] >= 60


def test_start_views_are_shared_across_tasks(tasks, brd4, style):
    keys = {}
    for name in ("translation", "rotation", "zooming", "translation_rotation", "rotation_rotation",
                 "interaction_location", "pocket_ligand_interaction"):
        samples, _ = plan(tasks, name, brd4, style)
        keys[name] = samples[0].images[0].key()       # the front view of the start
    assert len(set(keys.values())) == 1, keys
    # every view of a start state fits the camera (rotation-invariant framing)
    t = plan(tasks, "pocket_ligand_interaction", brd4, style)[0][0]
    for spec in t.images:
        xyz = coords_of(brd4, spec)
        pix, _ = spec.camera.project(xyz)
        assert (pix >= 0).all() and (pix[:, 0] <= spec.camera.width).all() and (pix[:, 1] <= spec.camera.height).all()


def test_rotation_rejects_lookalikes_on_symmetric_pocket(tasks, hivp, style):
    """HIV protease is a C2 dimer: the symmetric-look check must run and keep answers unique."""
    samples, fails = plan(tasks, "rotation", hivp, style, seed=11)
    answers = [s.answer for s in samples]
    assert len(set(answers)) == len(answers)


# ------------------------------------------------------------------ T5/T6 options
@pytest.mark.parametrize("name", ["translation_rotation", "rotation_rotation"])
def test_choice_exactly_one_option_replays(tasks, brd4, style, name):
    samples, fails = plan(tasks, name, brd4, style)
    assert len(samples) == 6 and not fails
    spec_d = tasks[name].data
    letters = []
    for s in samples:
        prog = s.program
        true = tuple(parse_ops(prog["answer_text"]))
        assert [o.as_dict() for o in true] == prog["ops"]
        if name == "rotation_rotation":
            assert true[0].axis != true[1].axis
        b_ops = [common.op_from_dict(o) for o in prog["target_start_ops"]]
        replay = s.options[0].__class__(s.structure, s.options[0].camera, s.options[0].style,
                                        {"all": b_ops + list(true)}, centre=s.options[0].centre)
        hits = [k for k, o in enumerate(s.options) if o.description() == replay.description()]
        assert hits == ["ABCD".index(s.answer)]
        letters.append(s.answer)
        # distractors follow the sample's scheme
        allowed = set(scheme_distractors(prog["scheme"], true, spec_d))
        for opt in prog["options"]:
            p = tuple(parse_ops(opt["text"]))
            assert (p == true) == opt["correct"]
            if not opt["correct"]:
                assert p in allowed
        # options differ visibly: pairwise RMSD of posed atoms above the spec threshold
        xyz = [coords_of(brd4, o) for o in s.options]
        for i in range(4):
            for j in range(i + 1, 4):
                assert common.rmsd(xyz[i], xyz[j]) >= spec_d["rejection"]["min_option_rmsd"]
        # the reference after-image is the same program on the start state
        ref = s.images[3]
        assert ref.ops["all"] == list(true)
    assert sorted(letters[:4]) == ["A", "B", "C", "D"]


def test_scheme_rules():
    d = {"steps": [{"verb": "move", "axes": ["x", "y"], "values": {"min": -4, "max": 4, "step": 1, "exclude": [0]}},
                   {"verb": "roll", "axes": ["x", "y", "z"],
                    "values": {"min": -90, "max": 90, "step": 15, "exclude": [0]}}], "distinct_axes": False}
    true = (Op("move", "x", 3), Op("roll", "y", 45))
    for a, b in scheme_distractors("magnitude_both", true, d):
        assert a.axis == "x" and a.value > 0 and a.value != 3 and b.axis == "y" and b.value > 0 and b.value != 45
    for a, b in scheme_distractors("flip_first", true, d):
        assert a == Op("move", "x", -3) and b.axis == "y" and b.value > 0 and b.value != 45
    for a, b in scheme_distractors("axis_first", true, d):
        assert a == Op("move", "y", 3) and b.axis == "y" and b.value > 0 and b.value != 45


# ------------------------------------------------------------------ T7 docking
def test_docking_replay_redocks(tasks, hivp, brd4, style):
    for s_ in (hivp, brd4):
        samples, fails = plan(tasks, "docking", s_, style)
        assert len(samples) == 6 and not fails
        classes = set()
        for s in samples:
            ops = parse_ops(s.answer)
            assert [o.verb for o in ops] == ["roll", "move"] and ops[1].axis == "x"
            pocket, lig, comb = s.images[:3], s.images[3:6], s.images[6]
            assert all(p.parts == ("protein",) for p in pocket) and all(p.parts == ("ligand",) for p in lig)
            shown = shown_for(s_, comb)
            xyz = spec_coords(shown, comb)
            moved, crystal = xyz[shown.ligand], shown.coords[shown.ligand]
            m, _ = geometry.compose(ops, moved.mean(axis=0))
            assert np.abs(geometry.apply(m, moved) - crystal).max() < 1e-6
            # displaced beside the pocket, on the recorded side, with no overlap
            assert (moved[:, 0].min() > xyz[~shown.ligand][:, 0].max()) if s.program["side"] == "right" else \
                (moved[:, 0].max() < xyz[~shown.ligand][:, 0].min())
            assert (ops[1].value < 0) == (s.program["side"] == "right")
            # all docking images share one camera; the pocket views are shared by every sample
            assert len({x.camera for x in s.images}) == 1
            classes.add((ops[0].axis, s.program["side"]))
        assert len(classes) == 6
        assert len({tuple(x.key() for x in s.images[:3]) for s in samples}) == 1


# ------------------------------------------------------------------ H-bond tasks (real finder)
def test_pocket_ligand_lists_every_hbond(tasks, hivp, style):
    from misigen.core.interactions import find_interactions
    samples, fails = plan(tasks, "pocket_ligand_interaction", hivp, style)
    assert len(samples) == 1 and not fails
    truth = {(i.resname, i.resseq, i.icode, i.protein_atom, i.chain, i.ligand_atom)
             for i in find_interactions(hivp) if i.kind == "hbond"}
    assert set(parse_pocket_hbonds(samples[0].answer)) == truth
    assert len(samples[0].images) == 6


def test_residue_ligand_yes_no_balanced_and_correct(tasks, hivp, style):
    from misigen.core.interactions import find_interactions
    hb = [i for i in find_interactions(hivp) if i.kind == "hbond"]
    samples, fails = plan(tasks, "residue_ligand_interaction", hivp, style)
    assert len(samples) == 4 and not fails
    assert sorted(s.answer == "No" for s in samples) == [False, False, True, True]
    for s in samples:
        r = s.program["residue"]
        want = sorted((i.resname, i.protein_atom, i.ligand_atom) for i in hb
                      if (i.chain, i.resseq, i.icode) == (r["chain"], r["resseq"], r["icode"]))
        yes, pairs = parse_residue_answer(s.answer)
        assert yes == bool(want) and sorted(pairs) == want
        assert all(img.residues == ((r["chain"], r["resseq"], r["icode"]),) for img in s.images)
        shown = shown_for(hivp, s.images[0])
        assert len({(c, n) for c, n, l in zip(shown.chain, shown.resseq, shown.ligand) if not l}) == 1


def test_interaction_location_centres_the_hbond(tasks, hivp, style):
    samples, fails = plan(tasks, "interaction_location", hivp, style)
    assert len(samples) == 3 and not fails
    d = tasks["interaction_location"].data
    for s in samples:
        shown = shown_for(hivp, s.images[0])
        xyz = spec_coords(shown, s.images[0])
        hb = s.program["hbond"]
        rows = common.context_for(hivp, style).row_map(shown)
        mid = (xyz[rows[hb["protein_index"]]] + xyz[rows[hb["ligand_index"]]]) / 2
        cam = s.images[0].camera
        ends = []
        for k, text in enumerate(s.options):
            m, _ = geometry.compose(parse_ops(text), np.zeros(3))
            ends.append(cam.to_camera(geometry.apply(m, mid[None]))[0][:2])
        ends = np.array(ends)
        k = "ABCD".index(s.answer)
        assert np.abs(ends[k]).max() <= d["precision"] / 2 + 1e-9
        for j in range(4):
            if j != k:
                assert np.hypot(*ends[j]) >= d["distractors"]["min_gap"] - d["precision"]
        assert s.question.count(hb["ligand_atom"]) >= 1 and f"{hb['resname']} {hb['resseq']}" in s.question
    assert len({s.program["hbond"]["ligand_atom"] + s.program["hbond"]["protein_atom"] for s in samples}) == 3


def _fake_interaction(s, prot_row, lig_row, **kw):
    from misigen.core.interactions import Interaction
    return Interaction(kind="hbond", protein_index=prot_row, ligand_index=lig_row, chain=str(s.chain[prot_row]),
                       resname=str(s.resname[prot_row]), resseq=int(s.resseq[prot_row]), icode=str(s.icode[prot_row]),
                       protein_atom=str(s.name[prot_row]), ligand_atom=str(s.name[lig_row]), donor="protein",
                       distance=2.9, angles={}, criterion="fake", **kw)


def test_hbond_tasks_with_fake_finder(tasks, brd4, style, monkeypatch):
    """T4/T8/T9 follow whatever the finder reports (its interface, not its chemistry)."""
    import misigen.core.interactions as inter
    s = brd4
    lig = np.nonzero(s.ligand & ~s.is_hydrogen)[0]
    prot = np.nonzero(~s.ligand & ~s.is_hydrogen & np.isin(s.element, ["N", "O"]))[0]
    d = np.linalg.norm(s.coords[prot][:, None] - s.coords[lig][None], axis=-1)
    pairs = sorted({(int(prot[i]), int(lig[j])) for i, j in zip(*np.nonzero(d < 3.6))})[:4]
    assert pairs
    fake = [_fake_interaction(s, p, l) for p, l in pairs]
    fake.sort(key=lambda i: i.sort_key())
    monkeypatch.setattr(inter, "find_interactions", lambda structure, kinds=("hbond",), **kw: list(fake))
    common._CACHE.clear()
    try:
        t9, _ = plan(tasks, "pocket_ligand_interaction", s, style)
        assert t9 and set(parse_pocket_hbonds(t9[0].answer)) == {
            (i.resname, i.resseq, i.icode, i.protein_atom, i.chain, i.ligand_atom) for i in fake}
        t4, _ = plan(tasks, "residue_ligand_interaction", s, style)
        for x in t4:
            r = x.program["residue"]
            want = [(i.resname, i.protein_atom, i.ligand_atom) for i in fake
                    if (i.chain, i.resseq, i.icode) == (r["chain"], r["resseq"], r["icode"])]
            assert parse_residue_answer(x.answer) == (bool(want), [tuple(w) for w in want])
        t8, _ = plan(tasks, "interaction_location", s, style)
        assert {(x.program["hbond"]["protein_index"], x.program["hbond"]["ligand_index"]) for x in t8} <= set(pairs)
    finally:
        common._CACHE.clear()


def test_no_hbonds_gives_failure_records(tasks, brd4, style, monkeypatch):
    import misigen.core.interactions as inter
    monkeypatch.setattr(inter, "find_interactions", lambda structure, kinds=("hbond",), **kw: [])
    common._CACHE.clear()
    try:
        samples, fails = plan(tasks, "pocket_ligand_interaction", brd4, style)
        assert samples == [] and len(fails) == 1 and "no protein–ligand hydrogen bond" in fails[0]["why"]
        assert set(fails[0]) == {"structure", "task", "sample", "why"}
        samples, fails = plan(tasks, "residue_ligand_interaction", brd4, style)
        assert all(x.answer == "No" for x in samples) and len(fails) == 2
    finally:
        common._CACHE.clear()


# ------------------------------------------------------------------ determinism
def test_plans_are_deterministic_and_independent(tasks, brd4, hivp, style):
    names = list(tasks)
    first = {n: records(plan(tasks, n, brd4, style)[0]) for n in names}
    common._CACHE.clear()
    for n in names:                   # other structures / tasks planned in between
        plan(tasks, n, hivp, style)
    again = {n: records(plan(tasks, n, brd4, style)[0]) for n in reversed(names)}
    assert first == again
    other_seed = records(plan(tasks, "rotation", brd4, style, seed=SEED + 1)[0])
    assert other_seed != first["rotation"]
    test_split = plan(tasks, "rotation", brd4, style, split="test")[0]
    assert len(test_split) == 3 and all(s.id.startswith("rotation-wagner_brd4-test-") for s in test_split)


def test_ids_unique_and_questions_complete(tasks, brd4, style):
    ids = []
    for name, t in tasks.items():
        samples, _ = plan(tasks, name, brd4, style)
        for s in samples:
            ids.append(s.id)
            assert s.id == f"{name}-wagner_brd4-train-{int(s.id[-3:]):03d}"
            assert "wagner_brd4" in s.question and "{" not in s.question
            assert "X points right" in s.question and "background is black" in s.question
            assert f"Image {len(s.images)}:" in s.question
            json.dumps(s.as_record())
    assert len(ids) == len(set(ids))
    dist = answer_distribution([s for n in tasks for s in plan(tasks, n, brd4, style)[0]])
    assert dist["translation"]["move_axis"] == {"x": 2, "y": 2}
