"""The add-on's GUI operators (registered from the checkout, the legacy add-on path) run the same
code as the headless path: import, view, task preview, style edits, presets, error messages."""
import json

import numpy as np
import pytest

bpy = pytest.importorskip("bpy", reason="the GUI tests need bpy (pip install -e .[standalone])")

pytestmark = pytest.mark.render       # renders with Cycles: not in the fast subset (-m "not slow and not render")


@pytest.fixture(scope="module")
def addon():
    import misigen
    misigen.register()
    yield
    misigen.unregister()


@pytest.fixture
def settings(addon, tmp_path, monkeypatch):
    from misigen.ui.session import settings_of
    monkeypatch.setenv("MISIGEN_PRESETS", str(tmp_path / "presets"))
    s = settings_of(bpy.context)
    s.preset = "misi_bench"                 # back to the reference values
    s.resolution, s.samples, s.denoise = (128, 128), 1, False
    s.output_dir = str(tmp_path / "out")
    s.view, s.transform, s.ligand, s.ligand_path = "front", "", "", ""
    return s


def sidecars(folder):
    return {p.stem: json.loads(p.read_text()) for p in sorted((folder / "images").glob("*.json"))}


def test_file_import_menu_has_the_three_entries(addon):
    from misigen.ui.operators import import_menu
    assert import_menu in bpy.types.TOPBAR_MT_file_import._dyn_ui_initialize()
    for op in ("import_structure_file", "import_ligand_file", "import_pdbbind"):
        assert hasattr(bpy.ops.misigen, op)


def test_import_pdb_with_options_then_render_a_view(settings, examples, tmp_path):
    from misigen import api
    assert bpy.ops.misigen.import_structure_file(filepath=str(examples / "1hvi.pdb"), pocket_cutoff=6.0,
                                                 labels=False) == {"FINISHED"}
    assert settings.pocket_cutoff == pytest.approx(6.0) and not settings.labels
    built = settings.built_scene
    assert built is not None and built.name.startswith("misigen:1hvi")
    settings.view, settings.transform = "left", "move x 2"
    assert bpy.ops.misigen.render_view() == {"FINISHED"}
    (side,) = sidecars(tmp_path / "out").values()
    assert side["description"]["ops"]["all"] == [{"op": "roll", "axis": "y", "value": 90.0},
                                                 {"op": "move", "axis": "x", "value": 2.0}]
    assert side["labels"] == [] and side["width"] == 128
    # The 6 Å pocket asked for in the import dialog is what was rendered.
    whole = api.shown(api.load(examples / "1hvi.pdb"), api.load_style())
    assert 0 < len(side["atoms"]) < whole.n_atoms


def test_import_sdf_finds_its_protein_and_pdbbind_folder_imports(settings, examples):
    assert bpy.ops.misigen.import_ligand_file(filepath=str(examples / "wagner_brd4" / "wagner_brd4_ligand.sdf")) \
        == {"FINISHED"}
    assert settings.structure_path.endswith("wagner_brd4_protein.pdb")
    assert settings.ligand_path.endswith("wagner_brd4_ligand.sdf")
    assert bpy.ops.misigen.import_pdbbind(directory=str(examples / "wagner_brd4")) == {"FINISHED"}
    assert settings.built_scene.name.startswith("misigen:wagner_brd4")
    # The previous structure's scene was removed: one built scene at a time.
    assert [s.name for s in bpy.data.scenes if s.name.startswith("misigen:")] == [settings.built_scene.name]


