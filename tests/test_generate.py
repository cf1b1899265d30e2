"""The generate pipeline: determinism across shards, resume, validation, rendered agreement."""
import json
import shutil

import numpy as np
import pytest

from misigen.pipeline.generate import run_generate
from misigen.pipeline.run_config import RunConfig
from misigen.pipeline.validate import validate_dataset



@pytest.fixture(scope="module")
def suite():
    from misigen.core.resources import suite_path
    return suite_path("misi_bench")


def _plan(out, examples, suite, style, **kw):
    return run_generate(RunConfig([examples], out, suite=suite, style=style, split="test", seed=7, render=False,
                                  progress=False, **kw))


@pytest.mark.slow      # takes long
def test_annotations_identical_however_sharded(tmp_path, examples, suite, fast_style):
    whole = tmp_path / "whole"
    _plan(whole, examples, suite, fast_style)
    sharded = tmp_path / "sharded"
    for i in range(3):
        _plan(sharded, examples, suite, fast_style, shard=(i, 3))
    a = (whole / "annotations.jsonl").read_bytes()
    b = (sharded / "annotations.jsonl").read_bytes()
    assert a == b and len(a.splitlines()) > 20
    # T5 pairs each complex with the other one of the run, whichever shard planned it
    t5 = [json.loads(l) for l in a.decode().splitlines() if '"translation_rotation"' in l]
    assert t5 and all(r["program"]["target_structure"] != r["structure"] for r in t5)
    # And a second run from scratch gives the same bytes.
    again = tmp_path / "again"
    _plan(again, examples, suite, fast_style)
    assert (again / "annotations.jsonl").read_bytes() == a


@pytest.mark.slow      # takes long
def test_resume_after_kill(tmp_path, examples, suite, fast_style):
    out = tmp_path / "out"
    _plan(out, examples, suite, fast_style)
    reference = (out / "annotations.jsonl").read_bytes()
    parts = sorted(p for p in (out / "parts").glob("*.jsonl") if not p.name.endswith(".failures.jsonl"))
    parts[0].unlink()                                            # this structure never finished
    (out / "parts" / ".half.jsonl.tmp123").write_text('{"id": "trunc')  # a killed writer's temp file
    (out / "annotations.jsonl").write_text("garbage")
    manifest = _plan(out, examples, suite, fast_style)
    assert manifest["this_run"]["structures"] == 1 and manifest["this_run"]["skipped_as_done"] == 1
    assert (out / "annotations.jsonl").read_bytes() == reference
    ids = [json.loads(l)["id"] for l in reference.decode().splitlines()]
    assert len(ids) == len(set(ids))


@pytest.mark.slow      # takes long
def test_bad_structure_recorded_and_batch_goes_on(tmp_path, examples, suite, fast_style):
    inputs = tmp_path / "inputs"
    shutil.copytree(examples / "wagner_brd4", inputs / "wagner_brd4")
    (inputs / "broken.pdb").write_bytes(b"\x00\x00binary")
    (inputs / "noligand.pdb").write_text(
        "ATOM      1  N   ALA A   1       0.000   0.000   0.000  1.00  0.00           N\n"
        "ATOM      2  CA  ALA A   1       1.458   0.000   0.000  1.00  0.00           C\nEND\n")
    out = tmp_path / "out"
    manifest = run_generate(RunConfig([inputs], out, suite=suite, style=fast_style, split="test", seed=1,
                                      render=False, progress=False))
    fails = [json.loads(l) for l in (out / "failures.jsonl").read_text().splitlines()]
    why = {f["structure"]: f["why"] for f in fails if f.get("task") is None}
    assert "binary" in why["broken"] and "no drug-like ligand" in why["noligand"]
    assert manifest["counts"]["records"] > 0
    recs = [json.loads(l) for l in (out / "annotations.jsonl").read_text().splitlines()]
    assert {r["structure"] for r in recs} == {"wagner_brd4"}


@pytest.fixture(scope="module")
def rendered_dataset(tmp_path_factory, examples, suite, fast_style):
    out = tmp_path_factory.mktemp("gen")
    manifest = run_generate(RunConfig([examples / "wagner_brd4"], out, suite=suite, style=fast_style,
                                      split="test", seed=3,
                                      tasks=["translation", "rotation", "residue_ligand_interaction",
                                             "pocket_ligand_interaction"], device="cpu", progress=False))
    return out, manifest


@pytest.mark.render
def test_rendered_dataset_validates_and_shares_images(rendered_dataset):
    out, manifest = rendered_dataset
    assert validate_dataset(out) == []
    recs = [json.loads(l) for l in (out / "annotations.jsonl").read_text().splitlines()]
    refs = sum(len(r["images"]) for r in recs)
    assert manifest["counts"]["images"] < refs                    # the start views are shared
    assert manifest["device"] == ["CPU"]
    assert set(manifest["answer_distribution"]) == {"translation", "rotation", "residue_ligand_interaction",
                                                    "pocket_ligand_interaction"}
    assert manifest["audit"]["ok"] and (out / "audit.json").is_file()


