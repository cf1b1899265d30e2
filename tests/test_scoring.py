"""Scoring rules (MiSI-Bench section 5.1 with fixed normalisers) and lenient reading of model
output: every rule and partial-credit case worked by hand."""
import pytest

from misigen.core.tasks import score_answer
from misigen.core.tasks.predictions import read_prediction
from misigen.core.tasks.scoring import score_row

T1 = {"answer": "move x 3", "program": {"value_range": [-4.0, 4.0]}}
T2 = {"answer": "roll y 15", "program": {"value_range": [-90.0, 90.0]}}
T3 = {"answer": "move z 42", "program": {"value_range": [40.0, 60.0]}}
T7 = {"answer": "roll y 60, move x 29", "program": {"roll_range": [-90.0, 90.0], "move_range": [-34.0, 34.0]}}
T4_POS = {"task": "residue_ligand_interaction", "answer": "Yes: ARG NH2, O1B; ARG NE, O2G", "program": {}}
T4_NEG = {"task": "residue_ligand_interaction", "answer": "No", "program": {}}
T9 = {"answer": "ARG 221 NH2 A, O22; ARG 221 N A, O23", "program": {}}
T9_NONE = {"answer": "No", "program": {}}
T8 = {"answer": "A", "options": ["move x -2, move y 6", "move x 1, move y 6", "move x -2, move y 10",
                                 "move x -4, move y 6"], "program": {}}


def comp(task, pred, rec):
    return score_answer(task, pred, rec)["composite"]


# ------------------------------------------------------------------ cloze (T1, T2)
@pytest.mark.parametrize("pred, expected", [
    ("move x 3", 1.0),
    ("move x -3", 1 - 6 / 8),            # the case: 0.25, not 0.625
    ("move x 1", 1 - 2 / 8),
    ("move x 4", 1 - 1 / 8),
    ("move y 3", 0.0),                   # wrong axis: nothing, not half
    ("roll x 3", 0.0),                   # wrong verb
    ("move x 3, move y 1", 0.0),         # two commands for one
])
def test_translation_composite(pred, expected):
    assert comp("translation", pred, T1) == pytest.approx(expected)


def test_rotation_composite_uses_its_range():
    assert comp("rotation", "roll y -15", T2) == pytest.approx(1 - 30 / 180)
    assert comp("rotation", "roll y 90", T2) == pytest.approx(1 - 75 / 180)
    assert comp("rotation", "roll z 15", T2) == 0.0
    # Far beyond the range: clipped at 0.
    assert comp("translation", "move x -300", T1) == 0.0


def test_zooming_and_choice_are_accuracy():
    assert score_answer("zooming", "move z 43", T3) == {"exact": 0, "composite": 0.0, "unparsed": False,
                                                        "prediction": "move z 43"}
    assert score_answer("zooming", "move z 42", T3)["composite"] == 1.0
    for task in ("translation_rotation", "rotation_rotation", "interaction_location"):
        assert score_answer(task, "B", {"answer": "B", "program": {}})["composite"] == 1.0
        assert score_answer(task, "C", {"answer": "B", "program": {}})["composite"] == 0.0


# ------------------------------------------------------------------ docking (T7)
@pytest.mark.parametrize("pred, expected", [
    ("roll y 60, move x 29", 1.0),
    ("roll y -60, move x -29", 0.5 * (1 - 120 / 180)),           # the case: no move credit
    ("roll y 60, move x -29", 0.5),                               # sign wrong: roll half only
    ("roll x 60, move x 29", 0.5),                                # axis wrong: move half only
    ("roll y 45, move x 25", 0.5 * (1 - 15 / 180) + 0.5 * (1 - 4 / 29)),
    ("roll y 60, move x 70", 0.5 + 0.0),                          # |d̂ − d| > |d|: clipped
    ("roll x 0, move x 0", 0.0),                                  # the constant answer
    ("move x 29, roll y 60", 1.0),                                # halves found by verb ...
    ("roll y 60, move y 29", 0.5),                                # move along the wrong axis
    ("roll y 60, roll y 60, move x 29", 0.5),                     # two rolls: no roll credit
])
def test_docking_composite(pred, expected):
    assert comp("docking", pred, T7) == pytest.approx(expected)


def test_docking_exact_needs_the_stated_order():
    assert score_answer("docking", "roll y 60, move x 29", T7)["exact"] == 1
    assert score_answer("docking", "move x 29, roll y 60", T7)["exact"] == 0   # ... but not for exact


