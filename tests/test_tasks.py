"""Task planners: specs, answers, geometry, distractors, replay, determinism. No rendering."""
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from misigen.core.scene import geometry
from misigen.core.op_grammar import Op, format_ops, parse_ops
from misigen.core.errors import InputError
from misigen.core.scene.scene_plan import shown_structure
from misigen.core.tasks.catalog import BUILTIN_MODULES
from misigen.core.tasks import (REGISTRY, PartnerCatalog, answer_distribution, load_suite, plan_samples,
                                score_answer, split_for, task_names)
from misigen.core.tasks import common
from misigen.core.tasks.answers import (canonical, format_pocket_hbonds, format_residue_answer, parse_letter,
                                        parse_pocket_hbonds, parse_residue_answer)
from misigen.core.tasks.common import MISI_BENCH_TEST_FRACTION, frame_span, same_pose, spec_coords
from misigen.core.tasks.distractors import scheme_distractors

ROOT = Path(__file__).resolve().parents[1]
SUITE = ROOT / "task_specs" / "misi_bench.yaml"
SEED = 7


@pytest.fixture(scope="module")
def tasks():
    return {t.name: t for t in load_suite(SUITE).tasks}


def plan(tasks, name, s, style, split="train", seed=SEED, partners=None):
    return plan_samples(tasks[name], s, style, split, seed, partners)


@pytest.fixture(scope="module")
def partners(brd4, hivp):
    """The two bundled examples as one run's catalogue (both train), for T5's pairing."""
    by_id = {brd4.id: brd4, hivp.id: hivp}
    return PartnerCatalog({k: "train" for k in by_id}, lambda i: by_id[i])


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
    assert abs(t.settings.test_fraction - MISI_BENCH_TEST_FRACTION) < 1e-9
    assert t.settings.zoom_clearance == 4.0
    # one registry entry per task: planner, schema, template fields and answer kind in one place
    # (a user task another test loaded stays registered in this process: compare the built-in types)
    builtin = {t.name for m in BUILTIN_MODULES for t in m.TASK_TYPES}
    assert builtin == set(tasks) and builtin <= set(task_names()) == set(REGISTRY)
    kinds = {n: REGISTRY[n].answer_kind for n in tasks}
    assert kinds["docking"] == "ops" and kinds["interaction_location"] == "letter" and \
        kinds["pocket_ligand_interaction"] == "pocket" and kinds["residue_ligand_interaction"] == "residue"


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
     "values: {min: 15, max: 15, step: 15}}", "distractors.product"),
    ("translation_rotation.yaml", "design: product", "design: paper\n  bogus: 1", "distractors.bogus"),
    ("interaction_location.yaml", "magnitude_steps: [2.0, 3.0]", "magnitude_steps: [1.0, 3.0]",
     "distractors.product.magnitude_steps"),
    ("translation_rotation.yaml", "{step: 0, changes: [sign, axis]}", "{step: 1, changes: [axis]}",
     "distractors.product"),
    ("rotation_rotation.yaml", "changes: [sign, magnitude]}", "changes: [sign, size]}", "distractors.product[0]"),
    ("misi_bench.yaml", "task: interaction_location, min_needed", "task: interaction_locatoin, min_needed",
     "audit.necessity.magnitudes[0].task"),
    ("residue_ligand_interaction.yaml", "mode: paper", "mode: hard", "negatives.mode"),
    ("interaction_location.yaml", "precision: 1.0", "precision: 0.0001", "precision"),
    ("misi_bench.yaml", "guesser: residue type (leave-one-out)", "guesser: residue typ", "known_shortcuts[0].guesser"),
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
    assert abs(frac - MISI_BENCH_TEST_FRACTION) < 0.03
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
        assert front.camera == after.camera and front.centre == after.centre    # after keeps the front camera
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
        assert s.images[-1].camera == cam
    # the zoom camera stands back for the largest zoom of the task; the other start views are framed tight
    cam = samples[0].images[0].camera
    assert cam.position[2] - coords_of(brd4, samples[0].images[0])[:, 2].max() >= 60
    assert samples[0].images[1].camera != cam


def _start_count(s):
    """How many leading images of a sample are start views (before any transformed image)."""
    return {"translation_rotation": 3, "rotation_rotation": 3, "translation": 3, "rotation": 3, "zooming": 3,
            "docking": 3}.get(s.task, len(s.images))