@pytest.mark.render
def test_rendered_sidecars_are_readable(rendered_dataset):
    """On the written sidecars: labels ≥ 2 px apart and inside the frame; every name an H-bond answer
    needs (T4: the residue's atoms and the answer's ligand atoms; T9: residue and ligand atom of each
    bond) is drawn in at least one of its record's images."""
    from misigen.core.tasks.answers import parse_pocket_hbonds, parse_residue_answer
    out, _ = rendered_dataset
    recs = [json.loads(l) for l in (out / "annotations.jsonl").read_text().splitlines()]
    checked = 0
    for rec in recs:
        sides = [json.loads((out / p).with_suffix(".json").read_text()) for p in rec["images"]]
        for side in sides:
            boxes = [lab["box"] for lab in side["labels"]]
            for i, a in enumerate(boxes):
                assert 0 <= a[0] and a[2] <= side["width"] and 0 <= a[1] and a[3] <= side["height"]
                for b in boxes[i + 1:]:
                    assert not (a[0] < b[2] + 2 and b[0] < a[2] + 2 and a[1] < b[3] + 2 and b[1] < a[3] + 2)
        drawn = {lab["text"] for side in sides for lab in side["labels"]}
        if rec["task"] == "residue_ligand_interaction":
            r = rec["program"]["residue"]
            res_atoms = {a["name"] for a in sides[0]["atoms"] if not a["ligand"] and a["resseq"] == r["resseq"]}
            assert res_atoms and res_atoms <= drawn
            assert {p[2] for p in parse_residue_answer(rec["answer"])[1]} <= drawn
            checked += 1
        if rec["task"] == "pocket_ligand_interaction":
            for res, num, ic, _pa, _chain, lig in parse_pocket_hbonds(rec["answer"]):
                assert f"{res} {num}{ic}" in drawn and lig in drawn
            checked += 1
    assert checked >= 3


@pytest.mark.render
def test_rendered_translation_agrees_with_its_answer(rendered_dataset):
    """The target image's atoms sit exactly `move` Å from the start front view's, in camera X/Y."""
    from misigen.core.op_grammar import parse_ops
    out, _ = rendered_dataset
    for line in (out / "annotations.jsonl").read_text().splitlines():
        rec = json.loads(line)
        if rec["task"] != "translation":
            continue
        (op,) = parse_ops(rec["answer"])
        start = json.loads((out / rec["images"][0]).with_suffix(".json").read_text())
        target = json.loads((out / rec["images"][-1]).with_suffix(".json").read_text())
        a = np.array([x["camera_xyz"] for x in start["atoms"]])
        b = np.array([x["camera_xyz"] for x in target["atoms"]])
        shift = np.zeros(3)
        shift["xyz".index(op.axis)] = op.value
        assert np.allclose(b - a, shift, atol=2e-3)
        # and the image moved: the foreground's centre of mass shifts the same way on screen.
        from PIL import Image
        ia = np.asarray(Image.open(out / rec["images"][0]).convert("L"), float)
        ib = np.asarray(Image.open(out / rec["images"][-1]).convert("L"), float)
        col = lambda im, ax: (im * np.arange(im.shape[ax])[(slice(None), None) if ax == 0 else (None, slice(None))]).sum() / im.sum()  # noqa: E731
        du, dv = col(ib, 1) - col(ia, 1), col(ib, 0) - col(ia, 0)
        if op.axis == "x":
            assert np.sign(du) == np.sign(op.value) and abs(du) > abs(dv)
        elif op.axis == "y":
            assert np.sign(dv) == -np.sign(op.value) and abs(dv) > abs(du)


@pytest.mark.slow      # runs run_blender.py in a subprocess
@pytest.mark.render
def test_validate_finds_defects(tmp_path, rendered_dataset, cli):
    src, _ = rendered_dataset
    out = tmp_path / "copy"
    shutil.copytree(src, out)
    pngs = sorted((out / "images").glob("*.png"))
    pngs[0].write_bytes(pngs[0].read_bytes()[:200])               # truncated image
    pngs[1].unlink()                                              # missing image
    lines = (out / "annotations.jsonl").read_text().splitlines()
    rec = json.loads(lines[0])
    rec["answer"] = "move w 3"                                    # unparsable answer
    lines[0] = json.dumps(rec)
    (out / "annotations.jsonl").write_text("\n".join(lines) + "\n")
    problems = validate_dataset(out)
    text = "\n".join(problems)
    assert "does not decode" in text and "image missing" in text and "annotations.jsonl:1" in text
    res = cli("validate", out)
    assert res.returncode == 1


@pytest.mark.slow      # runs run_blender.py in a subprocess
def test_spec_error_stops_before_work(tmp_path, examples, suite, cli):
    bad = tmp_path / "suite.yaml"
    bad.write_text("tasks: [translation]\nbogus_key: 1\n")
    res = cli("generate", "--suite", bad, "--structures", examples, "--out", tmp_path / "o")
    assert res.returncode == 2 and "suite.yaml" in res.stderr and "bogus_key" in res.stderr
    assert not (tmp_path / "o").exists()


