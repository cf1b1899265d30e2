"""The audit: blind guessers judged against chance with a confidence bound (issue 8)."""
import json

import numpy as np
import pytest

from misigen.core.audit import audit_records, format_audit, image_guessers, text_guessers, wilson_lower


def test_wilson_lower_bound():
    assert wilson_lower(0, 10, 0.99) == 0.0
    assert 0.3 < wilson_lower(50, 100, 0.99) < 0.5 < wilson_lower(500, 1000, 0.99) + 0.05
    # more data, tighter bound
    assert wilson_lower(30, 100, 0.99) < wilson_lower(300, 1000, 0.99) < 0.3


def _choice(answer, options, task="interaction_location"):
    return {"id": f"{task}-{len(options)}", "task": task, "answer": answer, "options": options,
            "images": [], "program": {"kind": "location", "correct": answer}}


def test_text_guessers_pick_and_share_ties():
    opts = ["move x 1, move y 1", "move x -1, move y -1", "move x 5, move y 2", "move x -5, move y -2"]
    g = text_guessers(opts)
    assert g["smallest move"] == [0, 1] and g["largest move"] == [2, 3]


def test_a_tell_is_flagged_and_a_fair_design_is_not():
    rng = np.random.default_rng(1)
    tell, fair = [], []
    for k in range(300):
        a, b = int(rng.integers(1, 6)), int(rng.integers(1, 6)) + 6
        # "tell": the answer is always the smallest move of its options (as MiSI-style decoys make it)
        opts = [f"move x {a}, move y {b}", f"move x {a + 3}, move y {b}", f"move x {a}, move y {b + 4}",
                f"move x {a + 3}, move y {b + 4}"]
        letter = "ABCD"[k % 4]
        order = [opts[0]] + opts[1:]
        order.insert("ABCD".index(letter), order.pop(0))
        tell.append(_choice(letter, order))
        # fair: the orbit {(a,b), (-a,-b), (b,a), (-b,-a)} with the answer any member
        grid = [(a, b), (-a, -b), (b, a), (-b, -a)]
        true = int(rng.integers(4))
        fair.append(_choice("ABCD"[true], [f"move x {x}, move y {y}" for x, y in grid]))
    bad = audit_records(tell, None, {"margin": 0.05, "confidence": 0.99})
    assert not bad["ok"] and any(f["guesser"] == "smallest move" for f in bad["flagged"])
    good = audit_records(fair, None, {"margin": 0.05, "confidence": 0.99})
    assert good["ok"], good["flagged"]
    # a known shortcut is reported as known and does not fail the audit
    known = audit_records(tell, None, {"margin": 0.05, "confidence": 0.99, "known_shortcuts": [
        {"task": "interaction_location", "guesser": g, "reason": "test"} for g in
        ("smallest move", "most central", "nearest the median", "least shared values", "most shared values",
         "odd one out", "largest move")]})
    assert known["ok"] and known["known"]


def test_residue_type_guesser_and_repeats():
    recs = []
    for k in range(200):
        polar = k % 2 == 0
        yes = polar if k % 10 else not polar           # 90 % of polar residues say Yes
        recs.append({"id": f"r{k}", "task": "residue_ligand_interaction", "answer": "Yes: SER OG, O1" if yes else "No",
                     "images": [f"images/a{k}.png", f"images/b{k}.png"], "options": None,
                     "program": {"kind": "residue_hbonds", "has_hbond": yes,
                                 "residue": {"resname": "SER" if polar else "LEU"}, "min_polar_distance": 3.0}})
    recs[0]["images"] = ["images/x.png", "images/x.png"]
    rep = audit_records(recs, None, {"margin": 0.05, "confidence": 0.99})
    names = {f["guesser"] for f in rep["flagged"]}
    assert "residue type (leave-one-out)" in names and rep["repeated_images"] == 1 and not rep["ok"]


def test_image_guessers_odd_one_out():
    base = np.zeros((8, 8))
    opts = [base, base + 0.01, base + 0.02, base + 1.0]
    g = image_guessers(opts, {"the reference after": base + 1.0})
    assert g["odd one out (pixels)"] == [3] and g["nearest to the reference after"] == [3]


