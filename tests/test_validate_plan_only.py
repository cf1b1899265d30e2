"""validate on a plan-only folder: not "image missing" for every image; says what it checked."""
import json

import pytest

from misigen.core.resources import suite_path
from misigen.core.look.style import load_style
from misigen.pipeline.generate import run_generate
from misigen.pipeline.run_config import RunConfig
from misigen.pipeline.validate import validate_dataset


@pytest.fixture(scope="module")
def planned(tmp_path_factory, examples):
    out = tmp_path_factory.mktemp("plan") / "out"
    style = load_style("misi_bench", {"render": {"resolution": [256, 256]}})
    run_generate(RunConfig([examples / "1hvi.pdb"], out, suite=suite_path("misi_bench"), style=style,
                           split="test", tasks=["rotation", "translation_rotation"], seed=3, render=False,
                           progress=False, audit=False))
    return out


def test_plan_only_folder_validates_and_says_so(planned):
    notes = []
    assert validate_dataset(planned, notes) == []
    assert len(notes) == 1 and "plan-only" in notes[0] and "not checked" in notes[0]
    assert not (planned / "images").exists() or not list((planned / "images").glob("*.png"))


def test_plan_only_folder_still_finds_defects(planned, tmp_path):
    import shutil
    copy = tmp_path / "copy"
    shutil.copytree(planned, copy)
    lines = (copy / "annotations.jsonl").read_text().splitlines()
    rec = json.loads(lines[0])
    rec["answer"] = "roll q 7"                                      # not an answer of this task
    rec["images"][0] = "../elsewhere.png"
    lines[0] = json.dumps(rec)
    (copy / "annotations.jsonl").write_text("\n".join(lines) + "\n")
    problems = validate_dataset(copy)
    text = "\n".join(problems)
    assert "annotations.jsonl:1: ../elsewhere.png: not an images/<name>.png path" in text
    assert "annotations.jsonl:1: answer" in text and "annotations_sha256" in text
    assert "image missing" not in text


def test_rendered_folder_without_its_images_is_still_a_defect(planned, tmp_path):
    import shutil
    copy = tmp_path / "copy"
    shutil.copytree(planned, copy)
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["render"] = True                                        # a rendered folder that lost its images
    (copy / "manifest.json").write_text(json.dumps(manifest))
    notes = []
    problems = validate_dataset(copy, notes)
    assert problems and all("image missing" in p for p in problems) and notes == []
