"""Every question answerable from its images: legible labels, chains, framing.

The labels of a sidecar are ``core.scene.scene_plan.placed_labels`` (``annotate`` writes exactly what
it returns), so these rules are checked here at 256² and 512² without rendering; the rendered
dataset in test_generate.py checks the written sidecars too.
"""
import numpy as np
import pytest

from misigen.core.scene.labels import atom_id, ligand_atom_id, residue_id
from misigen.core.scene.scene_plan import placed_labels, shown_structure
from misigen.core.look.style import load_style
from misigen.core.tasks import PartnerCatalog, load_suite, plan_samples
from misigen.core.tasks.answers import parse_pocket_hbonds, parse_residue_answer

from test_tasks import SUITE

HB_TASKS = ("residue_ligand_interaction", "interaction_location", "pocket_ligand_interaction")


def sidecars(structures, sample):
    out = []
    for spec in sample.render_specs():
        shown = shown_structure(structures[spec.structure_id], spec.style, spec.parts, spec.residues)
        labels = [lab for lab in placed_labels(shown, spec) if lab["box"] is not None]
        out.append({"key": spec.key(), "width": spec.camera.width, "height": spec.camera.height, "labels": labels})
    return out


def check_boxes(side, gap):
    boxes = np.array([lab["box"] for lab in side["labels"]]).reshape(-1, 4)
    assert (boxes[:, 0] >= 0).all() and (boxes[:, 1] >= 0).all()
    assert (boxes[:, 2] <= side["width"]).all() and (boxes[:, 3] <= side["height"]).all()
    for i in range(len(boxes)):
        a = boxes[i]
        b = boxes[i + 1:]
        clash = (a[0] < b[:, 2] + gap) & (b[:, 0] < a[2] + gap) & (a[1] < b[:, 3] + gap) & (b[:, 1] < a[3] + gap)
        assert not clash.any(), (side["key"], a, b[clash])


def needed_names(sample, structure) -> set:
    """Label ids every reader needs to answer (T4: the residue's atoms and the answer's ligand atoms;
    T8/T9: each answer bond's residue and ligand atom)."""
    p = sample.program
    if sample.task == "residue_ligand_interaction":
        r = p["residue"]
        key = (r["chain"], r["resseq"], r["icode"])
        rows = (structure.chain == key[0]) & (structure.resseq == key[1]) & (structure.icode == key[2]) & \
            ~structure.ligand & ~structure.is_hydrogen
        need = {atom_id(*key, n) for n in structure.name[rows]}
        return need | {ligand_atom_id(b[2]) for b in parse_residue_answer(sample.answer)[1]}
    bonds = [p["hbond"]] if sample.task == "interaction_location" else p["hbonds"]
    return {residue_id(b["chain"], b["resseq"], b["icode"]) for b in bonds} | \
        {ligand_atom_id(b["ligand_atom"]) for b in bonds}


@pytest.mark.slow      # takes long
@pytest.mark.parametrize("size", [256, 512])
def test_labels_legible_and_answers_readable(brd4, hivp, size):
    style = load_style("misi_bench", {"render": {"resolution": [size, size]}})
    tasks = {t.name: t for t in load_suite(SUITE).tasks}
    structures = {brd4.id: brd4, hivp.id: hivp}
    partners = PartnerCatalog({k: "test" for k in structures}, lambda i: structures[i])
    gap = style["labels"]["gap_px"]
    made = 0
    for st in (brd4, hivp):
        for name in HB_TASKS + ("translation", "translation_rotation"):
            samples, fails = plan_samples(tasks[name], st, style, "test", 1, partners)
            assert not [f for f in fails if f["category"] == "rejected"], fails
            for s in samples:
                sides = sidecars(structures, s)
                for side in sides:
                    check_boxes(side, gap)
                if name in HB_TASKS:
                    drawn = {lab["id"] for side in sides for lab in side["labels"]}
                    assert needed_names(s, st) <= drawn, (s.id, needed_names(s, st) - drawn)
                    made += 1
    assert made >= 10