@pytest.mark.slow      # takes long
def test_start_views_fill_the_frame_and_are_shared(tasks, brd4, hivp, style, partners):
    """Each start view is framed on its own ("view all"), spans >= 80 % of the frame, and tasks that
    show the same complex from the same side share the image (zooming alone needs its clearance)."""
    for st in (brd4, hivp):
        fronts = {}
        for name in ("translation", "rotation", "translation_rotation", "rotation_rotation",
                     "interaction_location", "pocket_ligand_interaction", "residue_ligand_interaction", "docking"):
            samples, _ = plan(tasks, name, st, style, partners=partners)
            assert samples, name
            for s in samples:
                for spec in s.images[:_start_count(s)]:
                    if spec.structure_id != st.id:
                        continue
                    shown = shown_for(st, spec)
                    span = frame_span(spec.camera, spec_coords(shown, spec), common.context_for(st, style).radii(shown))
                    assert max(span) >= 0.8 and max(span) <= 1.0, (name, span)
            if name not in ("residue_ligand_interaction", "docking"):
                fronts[name] = samples[0].images[0].key()
        assert len(set(fronts.values())) == 1, fronts


@pytest.mark.slow      # takes long
def test_no_start_view_reappears(tasks, hivp, brd4, style, partners):
    """`roll x 90` is the top view and `roll y 90` the left view: such after-images are never used,
    and no option or after-image repeats a start view of its record."""
    for st in (hivp, brd4):
        for seed in (1, 2, 3):
            for name in ("rotation", "rotation_rotation", "translation_rotation", "translation"):
                for s in plan(tasks, name, st, style, seed=seed, partners=partners)[0]:
                    start = s.images[:3]
                    later = s.images[3:] + [o for o in (s.options or []) if not isinstance(o, str)]
                    assert not any(same_pose(a, b) for a in later for b in start), (name, s.answer)
                    if name == "rotation":
                        assert s.answer not in ("roll x 90", "roll y 90")


# ------------------------------------------------------------------ T5/T6 options
def _change(p, q, step):
    """How program q differs from p at one step: "", "sign", "magnitude", "both" (sign and magnitude)
    or "other" (axis or verb)."""
    a, b = p[step], q[step]
    if a == b:
        return ""
    if (a.verb, a.axis) != (b.verb, b.axis):
        return "other"
    sign, mag = (a.value > 0) != (b.value > 0), abs(a.value) != abs(b.value)
    return "both" if sign and mag else ("sign" if sign else "magnitude")


@pytest.mark.parametrize("name", ["translation_rotation", "rotation_rotation"])
def test_choice_options_are_a_2x2_product(tasks, brd4, hivp, style, name, partners):
    """Every option stands in the same relation to the other three: one differs by the first change,
    one by the second, one by both — so nothing but the reasoning singles out the answer. The two
    changes act on different steps (knowing one step exactly leaves two options), and which change
    each factor makes is drawn per question among the spec's kinds."""
    from misigen.core.quality.necessity import needed, option_steps
    spec_d = tasks[name].data
    f1, f2 = spec_d["distractors"]["product"]
    assert f1["step"] != f2["step"]
    letters, kinds = [], set()
    for struct in (brd4, hivp):
        samples, fails = plan(tasks, name, struct, style, partners=partners)
        assert len(samples) == 6 and not fails
        for s in samples:
            prog = s.program
            true = tuple(parse_ops(prog["answer_text"]))
            assert [o.as_dict() for o in true] == prog["ops"]
            progs = [tuple(parse_ops(o["text"])) for o in prog["options"]]
            assert progs[LETTERS_IDX[s.answer]] == true and len(set(progs)) == 4
            assert [tuple(Op(o["op"], o["axis"], o["value"]) for o in opt["ops"]) for opt in prog["options"]] == progs
            (c1, c2) = [c["change"] for c in prog["changes"]]
            assert c1 in f1["changes"] and c2 in f2["changes"]
            kinds.add((c1, c2))
            tag = {"axis": "other"}
            for p in progs:
                rel = sorted((_change(p, q, f1["step"]), _change(p, q, f2["step"])) for q in progs if q != p)
                assert rel == sorted([(tag.get(c1, c1), ""), ("", tag.get(c2, c2)),
                                      (tag.get(c1, c1), tag.get(c2, c2))]), (p, progs)
            # both steps needed: an oracle that knows either step exactly still sees two options
            step_needed, magnitude_needed = needed(*option_steps(prog))
            assert step_needed == [True, True]
            assert magnitude_needed == [c1 == "magnitude", c2 == "magnitude"]
            if name == "rotation_rotation":
                assert all(p[0].axis != p[1].axis for p in progs)
                # options differ visibly: pairwise RMSD of posed atoms above the spec threshold
                xyz = [coords_of(struct, o) for o in s.options]
                for i in range(4):
                    for j in range(i + 1, 4):
                        assert common.rmsd(xyz[i], xyz[j]) >= spec_d["rejection"]["min_option_rmsd"]
            letters.append(s.answer)
        assert sorted(letters[-6:][:4]) == ["A", "B", "C", "D"]
    assert len(kinds) >= 2, kinds                   # the kinds are drawn per question, not fixed