def test_task_preview_poses_each_image_as_the_pipeline_and_renders_the_sample(settings, examples, tmp_path):
    from misigen import api
    from misigen.ui.session import current_style
    assert bpy.ops.misigen.import_pdbbind(directory=str(examples / "wagner_brd4")) == {"FINISHED"}
    settings.resolution = (256, 256)         # planning checks are in pixels: too small and none pass
    settings.task, settings.split, settings.seed, settings.sample_index = "translation", "test", 3, 1
    assert bpy.ops.misigen.preview_sample() == {"FINISHED"}
    structure = api.load(examples / "wagner_brd4")
    samples, _ = api.plan_task(api.load_task("translation"), structure, current_style(settings), "test", 3)
    sample = samples[1]
    assert (settings.sample_id, settings.answer, settings.question) == (sample.id, sample.answer, sample.question)
    specs = sample.render_specs()
    assert settings.n_images == len(specs) == 4
    for k, spec in enumerate(specs):          # the viewport shows exactly what would be rendered
        if k:
            assert bpy.ops.misigen.preview_step(step=1) == {"FINISHED"}
        scene = settings.built_scene
        cam = next(o for o in scene.objects if o.get("misigen_role") == "camera")
        assert np.allclose(cam.location, spec.camera.position, atol=1e-4)
        _atoms, mats = api.pose(structure, spec)
        protein = next(o for o in scene.objects if o.get("misigen_role") == "protein")
        assert np.allclose(np.array(protein.matrix_world), mats["protein"], atol=1e-4)
    assert settings.image_index == 3 and "move" in settings.image_caption
    assert bpy.ops.misigen.render_sample() == {"FINISHED"}
    record = json.loads((tmp_path / "out" / "samples" / f"{sample.id}.json").read_text())
    assert record["answer"] == sample.answer
    for image in record["images"]:
        assert (tmp_path / "out" / image).is_file() and (tmp_path / "out" / image).with_suffix(".json").is_file()
    # Docking shows the pocket alone, then the moved ligand alone: the viewport hides what the render hides.
    settings.task, settings.sample_index = "docking", 0
    assert bpy.ops.misigen.preview_sample() == {"FINISHED"}
    docking, _ = api.plan_task(api.load_task("docking"), structure, current_style(settings), "test", 3)
    shown_parts = set()
    for k, spec in enumerate(docking[0].render_specs()):
        if k:
            bpy.ops.misigen.preview_step(step=1)
        for obj in settings.built_scene.objects:
            part = obj.parent.get("misigen_role") if obj.parent else None
            if part in ("protein", "ligand"):
                assert obj.hide_viewport == obj.hide_render == (part not in spec.parts), (k, obj.name)
        shown_parts.add(spec.parts)
    assert {("protein",), ("ligand",)} <= shown_parts
    # T5 pairs with another complex (in the preview: a bundled example); its images show that complex.
    settings.task, settings.sample_index = "translation_rotation", 0
    assert bpy.ops.misigen.preview_sample() == {"FINISHED"}
    assert "target complex 1hvi" in settings.question and settings.n_images == 11
    for _ in range(4):
        bpy.ops.misigen.preview_step(step=1)
    assert settings.built_scene.name.startswith("misigen:1hvi")     # image 5: the target's front view


def test_style_edits_reach_render_and_saved_preset(settings, examples, tmp_path):
    from PIL import Image

    from misigen.core.look.style import load_style
    assert bpy.ops.misigen.import_pdbbind(directory=str(examples / "wagner_brd4")) == {"FINISHED"}
    settings.ligand_carbon, settings.atom_scale, settings.labels = (0.0, 1.0, 0.0), 0.4, False
    assert bpy.ops.misigen.render_view() == {"FINISHED"}
    (png,) = (tmp_path / "out" / "images").glob("*.png")
    side = json.loads(png.with_suffix(".json").read_text())
    carbons = [a for a in side["atoms"] if a["ligand"] and a["element"] == "C" and a["visible"]]
    assert carbons and all(a["radius"] == pytest.approx(max(1.7 * 0.4, 0.16 * 1.2), abs=0.01) for a in carbons)
    pixels = np.asarray(Image.open(png).convert("RGB"), dtype=int)
    rgb = np.array([pixels[int(a["pixel"][1]), int(a["pixel"][0])] for a in carbons])
    assert np.median(rgb[:, 1] - np.maximum(rgb[:, 0], rgb[:, 2])) > 40     # ligand carbons render green
    settings.new_preset_name = "artist style!"
    assert bpy.ops.misigen.save_preset() == {"FINISHED"}
    saved = tmp_path / "presets" / "artist_style.yaml"
    style = load_style("artist_style")            # found by name, as generate --scene artist_style does
    assert style["colors"]["ligand_carbon"] == "#00FF00" and style["atom_scale"] == pytest.approx(0.4)
    assert "bond_radius" not in saved.read_text()   # only what differs from the reference is written


@pytest.mark.slow      # runs run_blender.py in a subprocess
def test_errors_are_reported_with_the_cli_message(settings, tmp_path, cli):
    bad = tmp_path / "empty.pdb"
    bad.write_text("")
    res = cli("interactions", bad)
    cli_message = res.stderr.strip().removeprefix("error: ")
    assert res.returncode == 2 and cli_message.startswith(str(bad))
    with pytest.raises(RuntimeError) as got:
        bpy.ops.misigen.import_structure_file(filepath=str(bad))
    assert str(got.value).strip() == f"Error: {cli_message}"
    assert settings.last_error == cli_message            # and the panel shows it
    settings.new_preset_name = "draft"
    with pytest.raises(RuntimeError, match="bundled preset"):
        bpy.ops.misigen.save_preset()


def test_bad_transform_is_reported_not_raised(settings, examples):
    assert bpy.ops.misigen.import_pdbbind(directory=str(examples / "wagner_brd4")) == {"FINISHED"}
    settings.transform = "spin x 3"
    with pytest.raises(RuntimeError, match="not a command"):
        bpy.ops.misigen.show_view()   # bpy raises an operator's ERROR report for Python callers