@pytest.mark.slow      # runs run_blender.py in a subprocess
def test_audit_command_on_a_planned_dataset(tmp_path, examples, cli):
    out = tmp_path / "out"
    res = cli("generate", "--structures", examples, "--out", out, "--split", "test", "--plan-only",
              "--resolution", "256", "256")
    assert res.returncode == 0, res.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["audit"]["ok"] and manifest["audit_settings"]["margin"] == 0.05
    res = cli("audit", out)
    assert res.returncode == 0 and "guesser(s) above their bar" in res.stdout and "needed too seldom" in res.stdout
    report = json.loads((out / "audit.json").read_text())
    assert set(report["tasks"]) >= {"translation", "interaction_location", "residue_ligand_interaction"}
    # the necessity table, from the programs: every step of the choice tasks needed in every question
    for task in ("translation_rotation", "rotation_rotation", "interaction_location"):
        steps = report["tasks"][task]["necessity"]["steps"]
        assert len(steps) == 2 and all(st["share"] == 1.0 for st in steps), (task, steps)
    assert "necessity" not in report["tasks"]["translation"] and report["unneeded"] == []
    # a dataset whose answers all say A is caught
    lines = [json.loads(l) for l in (out / "annotations.jsonl").read_text().splitlines()]
    biased = [dict(r, answer="A") if r["task"] == "interaction_location" else r for r in lines] * 8
    rep = audit_records(biased, None, {"margin": 0.05, "confidence": 0.99})
    assert any(f["guesser"] == "always A" for f in rep["flagged"])
    assert cli("audit", tmp_path / "nothing").returncode == 2


def test_chance_follows_the_number_of_options():
    """A spec may ask 2–4 options: with 3 balanced letters "always A" is at chance (1/3), not above 1/4."""
    recs = [_choice("ABC"[k % 3], ["move x 1, move y 2", "move x 2, move y 1", "move x -1, move y -2"])
            for k in range(300)]
    rep = audit_records(recs, None, {"margin": 0.05, "confidence": 0.99})
    rows = {g["guesser"]: g for g in rep["tasks"]["interaction_location"]["guessers"]}
    assert rows["always A"]["chance"] == pytest.approx(1 / 3, abs=1e-3) and rep["ok"]
    assert "always D" not in rows


# ------------------------------------------------------------------ necessity (issue 16)
def _stepped(task, options, correct):
    """A choice record whose program lists each option's steps, as the planners write them."""
    ops = [[{"op": v, "axis": a, "value": float(x)} for v, a, x in opt] for opt in options]
    texts = [", ".join(f"{v} {a} {x}" for v, a, x in opt) for opt in options]
    return {"id": f"{task}-{len(options)}", "task": task, "answer": "ABCD"[correct], "images": [],
            "options": texts if task == "interaction_location" else [f"images/{t}.png" for t in texts],
            "program": {"kind": "location" if task == "interaction_location" else "choice", "correct": "ABCD"[correct],
                        "options": [{"letter": "ABCD"[k], "ops": o, "correct": k == correct}
                                    for k, o in enumerate(ops)]}}


def test_necessity_per_step():
    from misigen.core.necessity import needed, option_steps
    # the old T5 design: every option keeps the true translation, so knowing the rotation is enough
    old = _stepped("translation_rotation", [[("move", "x", 3), ("roll", "y", r)] for r in (45, -45, 30, -30)], 0)
    assert needed(*option_steps(old["program"])) == ([False, True], [False, True])
    # a product over two steps: translation sign × rotation magnitude
    new = _stepped("translation_rotation", [[("move", "x", t), ("roll", "y", r)] for t in (3, -3) for r in (45, 30)], 0)
    assert needed(*option_steps(new["program"])) == ([True, True], [False, True])
    # T8 with a sign flip on x and a magnitude change on y
    t8 = _stepped("interaction_location", [[("move", "x", a), ("move", "y", b)] for a in (2, -2) for b in (5, 3)], 3)
    assert needed(*option_steps(t8["program"])) == ([True, True], [False, True])
    # datasets written before options recorded their steps: parsed from the option texts
    prog = {"options": [{"text": "move x 2, move y 5", "correct": True}, {"text": "move x -2, move y 5"}]}
    assert needed(*option_steps(prog)) == ([True, False], [False, False])
    assert option_steps({"options": [{"text": "A"}, {"text": "B"}]}) is None