LETTERS_IDX = {L: k for k, L in enumerate("ABCD")}


def test_translation_rotation_pairs_another_complex(tasks, brd4, hivp, style, partners):
    """T5 as MiSI-Bench: 11 images — reference A (3 views + its front after the program), target B
    (another complex of the run, 3 views), 4 option images of B; exactly one option replays."""
    samples, _ = plan(tasks, "translation_rotation", brd4, style, partners=partners)
    assert samples
    for s in samples:
        assert s.program["target_structure"] == hivp.id
        assert len(s.images) + len(s.options) == 11
        assert [x.structure_id for x in s.images] == [brd4.id] * 4 + [hivp.id] * 3
        assert all(o.structure_id == hivp.id for o in s.options)
        true = tuple(parse_ops(s.program["answer_text"]))
        assert s.images[3].ops["all"] == list(true)                      # reference after-image
        hits = [k for k, o in enumerate(s.options) if o.ops["all"] == list(true)]
        assert hits == [LETTERS_IDX[s.answer]]
        assert s.options[0].camera == s.images[4].camera                 # options keep B's front camera
        assert f"target complex {hivp.id}" in s.question
        # the target (a dimer) is labelled with chains; the prompt says so for the target's images
        assert f"in the images of the target complex {hivp.id}: labels:" in s.question
        assert "followed by a dot and its chain" in s.question
    # the partner is a pure function of (seed, id, the run's ids): order and sharding do not matter
    from misigen.core.tasks.pairing import partner_order
    ids = [f"c{k:02d}" for k in range(20)]
    assert partner_order(5, "c03", ids) == partner_order(5, "c03", list(reversed(ids)))
    assert partner_order(5, "c03", ids) != partner_order(6, "c03", ids)


def test_translation_rotation_without_partner_is_recorded(tasks, brd4, style):
    alone = PartnerCatalog({brd4.id: "train"}, lambda i: brd4)
    samples, fails = plan(tasks, "translation_rotation", brd4, style, partners=alone)
    assert samples == [] and len(fails) == tasks["translation_rotation"].samples("train")
    assert all(f["category"] == "unavailable" and "another complex" in f["why"] for f in fails)


def test_rotation_rotation_layout(tasks, hivp, style):
    """T6 as MiSI-Bench: 8 images — 3 start views, image 4 = front after the two rotations, and 4
    options = image 4 after each candidate applied once more (the answer: the same two again)."""
    samples, fails = plan(tasks, "rotation_rotation", hivp, style)
    assert len(samples) == 6 and not fails
    for s in samples:
        assert len(s.images) == 4 and len(s.options) == 4
        true = list(parse_ops(s.program["answer_text"]))
        assert s.images[3].ops["all"] == true
        correct = s.options[LETTERS_IDX[s.answer]]
        assert correct.ops["all"] == true + true
        for o in s.options:
            assert o.ops["all"][:2] == true and o.camera == s.images[0].camera
        assert "image 4" in s.question


@pytest.mark.slow      # takes long
def test_paper_schemes_stay_available(tasks, brd4, style, tmp_path, partners):
    d = _copy_specs(tmp_path)
    p = d / "rotation_rotation.yaml"
    p.write_text(p.read_text().replace("design: product", "design: paper", 1))
    t = {x.name: x for x in load_suite(d / "misi_bench.yaml").tasks}
    samples, _ = plan(t, "rotation_rotation", brd4, style)
    assert samples
    for s in samples:
        true = tuple(parse_ops(s.program["answer_text"]))
        allowed = set(scheme_distractors(s.program["scheme"], true, t["rotation_rotation"].data))
        for opt in s.program["options"]:
            pr = tuple(parse_ops(opt["text"]))
            assert (pr == true) == opt["correct"] and (opt["correct"] or pr in allowed)


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