def test_chains_are_labelled_and_explained(hivp, style):
    """1HVI is a homodimer (GLY 48 in chains A and B): residue labels carry the chain ('GLY 48.B'),
    and the prompt says how to read them; answers name the chain the label shows."""
    tasks = {t.name: t for t in load_suite(SUITE).tasks}
    samples, _ = plan_samples(tasks["pocket_ligand_interaction"], hivp, style, "test", 0)
    (s,) = samples
    sides = sidecars({hivp.id: hivp}, s)
    texts = {lab["text"] for side in sides for lab in side["labels"] if lab["kind"] == "residue"}
    assert {"GLY 48.A", "GLY 48.B"} <= texts and all("." in t for t in texts)
    assert "followed by a dot and its chain" in s.question
    for res, num, _ic, _patom, chain, _latom in parse_pocket_hbonds(s.answer):
        assert f"{res} {num}.{chain}" in texts


def test_single_chain_prompt_names_the_chain(brd4, style):
    tasks = {t.name: t for t in load_suite(SUITE).tasks}
    (s,) = plan_samples(tasks["pocket_ligand_interaction"], brd4, style, "test", 0)[0]
    chains = sorted(set(brd4.chain[~brd4.ligand]))
    assert f"All residues shown belong to chain {chains[0]}." in s.question
    texts = {lab["text"] for side in sidecars({brd4.id: brd4}, s) for lab in side["labels"] if lab["kind"] == "residue"}
    assert texts and not any("." in t for t in texts)


def _box_gap(box, u, v):
    du = max(box[0] - u, u - box[2], 0.0)
    dv = max(box[1] - v, v - box[3], 0.0)
    return float(np.hypot(du, dv))


@pytest.mark.slow      # takes long
@pytest.mark.parametrize("size", [256, 512])
def test_labels_touch_their_atom_or_have_a_leader(brd4, hivp, size):
    """A drawn label is within ``touch_px`` of its anchor atom, or carries a leader line
    that starts on its box, ends on the atom's rim and crosses no other label or leader."""
    from misigen.core.scene.labels import line_pixels
    from misigen.core.scene.scene_plan import posed_coords
    from misigen.core.look.style import atom_radii

    style = load_style("misi_bench", {"render": {"resolution": [size, size]}})
    touch = style["labels"]["touch_px"]
    tasks = {t.name: t for t in load_suite(SUITE).tasks}
    structures = {brd4.id: brd4, hivp.id: hivp}
    partners = PartnerCatalog({k: "test" for k in structures}, lambda i: structures[i])
    n_labels = n_leaders = far = 0
    for st in (brd4, hivp):
        for name in ("translation", "pocket_ligand_interaction", "residue_ligand_interaction"):
            for s in plan_samples(tasks[name], st, style, "test", 0, partners)[0]:
                for spec in s.render_specs():
                    shown = shown_structure(structures[spec.structure_id], spec.style, spec.parts, spec.residues)
                    xyz = posed_coords(shown, spec.matrices(shown)[0])
                    pix, depth = spec.camera.project(xyz)
                    r_px = atom_radii(shown, style) * spec.camera.pixel_scale(depth)
                    drawn = [lab for lab in placed_labels(shown, spec) if lab["box"] is not None]
                    boxes = np.zeros((size, size), bool)
                    for lab in drawn:
                        b = lab["box"]
                        boxes[b[1]:b[3], b[0]:b[2]] = True
                    lines = np.zeros((size, size), int)
                    for k, lab in enumerate(drawn):
                        n_labels += 1
                        u, v = pix[lab["atom"]]
                        gap = _box_gap(lab["box"], u, v)
                        if lab["leader"] is None:
                            far += gap > touch
                            continue
                        n_leaders += 1
                        (a, b), (c, d) = lab["leader"]
                        assert gap > touch, lab                                 # only labels that cannot touch
                        assert _box_gap(lab["box"], a, b) < 0.1, lab            # starts on its own box
                        assert abs(np.hypot(c - u, d - v) - min(r_px[lab["atom"]], gap - 1)) < 0.2, lab
                        vs, us = line_pixels(lab["leader"], size, size)
                        own = np.zeros((size, size), bool)
                        own[lab["box"][1]:lab["box"][3], lab["box"][0]:lab["box"][2]] = True
                        assert not (boxes & ~own)[vs, us].any(), lab            # crosses no other label
                        assert not (lines[vs, us] > 0).any(), lab               # nor another leader
                        lines[vs, us] = k + 1
    assert n_labels > 500 and n_leaders > 0
    assert far == 0, f"{far} of {n_labels} labels far from their atom without a leader"


