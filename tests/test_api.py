"""misigen.api, as a notebook uses it: load, style, plan views and tasks, render annotated."""
import json

import numpy as np
import pytest

from misigen import api


def test_plan_without_blender(examples):
    complex_ = api.load(examples / "wagner_brd4")
    assert api.load(examples / "wagner_brd4") is complex_          # memoised on file times
    same = api.load(examples / "wagner_brd4" / "wagner_brd4_protein.pdb",
                    ligand_file=examples / "wagner_brd4" / "wagner_brd4_ligand.sdf")
    assert same.id == complex_.id and same.n_atoms == complex_.n_atoms
    style = api.load_style("draft", {"render": {"resolution": [256, 256]}})
    shown = api.shown(complex_, style)
    assert 0 < shown.n_atoms < complex_.n_atoms
    (view, spec, mats), = api.plan_views(shown, style, ["left"], "move x 3")
    assert view == "left" and spec.description()["ops"]["all"][-1] == {"op": "move", "axis": "x", "value": 3.0}
    task = api.load_task("rotation_rotation")
    samples, _failures = api.plan_task(task, complex_, style, "test", seed=1)
    specs = samples[0].render_specs()
    assert len(specs) == len(samples[0].images) + 4           # images, then the four option images
    assert api.record(samples[0])["options"][0] == f"images/{specs[-4].key()}.png"
    atoms, mats = api.pose(complex_, specs[-1])
    assert atoms.n_atoms == shown.n_atoms and set(mats) == {"protein", "ligand"}
    with pytest.raises(api.InputError, match="no task 'nope'"):
        api.load_task("nope")
    with pytest.raises(api.InputError, match="expected one structure, found 2"):
        api.load(examples)


@pytest.mark.render
def test_render_annotated_through_the_api(examples, tmp_path):
    pytest.importorskip("bpy", reason="rendering needs bpy")
    complex_ = api.load(examples / "1hvi.pdb")
    style = api.load_style("draft", {"render": {"resolution": [96, 96]}})
    shown = api.shown(complex_, style)
    with api.open_renderer(shown, style, "cpu") as renderer:
        scene_name = renderer.scene.name
        for _view, spec, mats in api.plan_views(shown, style, ["front", "top"], None):
            api.render_annotated(renderer, shown, spec, mats, tmp_path)
    import bpy
    assert scene_name not in bpy.data.scenes                           # the context closed it
    pngs = sorted((tmp_path / "images").glob("*.png"))
    assert len(pngs) == 2
    side = json.loads(pngs[0].with_suffix(".json").read_text())
    assert side["width"] == 96 and len(side["atoms"]) == shown.n_atoms
    assert np.isfinite([a["depth"] for a in side["atoms"]]).all()