def _t8_options(a, b, product, rng):
    from misigen.core.tasks.distractors import move_grid, move_partner
    px = move_partner(a, product, 1.0, rng, lambda x: float(round(x)))
    py = move_partner(b, product, 1.0, rng, lambda x: float(round(x)))
    return move_grid((a, b), (px[1], py[1])), (px[0], py[0])


@pytest.mark.slow      # takes long
def test_product_designs_leave_option_guessers_at_chance(tasks):
    """Simulated: true moves drawn from the spec's own prior of magnitudes (peaked at 2 Å, as H-bond
    offsets are), random signs. The product design (x change × y change, each a sign flip or a
    Metropolis–Hastings magnitude partner) leaves every text-only guesser at 25 %, and needs each
    magnitude in well over a quarter of the questions. Without the acceptance rule the smaller
    magnitude is the answer too often; with MiSI-Bench's perturbations some guessers do far better."""
    from misigen.core.tasks.guessers import text_guessers
    from misigen.core.tasks.distractors import paper_move_distractors, prior_weight
    product = tasks["interaction_location"].data["distractors"]["product"]
    table = product["magnitude_prior"]
    mags = np.arange(1, 13, dtype=float)
    p = np.array([prior_weight(table, m) for m in mags])
    p /= p.sum()
    rng = np.random.default_rng(0)
    naive = dict(product, magnitude_prior=[])
    dd = {"sign_flips": True, "scales": [0.5, 1.5, 2.0], "offsets": [2.0, 3.0, 4.0]}
    hits = {"product": {}, "naive": {}, "paper": {}}
    n, magnitude = 0, np.zeros(2)
    while n < 6000:
        a, b = (float(rng.choice(mags, p=p) * rng.choice([-1, 1])) for _ in range(2))
        grid, kinds = _t8_options(a, b, product, rng)
        magnitude += [k == "magnitude" for k in kinds]
        paper = [(a, b)]
        for c in paper_move_distractors(a, b, dd, rng, lambda x: float(round(x))):
            if all(np.hypot(c[0] - q[0], c[1] - q[1]) >= 2 for q in paper):
                paper.append(c)
            if len(paper) == 4:
                break
        if len(paper) < 4:
            continue
        n += 1
        for opts, store in ((grid, hits["product"]), (_t8_options(a, b, naive, rng)[0], hits["naive"]),
                            (paper, hits["paper"])):
            assert len(set(opts)) == 4
            order = list(rng.permutation(4))
            shuffled = [opts[k] for k in order]
            correct = order.index(0)
            for name, picked in text_guessers([format_ops([Op("move", "x", x), Op("move", "y", y)])
                                               for x, y in shuffled]).items():
                store[name] = store.get(name, 0) + ((1 / len(picked)) if correct in picked else 0)
    for name, k in hits["product"].items():
        assert abs(k / n - 0.25) < 0.02, (name, k / n)
    assert (magnitude / n >= 0.3).all(), magnitude / n
    assert hits["naive"]["smallest move"] / n > 0.29            # why the acceptance rule is there
    assert max(k / n for k in hits["paper"].values()) > 0.4       # the old design had a tell


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
            # MiSI-Bench's distance: far left/right (the clearing distance) ± {0, 1, 2} Å
            assert -2 <= s.program["extra"] <= 2
            # framing: the combined view spans >= 80 % of the width; the ligand views fill the frame
            radii = common.context_for(s_, style).radii(shown)
            assert frame_span(comb.camera, xyz, radii)[0] >= 0.8
            for v in lig:
                sh = shown_for(s_, v)
                assert max(frame_span(v.camera, spec_coords(sh, v), common.context_for(s_, style).radii(sh))) >= 0.8
            classes.add((ops[0].axis, s.program["side"]))
        assert len(classes) == 6
        assert len({tuple(x.key() for x in s.images[:3]) for s in samples}) == 1