def test_constant_docking_answer_scores_little():
    """A constant 'roll x 0, move x 0' scores little (not 0.53): only a roll about the right axis
    earns anything, and never the move half."""
    recs = [{"answer": f"roll {ax} {a}, move x {d}", "program": {"roll_range": [-90, 90]}}
            for ax in "xyz" for a in (-90, -45, 15, 60) for d in (-29, 25)]
    mean = sum(comp("docking", "roll x 0, move x 0", r) for r in recs) / len(recs)
    assert mean == pytest.approx((1 / 3) * 0.5 * (1 - (90 + 45 + 15 + 60) / 4 / 180))
    assert mean < 0.15


# ------------------------------------------------------------------ H-bond lists (T4, T9)
@pytest.mark.parametrize("pred, composite, f1", [
    ("ARG 221 NH2 A, O22; ARG 221 N A, O23", 1.0, 1.0),
    ("ARG 221 N A, O23; ARG 221 NH2 A, O22", 1.0, 1.0),                           # another order
    ("ARG 221 NH2 A, O22", 1.0, 2 / 3),                                            # one sure bond: precision 1
    ("ARG 221 NH2 A, O22; GLY 1 N A, O1", 0.5, 0.5),                               # half right
    ("ARG 221 NH2 A, O22; ARG 221 N A, O23; GLY 1 N A, O1", 0.5, 0.8),            # all true + extra
    ("ARG 221 NH2 A, O22; GLY 1 N A, O1; GLY 2 N A, O1; GLY 3 N A, O1", 0.25, 1 / 3),
    ("ARG 221 NH2 A, O22; ARG 221 N A, O23; " + "; ".join(f"GLY {k} N A, O1" for k in range(3)), 0.0, 4 / 7),
    ("GLY 1 N A, O1", 0.0, 0.0),
    ("No", 0.0, 0.0),
])
def test_pocket_hbonds(pred, composite, f1):
    s = score_answer("pocket_ligand_interaction", pred, T9)
    assert s["composite"] == pytest.approx(composite) and s["f1"] == pytest.approx(f1)
    assert s["exact"] == int(composite == 1.0 and f1 == 1.0)


def test_more_than_twice_the_truth_scores_zero_even_with_all_true_bonds():
    many = T9["answer"] + "; " + "; ".join(f"GLY {k} N A, O1" for k in range(3))   # 5 > 2 × 2
    assert comp("pocket_ligand_interaction", many, T9) == 0.0
    four = T9["answer"] + "; GLY 1 N A, O1; GLY 2 N A, O1"                          # 4 = 2 × 2: still 0.5
    assert comp("pocket_ligand_interaction", four, T9) == 0.5


def test_no_hbond_truth():
    for task, rec in (("pocket_ligand_interaction", T9_NONE), ("residue_ligand_interaction", T4_NEG)):
        assert score_answer(task, "No", rec) | {} == score_answer(task, "no.", rec)
        assert score_answer(task, "No", rec)["composite"] == 1.0 and score_answer(task, "No", rec)["exact"] == 1
        assert score_answer(task, "", rec)["composite"] == 0.0                       # unanswered
    assert comp("pocket_ligand_interaction", "ARG 221 NH2 A, O22", T9_NONE) == 0.0
    assert comp("residue_ligand_interaction", "Yes: ARG NH2, O1B", T4_NEG) == 0.0
    assert comp("residue_ligand_interaction", "Yes", T4_NEG) == 0.0


def test_residue_hbonds():
    assert comp("residue_ligand_interaction", "No", T4_POS) == 0.0
    assert comp("residue_ligand_interaction", "Yes", T4_POS) == 0.0                 # Yes, but names none
    assert comp("residue_ligand_interaction", "Yes: ARG NH2, O1B", T4_POS) == 1.0   # precision
    assert comp("residue_ligand_interaction", "Yes: ARG NH2, O1B; ARG NE, O1B", T4_POS) == 0.5
    s = score_answer("residue_ligand_interaction", "yes: arg ne, o2g; ARG NH2, O1B", T4_POS)
    assert s["exact"] == 1 and s["composite"] == 1.0 and (s["tp"], s["n_pred"], s["n_true"]) == (2, 2, 2)
    assert score_answer("residue_ligand_interaction", "Yes: ARG NH2, O1B", T4_POS)["f1"] == pytest.approx(2 / 3)
    # A repeated bond counts once.
    s = score_answer("residue_ligand_interaction", "Yes: ARG NH2, O1B; ARG NH2, O1B", T4_POS)
    assert s["n_pred"] == 1 and s["composite"] == 1.0


def test_rows_split_t4_by_true_answer():
    assert score_row(T4_POS) == "residue_ligand_interaction/pos"
    assert score_row(T4_NEG) == "residue_ligand_interaction/neg"
    assert score_row({"task": "docking", "answer": "roll x 15, move x 3"}) == "docking"
    with pytest.raises(ValueError, match="no scoring rule"):
        score_row({"task": "bogus", "answer": "x"})