def test_audit_flags_a_step_needed_too_seldom():
    settings = {"margin": 0.05, "confidence": 0.99,
                "necessity": {"min_needed": 0.5, "magnitudes": [{"task": "interaction_location", "min_needed": 0.25}]}}
    rng = np.random.default_rng(3)
    old, new, signs_only = [], [], []
    for k in range(120):
        c = int(rng.integers(4))
        old.append(_stepped("translation_rotation", [[("move", "x", 3), ("roll", "y", r)] for r in (45, -45, 30, -30)], c))
        new.append(_stepped("translation_rotation", [[("move", "x", t), ("roll", "y", r)] for t in (3, -3) for r in (45, 30)], c))
        b2 = -8 if k % 2 else 5                       # half the y partners change the magnitude
        signs_only.append(_stepped("interaction_location", [[("move", "x", a), ("move", "y", b)]
                                                            for a in (2, -2) for b in (-5, b2)], c))
    rep = audit_records(old, None, settings)
    assert not rep["ok"]
    assert [(u["task"], u["step"], u["what"]) for u in rep["unneeded"]] == [("translation_rotation", "step 1: move x", "step")]
    steps = rep["tasks"]["translation_rotation"]["necessity"]["steps"]
    assert steps[0]["share"] == 0.0 and steps[1]["share"] == 1.0
    # pooled with as many good questions: needed in exactly half, which is not "fewer than half"
    rep = audit_records(old + new, None, settings)
    assert rep["tasks"]["translation_rotation"]["necessity"]["steps"][0]["share"] == 0.5 and rep["ok"]
    rep = audit_records(new, None, settings)
    assert rep["ok"] and rep["tasks"]["translation_rotation"]["necessity"]["steps"][0]["share"] == 1.0
    # T8: x only ever flips its sign, so its magnitude is never needed; y's is, in half the questions
    rep = audit_records(signs_only, None, settings)
    flags = [(u["step"], u["what"]) for u in rep["unneeded"]]
    assert flags == [("step 1: move x", "magnitude")], flags
    y = rep["tasks"]["interaction_location"]["necessity"]["steps"][1]
    assert y["magnitude_share"] == 0.5 and not y["magnitude_flagged"] and y["magnitude_verdict"] == "proven"
    assert y["verdict"] == "proven" and y["lower_bound"] > 0.9
    assert "TOO SELDOM" in format_audit(rep)
    # a small set does not raise a false alarm: 1 of 4 is not evidence of "fewer than a quarter"
    x = audit_records(signs_only[:4], None, settings)["tasks"]["interaction_location"]["necessity"]["steps"][0]
    assert x["magnitude_upper_bound"] > 0.25 and x["magnitude_verdict"] == "unproven"


def test_partial_solvers_are_judged_against_one_factor():
    """'Nearest the reference after-image' may solve one factor (T5's translation): judged against 0.5,
    not chance; a guesser that looks only at the options stays judged against chance."""
    rng = np.random.default_rng(0)
    recs, imgs = [], {}
    for k in range(200):
        c = int(rng.integers(4))
        # options = translation (2 values) × rotation (2 values); the after-image shows the translation
        t_true = c // 2
        for j in range(4):
            imgs[f"images/{k}_{j}.png"] = np.full((4, 4), float(j // 2)) + (0.1 * (j % 2))
        imgs[f"images/{k}_ref.png"] = np.full((4, 4), float(t_true)) + 0.05
        recs.append({"id": f"r{k}", "task": "translation_rotation", "answer": "ABCD"[c],
                     "images": [f"images/{k}_ref.png"], "options": [f"images/{k}_{j}.png" for j in range(4)],
                     "program": {"kind": "choice", "image_roles": ["reference after"]}})
    rep = audit_records(recs, lambda p: imgs.get(p), {"margin": 0.05, "confidence": 0.99})
    rows = {g["guesser"]: g for g in rep["tasks"]["translation_rotation"]["guessers"]}
    near = rows["nearest to the reference after"]
    assert near["kind"] == "partial solver" and near["chance"] == 0.5 and 0.4 < near["accuracy"] < 0.6
    assert not near["flagged"]
    assert rows["odd one out (pixels)"]["chance"] == 0.25
