"""The audit: blind guessers judged against chance with a confidence bound (issue 8)."""
import json

import numpy as np
import pytest

from misigen.core.audit import audit_records, image_guessers, text_guessers, wilson_lower


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


def test_audit_command_on_a_planned_dataset(tmp_path, examples, cli):
    out = tmp_path / "out"
    res = cli("generate", "--structures", examples, "--out", out, "--split", "test", "--plan-only",
              "--resolution", "256", "256")
    assert res.returncode == 0, res.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["audit"]["ok"] and manifest["audit_settings"]["margin"] == 0.05
    res = cli("audit", out)
    assert res.returncode == 0 and "guesser(s) above chance" in res.stdout
    report = json.loads((out / "audit.json").read_text())
    assert set(report["tasks"]) >= {"translation", "interaction_location", "residue_ligand_interaction"}
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