# ------------------------------------------------------------------ interaction-kind variants
SALT_T4 = {"task": "residue_ligand_salt_bridge", "answer": "Yes",
           "program": {"task_type": "residue_ligand_interaction", "answer_kind": "yesno"}}
SALT_T9 = {"task": "pocket_ligand_salt_bridge", "answer": "ASP 189 A; LYS 70 A",
           "program": {"task_type": "pocket_ligand_interaction", "answer_kind": "residues"}}


def test_yes_no_variant_is_accuracy_and_splits_rows():
    assert score_answer("residue_ligand_salt_bridge", "Yes, it forms one.", SALT_T4)["exact"] == 1
    assert score_answer("residue_ligand_salt_bridge", "no", SALT_T4)["composite"] == 0.0
    assert score_answer("residue_ligand_salt_bridge", "perhaps", SALT_T4)["unparsed"]
    assert score_row(SALT_T4) == "residue_ligand_salt_bridge/pos"
    assert score_row(dict(SALT_T4, answer="No")) == "residue_ligand_salt_bridge/neg"


@pytest.mark.parametrize("pred, composite, f1", [
    ("LYS 70 A; ASP 189 A", 1.0, 1.0),                     # order free
    ("ASP 189 A", 1.0, 2 / 3),                              # precision
    ("ASP 189 A; LYS 70 A; GLU 1 A", 0.5, 0.8),             # all true + extra
    ("ASP 189 A; GLU 1 A", 0.5, 0.5),
    ("ASP 189 A; LYS 70 A; GLU 1 A; GLU 2 A; GLU 3 A", 0.0, 4 / 7),   # more than twice the truth
    ("No", 0.0, 0.0),
])
def test_residue_list_variant_scores_like_hbond_lists(pred, composite, f1):
    s = score_answer("pocket_ligand_salt_bridge", pred, SALT_T9)
    assert s["composite"] == pytest.approx(composite) and s["f1"] == pytest.approx(f1)
    none = dict(SALT_T9, answer="No")
    assert score_answer("pocket_ligand_salt_bridge", "None.", none)["composite"] == 1.0
    assert score_answer("pocket_ligand_salt_bridge", "ASP 189 A", none)["composite"] == 0.0


# ------------------------------------------------------------------ reading model output
@pytest.mark.parametrize("kind, raw, strict", [
    ("letter", "C", "C"), ("letter", "c", "C"), ("letter", "**C**", "C"), ("letter", "Answer: C", "C"),
    ("letter", "(C)", "C"), ("letter", "C.", "C"), ("letter", "Option C", "C"), ("letter", "```\nC\n```", "C"),
    ("letter", "The answer is (B).", "B"), ("letter", "C. move x -2, move y 10", "C"),
    ("letter", "Looking at the images, the ligand sits left of centre.\nFinal answer: D", "D"),
    ("letter", "<think>maybe A?</think>B", "B"),
    ("ops", "roll y 15°", "roll y 15"), ("ops", "roll y 15 degrees", "roll y 15"), ("ops", "move x +3", "move x 3"),
    ("ops", "move x 3 Å.", "move x 3"), ("ops", "MOVE X 3", "move x 3"), ("ops", "  move  x   -3 ", "move x -3"),
    ("ops", "`move x 3`", "move x 3"), ("ops", "move x \u22123", "move x -3"), ("ops", "move x 3.0", "move x 3"),
    ("ops", "Roll X 75, then move x -14", "roll x 75, move x -14"), ("ops", "roll x 75; move x -14", "roll x 75, move x -14"),
    ("ops", "The molecules shifted right by three ångström.\nAnswer: move x 3", "move x 3"),
    ("ops", "I compared image 1 and image 4.\nmove y -2", "move y -2"),
    ("residue", "no.", "No"), ("residue", "No, it forms none.", "No"),
    ("residue", "yes: arg nh2, o1b; arg ne, o2g.", "Yes: ARG NH2, O1B; ARG NE, O2G"),
    ("residue", "Yes:\n- ARG NH2, O1B\n- ARG NE, O2G", "Yes: ARG NH2, O1B; ARG NE, O2G"),
    ("pocket", "ARG 221 NH2 A, O22; ARG 221 N A, O23.", "ARG 221 NH2 A, O22; ARG 221 N A, O23"),
    ("pocket", "1. ARG 221 NH2 A, O22\n2. arg 221 n a, o23", "ARG 221 NH2 A, O22; ARG 221 N A, O23"),
    ("pocket", "Answer: ARG 221 NH2 A, O22", "ARG 221 NH2 A, O22"), ("pocket", "None.", "No"),
    ("yesno", "**Yes**", "Yes"), ("yesno", "no.", "No"), ("yesno", "Answer: yes, a salt bridge", "Yes"),
    ("residues", "asp 189 a; LYS 70 A.", "ASP 189 A; LYS 70 A"), ("residues", "- ASP 189 A\n- LYS 70 A", "ASP 189 A; LYS 70 A"),
    ("residues", "No", "No"),
])
def test_lenient_reading(kind, raw, strict):
    assert read_prediction(kind, raw) == strict


