"""One process plans each structure while the one before renders (the first renders task by task as
planning hands its images over): a render failing meanwhile is that structure's failure and the run
goes on; the caches behind it (structures read, shown atoms) never hand back stale data."""
import json
import shutil

import pytest

from misigen.core.loader import discover
from misigen.core.scene_plan import shown_structure
from misigen.pipeline import unit
from misigen.pipeline.generate import run_generate
from misigen.pipeline.run_config import RunConfig

TASKS = ["translation", "zooming"]


@pytest.mark.render
@pytest.mark.parametrize("broken, fine", [("1hvi", "wagner_brd4"),      # the first: rendered as it is planned
                                          ("wagner_brd4", "1hvi")])     # the second: planned while 1hvi renders
def test_a_render_failing_is_its_structures_failure_and_the_run_goes_on(tmp_path, examples, fast_style,
                                                                        monkeypatch, broken, fine):
    from misigen.core.resources import suite_path
    from misigen.render.renderer import SceneRenderer

    real = SceneRenderer.render_raw

    def broken_for_one(self, cam, mats, out_png, parts=("protein", "ligand")):
        if self.shown.id == broken:
            raise RuntimeError("simulated render failure")
        return real(self, cam, mats, out_png, parts)

    monkeypatch.setattr(SceneRenderer, "render_raw", broken_for_one)
    out = tmp_path / "out"
    manifest = run_generate(RunConfig([examples / "wagner_brd4", examples / "1hvi.pdb"], out,
                                      suite=suite_path("misi_bench"), style=fast_style, split="test", seed=11,
                                      tasks=TASKS, device="cpu", progress=False))
    run = manifest["this_run"]
    assert run["executor"] == "in-process" and run["done"] == 1 and run["failed"] == 1
    fails = [json.loads(line) for line in (out / "failures.jsonl").read_text().splitlines()]
    assert any(f["structure"] == broken and "simulated render failure" in f["why"] for f in fails)
    records = [json.loads(line) for line in (out / "annotations.jsonl").read_text().splitlines()]
    assert records and {r["structure"] for r in records} == {fine}
    assert not list((out / "images").glob(f"{broken}_*"))      # nothing half-written of the failed one
    assert not list((out / "images").glob(".*"))
    shutil.rmtree(out)


def test_a_structure_read_again_is_the_same_until_its_file_changes(tmp_path, examples):
    pdb = tmp_path / "1hvi.pdb"
    shutil.copy(examples / "1hvi.pdb", pdb)
    source = discover([pdb])[0]
    first = unit.load_cached(source)
    assert unit.load_cached(source) is first
    text = pdb.read_text()
    pdb.write_text(text.replace("END", "REMARK 999 changed\nEND", 1))       # another size and time
    again = unit.load_cached(source)
    assert again is not first and again.n_atoms == first.n_atoms


def test_the_shown_atoms_kept_belong_to_their_structure_and_selection(examples, style):
    source = discover([examples / "1hvi.pdb"])[0]
    a = unit.load_structure(source)
    b = unit.load_structure(source)          # equal content, another object
    pocket = shown_structure(a, style)
    assert shown_structure(a, style) is pocket
    assert shown_structure(b, style) is not pocket and shown_structure(b, style).n_atoms == pocket.n_atoms
    ligand_only = shown_structure(a, style, ("ligand",))
    assert ligand_only is not pocket and 0 < ligand_only.n_atoms < pocket.n_atoms
    wider = dict(style, selection=dict(style["selection"], pocket_cutoff=style["selection"]["pocket_cutoff"] + 4))
    assert shown_structure(a, wider).n_atoms > pocket.n_atoms