def test_docking_pocket_is_the_lining_opened_and_marked(tasks, hivp, style):
    """The pocket shown is the residues lining the site; a pocket view leaves out only lining residues in
    front of the site that cover it; the ring sits where the ligand's centre was and is drawn (sidecar) at
    its projection, ``radius`` Å wide at that depth; the prompt says all of it."""
    from misigen.core.scene.scene_plan import annotate
    d = tasks["docking"].data
    lining, marker = d["pocket"]["lining"], d["pocket"]["site_marker"]
    assert lining > 0 and d["pocket"]["open_front"] and marker is not None
    samples, _ = plan(tasks, "docking", hivp, style)
    heavy = ~hivp.is_hydrogen
    lig = hivp.coords[hivp.ligand & heavy]
    prot = np.nonzero(~hivp.ligand & heavy & ~hivp.is_water)[0]
    near = np.sqrt(((hivp.coords[prot][:, None] - lig[None]) ** 2).sum(-1)).min(axis=1) <= lining
    want = {(str(hivp.chain[i]), int(hivp.resseq[i]), str(hivp.icode[i])) for i in prot[near]}
    s = samples[0]
    comb = s.images[6]
    assert set(map(tuple, comb.residues)) == want
    centre = lig.mean(axis=0)
    for spec in s.images[:3] + [comb]:
        assert set(map(tuple, spec.residues)) <= want and spec.marker is not None
        shown = shown_for(hivp, spec)
        mats = spec.matrices(shown)[0]
        pix, depth = spec.camera.project(geometry.apply(mats["protein"], centre[None]))
        car = annotate(shown, spec, mats)
        assert np.allclose(car["marker"]["point"], pix[0], atol=0.01)
        assert car["marker"]["radius_px"] == pytest.approx(marker["radius"] * spec.camera.pixel_scale(depth)[0], abs=0.01)
    assert s.images[3].marker is None                            # the ligand views carry no ring
    assert "lining the binding site" in s.question and f"within {lining:g} Å" in s.question
    assert "A white ring in images 1–3 and 7" in s.question and f"radius is {marker['radius']:g} Å" in s.question
    # the open front: some view leaves a lining residue out, and only ones in front of the site
    left_out = 0
    for spec in s.images[:3]:
        shown_all = shown_structure(hivp, spec.style, ("protein", "ligand"), comb.residues)
        xyz = spec_coords(shown_all, replace_spec(spec, comb.residues))
        z_site = xyz[shown_all.ligand & ~shown_all.is_hydrogen, 2].mean()
        kept = set(map(tuple, spec.residues))
        for res in want - kept:
            rows = [i for i in range(shown_all.n_atoms) if not shown_all.ligand[i]
                    and (str(shown_all.chain[i]), int(shown_all.resseq[i]), str(shown_all.icode[i])) == res]
            assert xyz[rows, 2].mean() > z_site
            left_out += 1
    assert left_out > 0


def replace_spec(spec, residues):
    from dataclasses import replace
    return replace(spec, parts=("protein", "ligand"), residues=residues)


# ------------------------------------------------------------------ H-bond tasks (real finder)
def test_pocket_ligand_lists_every_hbond(tasks, hivp, style):
    from misigen.core.chemistry.interactions import find_interactions
    samples, fails = plan(tasks, "pocket_ligand_interaction", hivp, style)
    assert len(samples) == 1 and not fails
    truth = {(i.resname, i.resseq, i.icode, i.protein_atom, i.chain, i.ligand_atom)
             for i in find_interactions(hivp) if i.kind == "hbond"}
    assert set(parse_pocket_hbonds(samples[0].answer)) == truth
    assert len(samples[0].images) == 6


@pytest.mark.slow      # takes long
def test_residue_ligand_yes_no_balanced_and_correct(tasks, hivp, style):
    from misigen.core.chemistry.interactions import find_interactions
    from misigen.core.scene.labels import atom_id, ligand_atom_id
    from misigen.core.scene.scene_plan import placed_labels
    hb = [i for i in find_interactions(hivp) if i.kind == "hbond"]
    samples, fails = plan(tasks, "residue_ligand_interaction", hivp, style)
    n_yes_res = len({(i.chain, i.resseq, i.icode) for i in hb})
    assert len(samples) in (min(6, 2 * n_yes_res), 7) and not [f for f in fails if f["category"] == "rejected"]
    yes = [s.answer != "No" for s in samples]
    assert abs(sum(yes) - (len(yes) - sum(yes))) <= 1                   # half Yes (± the odd one)
    assert [a for a, b in zip(yes, yes[1:]) if a == b] == []            # Yes and No alternate
    for s in samples:
        r = s.program["residue"]
        want = sorted((i.resname, i.protein_atom, i.ligand_atom) for i in hb
                      if (i.chain, i.resseq, i.icode) == (r["chain"], r["resseq"], r["icode"]))
        got_yes, pairs = parse_residue_answer(s.answer)
        assert got_yes == bool(want) and sorted(pairs) == want
        key = (r["chain"], r["resseq"], r["icode"])
        assert all(img.residues == (key,) for img in s.images)
        shown = shown_for(hivp, s.images[0])
        assert len({(c, n) for c, n, l in zip(shown.chain, shown.resseq, shown.ligand) if not l}) == 1
        # every atom of the residue and every answer ligand atom is labelled in at least one image
        drawn = set()
        for img in s.images:
            drawn |= {lab["id"] for lab in placed_labels(shown_for(hivp, img), img) if lab["box"] is not None}
        need = {atom_id(*key, n) for n, l, h in zip(shown.name, shown.ligand, shown.is_hydrogen) if not l and not h}
        need |= {ligand_atom_id(p[2]) for p in pairs}
        assert need <= drawn
        assert s.program["negatives"] == "paper" and s.program["min_distance"] <= 10.0