def test_scale_bar_measures_angstroms_at_the_centre(brd4):
    """The sidecar's scale bar is ``length`` Å long at the depth of the centre of
    rotation, in the bottom-left corner, and no label comes near it."""
    from misigen.core.scene.scene_plan import annotate, rotation_centre
    from misigen.pipeline.views import plan_views

    style = load_style("misi_bench", {"render": {"resolution": [512, 512]}, "scale_bar": {"enabled": True}})
    shown = shown_structure(brd4, style)
    for _view, spec, mats in plan_views(shown, style, ["front", "left"], "move z 5"):
        side = annotate(shown, spec, mats)
        bar = side["scale_bar"]
        (u0, v0), (u1, v1) = bar["points"]
        assert v0 == v1 and u0 < u1 and u0 < 40 and v0 > 512 - 30           # horizontal, bottom left
        centre = rotation_centre(shown)
        depth = spec.camera.position[2] - centre[2]
        # a segment of ``length`` Å at the centre's depth projects to the bar's pixel length
        ends = np.array([centre, centre + [bar["length"], 0, 0]])
        pix, _ = spec.camera.project(ends)
        assert abs((u1 - u0) - (pix[1, 0] - pix[0, 0])) < 0.05
        assert bar["length"] == 5.0 and abs(bar["depth"] - depth) < 1e-3
        b = bar["box"]
        for lab in side["labels"]:
            a = lab["box"]
            assert not (a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]), lab
    off = load_style("misi_bench")
    _view, spec, mats = plan_views(shown_structure(brd4, off), off, ["front"], None)[0]
    assert annotate(shown_structure(brd4, off), spec, mats)["scale_bar"] is None


@pytest.mark.slow      # takes long
def test_misi_plus_states_the_zoom_geometry_and_draws_a_scale_bar(brd4):
    """misi_plus images carry the scale bar and its zooming prompt states the camera's
    distance to the centre of rotation (so the zoom follows from the images: scale ratio D / (D - d));
    misi_bench keeps MiSI-Bench's look and prompt."""
    import re
    from pathlib import Path
    from misigen.core.scene.scene_plan import annotate

    root = Path(SUITE).parent
    style = load_style("misi_bench", {"render": {"resolution": [256, 256]}})
    plus = {t.name: t for t in load_suite(root / "misi_plus.yaml").tasks}
    bench = {t.name: t for t in load_suite(root / "misi_bench.yaml").tasks}
    samples, _ = plan_samples(plus["zooming"], brd4, style, "test", 0)
    assert samples
    for s in samples:
        m = re.search(r"lies ([0-9.]+) Å in front of the camera", s.question)
        assert m, s.question
        start, after = s.images[0], s.images[-1]
        shown = shown_structure(brd4, start.style, start.parts, start.residues)
        centre = np.asarray(s.program["centre"])
        assert abs(float(m.group(1)) - (after.camera.position[2] - centre[2])) < 0.06
        for spec in s.images:
            assert spec.style["scale_bar"]["enabled"]
            bar = annotate(shown, spec, spec.matrices(shown)[0])["scale_bar"]
            assert bar is not None and abs(bar["depth"] - (spec.camera.position[2] - centre[2])) < 1e-2
    (b, *_), _ = plan_samples(bench["zooming"], brd4, style, "test", 0)
    assert "Å in front of the camera along its line of sight" not in b.question and not b.images[0].style["scale_bar"]["enabled"]


def _label_sides(structures, sample, homes: bool = True) -> list[dict]:
    """label id → side of its atom (core.scene.labels.label_side) for each image of a sample; ``homes``
    False: each image laid out on its own, with no homes."""
    from misigen.core.scene.labels import label_items, label_side, layout_labels
    from misigen.core.scene.scene_plan import _layout_inputs, posed_coords
    out = []
    for spec in sample.render_specs():
        shown = shown_structure(structures[spec.structure_id], spec.style, spec.parts, spec.residues)
        xyz = posed_coords(shown, spec.matrices(shown)[0])
        if homes:
            placed = placed_labels(shown, spec)
        else:
            v = _layout_inputs(shown, spec, xyz)
            placed = layout_labels(label_items(shown, spec.labels), v["pixels"], v["in_front"], spec.style,
                                   v["width"], v["height"], v["obstacles"], set(spec.labels.first), v["radius_px"],
                                   v["reserved"])
        pix, _ = spec.camera.project(xyz)
        out.append({lab["id"]: label_side(lab["box"], *pix[lab["atom"]]) for lab in placed if lab["box"] is not None})
    return out


