"""Every question answerable from its images (issue 9): legible labels, chains, framing.

The labels of a sidecar are ``core.scene_plan.placed_labels`` (``annotate`` writes exactly what
it returns), so these rules are checked here at 256² and 512² without rendering; the rendered
dataset in test_generate.py checks the written sidecars too.
"""
import numpy as np
import pytest

from misigen.core.labels import atom_id, ligand_atom_id, residue_id
from misigen.core.scene_plan import placed_labels, shown_structure
from misigen.core.style import load_style
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


@pytest.mark.parametrize("size", [256, 512])
def test_labels_legible_and_answers_readable(brd4, hivp, size):
    style = load_style("misi_bench", {"render": {"resolution": [size, size]}})
    tasks = {t.name: t for t in load_suite(SUITE)}
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
    tasks = {t.name: t for t in load_suite(SUITE)}
    samples, _ = plan_samples(tasks["pocket_ligand_interaction"], hivp, style, "test", 0)
    (s,) = samples
    sides = sidecars({hivp.id: hivp}, s)
    texts = {lab["text"] for side in sides for lab in side["labels"] if lab["kind"] == "residue"}
    assert {"GLY 48.A", "GLY 48.B"} <= texts and all("." in t for t in texts)
    assert "followed by a dot and its chain" in s.question
    for res, num, _ic, _patom, chain, _latom in parse_pocket_hbonds(s.answer):
        assert f"{res} {num}.{chain}" in texts


def test_single_chain_prompt_names_the_chain(brd4, style):
    tasks = {t.name: t for t in load_suite(SUITE)}
    (s,) = plan_samples(tasks["pocket_ligand_interaction"], brd4, style, "test", 0)[0]
    chains = sorted(set(brd4.chain[~brd4.ligand]))
    assert f"All residues shown belong to chain {chains[0]}." in s.question
    texts = {lab["text"] for side in sidecars({brd4.id: brd4}, s) for lab in side["labels"] if lab["kind"] == "residue"}
    assert texts and not any("." in t for t in texts)