@pytest.mark.slow      # takes long
def test_residue_ligand_matched_negatives(tasks, hivp, style, tmp_path):
    """Hard negatives (misi_plus): each No residue has the type (or class) of a Yes residue and its
    polar atoms sit as close to the ligand's, within the tolerance — so only the geometry decides."""
    d = _copy_specs(tmp_path)
    p = d / "residue_ligand_interaction.yaml"
    p.write_text(p.read_text().replace("mode: paper ", "mode: matched "))
    t = {x.name: x for x in load_suite(d / "misi_bench.yaml").tasks}
    samples, _ = plan(t, "residue_ligand_interaction", hivp, style)
    yes = [s for s in samples if s.answer != "No"]
    no = [s for s in samples if s.answer == "No"]
    assert yes and len(no) == len(yes) or len(no) == len(yes) - 1
    from misigen.core.tasks.shared.hbond import residue_class
    for y, n in zip(yes, no):
        ry, rn = y.program["residue"]["resname"], n.program["residue"]["resname"]
        assert ry == rn or residue_class(ry) == residue_class(rn)
        assert abs(y.program["min_polar_distance"] - n.program["min_polar_distance"]) <= 1.0 + 1e-9
        assert n.program["negatives"] == "matched"


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
    from misigen.core.chemistry.interactions import Interaction
    return Interaction(kind="hbond", protein_index=prot_row, ligand_index=lig_row, chain=str(s.chain[prot_row]),
                       resname=str(s.resname[prot_row]), resseq=int(s.resseq[prot_row]), icode=str(s.icode[prot_row]),
                       protein_atom=str(s.name[prot_row]), ligand_atom=str(s.name[lig_row]), donor="protein",
                       distance=2.9, angles={}, criterion="fake", **kw)


@pytest.mark.slow      # takes long
def test_hbond_tasks_with_fake_finder(tasks, brd4, style, monkeypatch):
    """T4/T8/T9 follow whatever the finder reports (its interface, not its chemistry)."""
    import misigen.core.chemistry.interactions as inter
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
    import misigen.core.chemistry.interactions as inter
    monkeypatch.setattr(inter, "find_interactions", lambda structure, kinds=("hbond",), **kw: [])
    common._CACHE.clear()
    try:
        samples, fails = plan(tasks, "pocket_ligand_interaction", brd4, style)
        assert samples == [] and len(fails) == 1 and "no protein–ligand hydrogen bond" in fails[0]["why"]
        assert set(fails[0]) == {"structure", "task", "sample", "why", "category"}
        assert fails[0]["category"] == "unavailable"
        # MiSI-Bench keeps complexes without H-bonds in its test set: the answer is "No"
        samples, fails = plan(tasks, "pocket_ligand_interaction", brd4, style, split="test")
        assert [s.answer for s in samples] == ["No"] and not fails
        assert score_answer("pocket_ligand_interaction", "No", samples[0].as_record())["exact"] == 1
        assert score_answer("pocket_ligand_interaction", "", samples[0].as_record())["exact"] == 0
        samples, fails = plan(tasks, "residue_ligand_interaction", brd4, style)   # No needs a Yes to balance
        assert samples == [] and all(f["category"] == "unavailable" for f in fails)
    finally:
        common._CACHE.clear()


# ------------------------------------------------------------------ determinism
@pytest.mark.slow      # takes long
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


@pytest.mark.slow      # takes long
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


def test_zooming_is_unavailable_with_an_orthographic_camera(tasks, brd4):
    """move z does not change an orthographic image: no zooming question, and that is not a failure
    of the run (category unavailable, so generate does not exit 3 for it)."""
    from misigen.core.look.style import load_style
    ortho = load_style("misi_bench", {"camera": {"projection": "orthographic"}})
    samples, fails = plan(tasks, "zooming", brd4, ortho)
    assert samples == [] and fails and all(f["category"] == "unavailable" for f in fails)
    assert plan(tasks, "translation", brd4, ortho)[0]