def side_agreement(per_image: list[dict]) -> tuple[list, list]:
    """Per label drawn in two or more of one question's images: whether its side is the same in
    all of them, and the share of image pairs in which it is the same."""
    seen: dict = {}
    for sides in per_image:
        for lid, side in sides.items():
            seen.setdefault(lid, []).append(side)
    same, pairs = [], []
    for got in (g for g in seen.values() if len(g) > 1):
        same.append(len(set(got)) == 1)
        pairs.append(np.mean([a == b for i, a in enumerate(got) for b in got[i + 1:]]))
    return same, pairs


@pytest.mark.slow      # takes long
def test_labels_keep_their_side_across_a_question(complexes):
    """A label sits on the same side of its atom in every image of a question where that side has
    room (core.scene.labels.label_homes: one home per label and scene, from its six canonical views), so a
    reader can follow it from image to image. Measured on T4 and T9 of shared complexes at 256², where
    labels crowd, against the same images laid out each on its own."""
    from misigen.core.structure.loader import discover, load_structure
    style = load_style("misi_bench", {"render": {"resolution": [256, 256]}})
    tasks = {t.name: t for t in load_suite(SUITE).tasks}
    paths = [complexes / "paired" / n for n in ("bace", "cdk2", "tyk2")] + [complexes / "pdb" / "1hvi.pdb"]
    structures = {s.id: s for s in (load_structure(discover([p])[0]) for p in paths)}
    for name, min_same, min_pairs in (("residue_ligand_interaction", 0.55, 0.8),
                                      ("pocket_ligand_interaction", 0.7, 0.85)):
        kept = {True: ([], []), False: ([], [])}
        for st in structures.values():
            for s in plan_samples(tasks[name], st, style, "test", 0, None)[0]:
                for homes, (same, pairs) in kept.items():
                    got = side_agreement(_label_sides(structures, s, homes))
                    same += got[0]
                    pairs += got[1]
        (same, pairs), (alone, alone_pairs) = kept[True], kept[False]
        assert len(same) > 200, name
        assert np.mean(same) >= min_same and np.mean(pairs) >= min_pairs, (name, np.mean(same), np.mean(pairs))
        assert np.mean(alone) < 0.2 and np.mean(alone_pairs) < 0.5, (name, np.mean(alone), np.mean(alone_pairs))


def test_polar_contacts_are_labelled_first_whatever_the_answer(brd4, hivp, style):
    """misi_bench places the labels of the pocket's polar contacts first (``labels.polar_contacts_first``):
    the names of every H-bond T9 asks about lead the plan, and the plan is the one every pocket view
    of the suite carries (translation's too), so it says nothing about which atoms bond."""
    from misigen.core.tasks.base import polar_contacts_first
    tasks = {t.name: t for t in load_suite(SUITE).tasks}
    assert tasks["pocket_ligand_interaction"].settings.polar_contact_labels_first == 4.0
    for st in (brd4, hivp):
        t9 = plan_samples(tasks["pocket_ligand_interaction"], st, style, "test", 0)[0][0]
        t1 = plan_samples(tasks["translation"], st, style, "test", 0)[0][0]
        plan = t9.images[0].labels
        assert plan == t1.images[0].labels
        ligand, residues = polar_contacts_first(shown_structure(st, style), 4.0)
        assert plan.first[:len(ligand) + len(residues)] == tuple(ligand + residues)
        assert needed_names(t9, st) <= set(ligand + residues), needed_names(t9, st) - set(ligand + residues)
        assert len(residues) < len({lab for lab in plan.first if lab.startswith("res ")})   # fewer than the contacts


@pytest.mark.slow      # plans T9 on every shared complex
def test_t9_loses_no_sample_for_a_label_at_256(complexes):
    """With the pocket's polar contacts labelled first, no T9 sample of the shared complexes is
    rejected at 256² because a label its answer needs is not drawn (both splits)."""
    from misigen.core.errors import InputError
    from misigen.core.structure.loader import discover, load_structure
    style = load_style("misi_bench", {"render": {"resolution": [256, 256]}})
    t9 = {t.name: t for t in load_suite(SUITE).tasks}["pocket_ligand_interaction"]
    planned, lost = 0, []
    for item in discover([complexes / "pdb", complexes / "paired"]):
        try:
            st = load_structure(item)
        except InputError:
            continue                    # the shared set holds a few apo entries (no ligand)
        for split in ("test", "train"):
            samples, fails = plan_samples(t9, st, style, split, 0, None)
            planned += len(samples)
            lost += [(st.id, f["why"]) for f in fails if f["category"] != "unavailable"]
    assert planned >= 40 and not lost, lost