@pytest.mark.parametrize("kind, raw", [
    ("letter", "A or B"), ("letter", "E"), ("letter", "AB"), ("letter", ""), ("letter", None),
    ("ops", "move w 3"), ("ops", "move x three"), ("ops", "shift x 3"), ("ops", "move x 3 to the right"),
    ("ops", "turn it a bit"), ("residue", "maybe"), ("residue", "No: ARG NH2, O1B"), ("residue", "Yes: ARG 221 NH2, O1B"),
    ("pocket", "ARG NH2, O22"), ("pocket", "ARG 221 NH2 A O22"), ("pocket", "   "),
    ("yesno", "maybe"), ("yesno", "No idea"), ("yesno", "Yes and no"), ("yesno", "yes, no"),
    ("residues", "ASP 189"), ("residues", "ASP A 189"),
])
def test_strict_about_content(kind, raw):
    assert read_prediction(kind, raw) is None


def test_unparsed_is_flagged_and_scores_zero():
    s = score_answer("translation", "the molecules moved", T1)
    assert s == {"exact": 0, "composite": 0.0, "unparsed": True, "prediction": None}
    s = score_answer("pocket_ligand_interaction", "lots of bonds", T9)
    assert s["unparsed"] and s["composite"] == 0.0 and s["f1"] == 0.0 and s["n_true"] == 2


def test_option_text_reads_as_its_letter():
    assert score_answer("interaction_location", "move x -2, move y 6", T8)["exact"] == 1
    assert score_answer("interaction_location", "move x 1, move y 6.", T8)["prediction"] == "B"
    assert score_answer("interaction_location", "move x 9, move y 9", T8)["unparsed"]


@pytest.mark.slow      # takes long
@pytest.mark.parametrize("suite", ["misi_bench", "misi_plus"])
def test_every_stated_answer_scores_exact_one(tmp_path, examples, suite, fast_style):
    """Each record's own answer is perfect; an empty prediction scores 0 — for every task a
    planned dataset holds (misi_plus: interaction-kind variants with Yes/No and residue lists)."""
    import json

    from misigen.core.resources import suite_path
    from misigen.pipeline.generate import run_generate
    from misigen.pipeline.run_config import RunConfig

    style = fast_style
    run_generate(RunConfig([examples], tmp_path, suite=suite_path(suite), style=style, split="test", seed=5,
                           render=False, progress=False))
    recs = [json.loads(l) for l in (tmp_path / "annotations.jsonl").read_text().splitlines()]
    assert {r["task"] for r in recs} >= {"translation", "docking", "pocket_ligand_interaction"}
    if suite == "misi_plus":
        kinds = {r["program"].get("answer_kind") for r in recs}
        assert {"yesno", "residues"} <= kinds
    for r in recs:
        s = score_answer(r["task"], r["answer"], r)
        assert s["exact"] == 1 and s["composite"] == 1.0 and not s["unparsed"], (r["id"], s)
        e = score_answer(r["task"], "", r)
        assert e["exact"] == 0 and e["composite"] == 0.0, (r["id"], e)


def test_validate_wants_canonical_answers(tmp_path, examples, fast_style):
    """Scoring reads predictions leniently; a dataset's own answers must still be canonical."""
    import json

    from misigen.core.resources import suite_path
    from misigen.pipeline.generate import run_generate
    from misigen.pipeline.run_config import RunConfig
    from misigen.pipeline.validate import validate_dataset

    style = fast_style
    run_generate(RunConfig([examples / "wagner_brd4"], tmp_path, suite=suite_path("misi_bench"), style=style,
                           split="test", seed=5, tasks=["translation"], render=False, progress=False))
    path = tmp_path / "annotations.jsonl"
    lines = path.read_text().splitlines()
    rec = json.loads(lines[0])
    rec["answer"] = rec["answer"].replace(" ", "  ")                # reads as the right answer ...
    lines[0] = json.dumps(rec)
    path.write_text("\n".join(lines) + "\n")
    problems = [p for p in validate_dataset(tmp_path)             # plan only: no images; the file changed
                if "image missing" not in p and "annotations_sha256" not in p]
    assert len(problems) == 1 and "annotations.jsonl:1" in problems[0]
    assert "not in canonical form" in problems[0]                   # ... but is not written as one
