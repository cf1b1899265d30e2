"""Interaction kinds beyond H-bonds as T4/T8/T9 questions and the misi_plus suite."""
import json

import numpy as np
import pytest

from misigen.core.scene import geometry
from misigen.core.op_grammar import parse_ops
from misigen.core.chemistry.interactions import find_interactions
from misigen.core.structure.loader import discover, load_structure
from misigen.core.tasks import load_suite, plan_samples, score_answer
from misigen.core.tasks.answers import canonical, format_residues, parse_residues, parse_yesno
from misigen.core.tasks.common import context_for, spec_coords
from misigen.core.scene.scene_plan import shown_structure

from test_tasks import ROOT

PLUS = ROOT / "task_specs" / "misi_plus.yaml"


@pytest.fixture(scope="module")
def plus():
    return {t.name: t for t in load_suite(PLUS).tasks}


@pytest.fixture(scope="module")
def ptp1b(complexes):
    return load_structure(discover([complexes / "paired" / "ptp1b"])[0])


def test_misi_plus_suite_has_variants_and_matched_negatives(plus):
    assert plus["residue_ligand_interaction"].data["negatives"]["mode"] == "matched"
    kinds = {n: t.data["interaction"]["kind"] for n, t in plus.items() if "interaction" in t.data}
    assert kinds["residue_ligand_salt_bridge"] == "salt_bridge" and kinds["pocket_ligand_pi_stacking"] == "pi_stacking"
    assert plus["pocket_ligand_hydrophobic"].type == "pocket_ligand_interaction"


def test_answer_forms_round_trip():
    rows = [{"chain": "A", "resname": "LYS", "resseq": 120, "icode": ""},
            {"chain": "A", "resname": "ARG", "resseq": 24, "icode": ""}]
    text = format_residues(rows)
    assert text == "ARG 24 A; LYS 120 A" and parse_residues(text) == [("ARG", 24, "", "A"), ("LYS", 120, "", "A")]
    assert format_residues([]) == "No" and parse_residues("no.") == []
    assert canonical("residues", "lys 120 a;  ARG 24 A") == text
    assert parse_yesno(" yes. ") and not parse_yesno("No")
    with pytest.raises(ValueError):
        parse_residues("")
    rec = {"answer": text, "program": {"task_type": "pocket_ligand_interaction", "answer_kind": "residues"}}
    s = score_answer("pocket_ligand_salt_bridge", "LYS 120 A; ARG 24 A", rec)
    assert (s["exact"], s["composite"]) == (1, 1.0)
    assert score_answer("pocket_ligand_salt_bridge", "LYS 120 A", rec)["exact"] == 0
    yn = {"answer": "Yes", "program": {"task_type": "residue_ligand_interaction", "answer_kind": "yesno"}}
    assert score_answer("residue_ligand_salt_bridge", "yes", yn)["exact"] == 1
    assert score_answer("residue_ligand_salt_bridge", "No", yn)["composite"] == 0.0


def test_salt_bridge_variants_follow_the_finder(plus, ptp1b, style):
    """PTP1B's ligand makes salt bridges (Lys120, Arg221): T9's variant lists exactly the finder's
    residues, T4's says Yes exactly for them, and the prompt states the criterion's number."""
    truth = {(i.resname, int(i.resseq), i.icode, i.chain) for i in find_interactions(ptp1b, kinds=("salt_bridge",))}
    assert truth
    (t9,), fails = plan_samples(plus["pocket_ligand_salt_bridge"], ptp1b, style, "test", 0)
    assert set(parse_residues(t9.answer)) == truth and t9.id.startswith("pocket_ligand_salt_bridge-")
    assert t9.program["task_type"] == "pocket_ligand_interaction" and t9.program["answer_kind"] == "residues"
    assert "at most 5.5 Å apart" in t9.question and "salt bridges" in t9.question
    assert score_answer(t9.task, t9.answer, t9.as_record())["exact"] == 1
    t4, _ = plan_samples(plus["residue_ligand_salt_bridge"], ptp1b, style, "test", 0)
    assert t4
    for s in t4:
        r = s.program["residue"]
        assert parse_yesno(s.answer) == ((r["resname"], r["resseq"], r["icode"], r["chain"]) in truth)
        assert "salt bridge" in s.question


def test_location_of_a_salt_bridge_centres_its_groups(plus, ptp1b, style, tmp_path):
    """T8 with another kind: the centre is the midpoint of the two groups' centroids, and the correct
    option's moves bring it to the image centre."""
    text = (ROOT / "task_specs" / "interaction_location.yaml").read_text()
    spec = tmp_path / "interaction_location.yaml"
    spec.write_text(text.replace("views: [front", "interaction: {kind: salt_bridge}\nviews: [front")
                    .replace("prompt: prompts/", f"prompt: {ROOT / 'task_specs' / 'prompts'}/"))
    from misigen.core.tasks import load_task_spec
    task = load_task_spec(spec, plus["interaction_location"].settings)
    samples, _ = plan_samples(task, ptp1b, style, "test", 0)
    assert samples
    ctx = context_for(ptp1b, style)
    for s in samples:
        it = next(i for i in ctx.interactions("salt_bridge")
                  if (i.chain, i.resseq, i.protein_atom, i.ligand_atom) ==
                  (s.program["hbond"]["chain"], s.program["hbond"]["resseq"], s.program["hbond"]["protein_atom"],
                   s.program["hbond"]["ligand_atom"]))
        p_rows, l_rows = ctx.group_rows(it)
        assert len(p_rows) + len(l_rows) >= 3                # charged groups, not just two atoms
        shown = shown_structure(ptp1b, style)
        rows = ctx.row_map(shown)
        xyz = spec_coords(shown, s.images[0])
        mid = (xyz[[rows[r] for r in p_rows]].mean(0) + xyz[[rows[r] for r in l_rows]].mean(0)) / 2
        m, _ = geometry.compose(parse_ops(s.options["ABCD".index(s.answer)]), np.zeros(3))
        end = s.images[0].camera.to_camera(geometry.apply(m, mid[None]))[0]
        assert np.abs(end[:2]).max() <= 0.5 + 1e-9
        assert "salt bridge" in s.question


@pytest.mark.slow      # runs run_blender.py in a subprocess
def test_misi_plus_generates_and_validates(tmp_path, examples, cli):
    out = tmp_path / "plus"
    res = cli("generate", "--suite", PLUS, "--structures", examples, "--out", out, "--split", "test",
              "--plan-only", "--resolution", "256", "256")
    assert res.returncode == 0, res.stderr
    recs = [json.loads(l) for l in (out / "annotations.jsonl").read_text().splitlines()]
    tasks = {r["task"] for r in recs}
    assert {"pocket_ligand_hydrophobic", "residue_ligand_hydrophobic", "residue_ligand_interaction"} <= tasks
    from misigen.pipeline.validate import validate_dataset
    problems = [p for p in validate_dataset(out) if "image missing" not in p]
    assert problems == []