@pytest.mark.slow      # runs run_blender.py in a subprocess
@pytest.mark.render
def test_validate_catches_a_cut_file_and_a_replaced_answer(tmp_path, rendered_dataset, cli):
    src, _ = rendered_dataset
    cut = tmp_path / "cut"
    shutil.copytree(src, cut)
    lines = (cut / "annotations.jsonl").read_text().splitlines()
    (cut / "annotations.jsonl").write_text("\n".join(lines[:3]) + "\n")          # cut, still well formed
    text = "\n".join(validate_dataset(cut))
    assert f"says {len(lines)} records, annotations.jsonl has 3" in text and "annotations_sha256" in text
    assert cli("validate", cut).returncode == 1
    for task, swap in (("translation", lambda a: a.rsplit(" ", 1)[0] + " " + str(-int(a.rsplit(" ", 1)[1]))),
                       ("rotation", lambda a: a.rsplit(" ", 1)[0] + (" 45" if not a.endswith(" 45") else " 30"))):
        out = tmp_path / task
        shutil.copytree(src, out)
        lines = (out / "annotations.jsonl").read_text().splitlines()
        n = next(i for i, l in enumerate(lines) if json.loads(l)["task"] == task)
        rec = json.loads(lines[n])
        rec["answer"] = swap(rec["answer"])                                       # another well-formed answer
        rec["program"]["ops"][0]["value"] = float(rec["answer"].rsplit(" ", 1)[1])  # even the program agrees
        lines[n] = json.dumps(rec)
        (out / "annotations.jsonl").write_text("\n".join(lines) + "\n")
        problems = [p for p in validate_dataset(out) if p.startswith(f"annotations.jsonl:{n + 1}:")]
        assert any("after-image's atoms are up to" in p for p in problems), problems


@pytest.mark.render
def test_rendered_rationales_replay_and_an_altered_one_does_not(tmp_path, rendered_dataset):
    """Nearly every record carries a rationale, each ends with its answer and replays on the written
    sidecars (validate is clean above); one number changed in one rationale is a defect naming that
    number. (A rotation whose images share too few labelled atoms has none.)"""
    import re

    src, manifest = rendered_dataset
    recs = [json.loads(l) for l in (src / "annotations.jsonl").read_text().splitlines()]
    explained = [r for r in recs if r["rationale"]]
    assert recs and len(explained) >= 0.8 * len(recs), [r["id"] for r in recs if not r["rationale"]]
    assert all(r["rationale"].rstrip().endswith(r["answer"]) for r in explained)
    assert all(r["program"]["difficulty"]["level"] in ("easy", "medium", "hard") for r in recs)
    out = tmp_path / "altered"
    shutil.copytree(src, out)
    lines = (out / "annotations.jsonl").read_text().splitlines()
    first = next(k for k, line in enumerate(lines) if json.loads(line)["rationale"])
    rec = json.loads(lines[first])
    tok = re.findall(r"(?<![\w.])-?\d+\.\d+(?![\w.])", rec["rationale"])[0]
    new = f"{float(tok) + 1:.{len(tok.split('.')[1])}f}"
    rec["rationale"] = rec["rationale"].replace(tok, new, 1)
    lines[first] = json.dumps(rec)
    (out / "annotations.jsonl").write_text("\n".join(lines) + "\n")
    text = "\n".join(validate_dataset(out))
    assert f"annotations.jsonl:{first + 1}: rationale quotes {new}" in text


@pytest.mark.slow      # runs run_blender.py in a subprocess
def test_generate_level_keeps_one_level_before_rendering(tmp_path, examples, cli):
    """--level hard: only questions predicted hard (by-eye score at most the band's 0.55) are written; the
    others are 'level' lines in failures.jsonl (not failures for the exit code), and nothing else changes.
    Every record's level is the band of its predicted by-eye score."""
    from misigen.core.quality.levels import BANDS, level_of_prediction

    out = tmp_path / "lv"
    res = cli("generate", "--structures", examples / "1hvi.pdb", "--out", out, "--tasks", "zooming,translation",
              "--split", "test", "--plan-only", "--no-audit", "--no-progress", "--resolution", "256", "256",
              "--level", "hard")
    assert res.returncode == 0, res.stderr
    recs = [json.loads(l) for l in (out / "annotations.jsonl").read_text().splitlines()]
    fails = [json.loads(l) for l in (out / "failures.jsonl").read_text().splitlines()]
    dropped = [f for f in fails if f.get("category") == "level"]
    assert recs and dropped
    for r in recs:
        d = r["program"]["difficulty"]
        assert d["level"] == "hard" and d["predicted_by_eye"] <= BANDS["hard"]
        assert level_of_prediction(d["predicted_by_eye"]) == d["level"]
    assert all("this run keeps hard" in f["why"] for f in dropped)
    assert len(recs) + len(dropped) == 4                  # 1HVI test: 2 translation + 2 zooming questions
    bad = cli("generate", "--structures", examples / "1hvi.pdb", "--out", tmp_path / "x", "--plan-only",
              "--level", "tricky")
    assert bad.returncode == 2 and "--level" in bad.stderr
