"""The add-on's GUI operators run the same code as the headless path (exercised under bpy)."""
import json

import pytest

bpy = pytest.importorskip("bpy", reason="the GUI tests need bpy (pip install -e .[standalone])")


def panel_settings():
    from misigen.ui.operators import _settings
    return _settings(bpy.context)


@pytest.fixture(scope="module")
def addon():
    import misigen
    misigen.register()
    yield
    misigen.unregister()


def test_import_view_render_and_save_preset(addon, examples, tmp_path):
    from misigen.core.style import load_style

    settings = bpy.context.scene.misigen
    settings.protein_path = str(examples / "wagner_brd4")
    settings.preset = "misi_bench"
    settings.output_dir = str(tmp_path / "out")
    settings.preset_dir = str(tmp_path / "presets")
    assert bpy.ops.misigen.import_structure() == {"FINISHED"}
    settings = panel_settings()     # what the panel shows and edits from now on
    settings.samples = 1
    settings.view = "left"
    settings.transform = "move x 2"
    assert bpy.ops.misigen.show_view() == {"FINISHED"}
    assert bpy.ops.misigen.render_view() == {"FINISHED"}
    pngs = list((tmp_path / "out" / "images").glob("*.png"))
    assert len(pngs) == 1
    side = json.loads(pngs[0].with_suffix(".json").read_text())
    assert side["description"]["ops"]["all"][0] == {"op": "roll", "axis": "y", "value": 90.0}
    # An artist's tweak saved as a preset loads back as a valid style with the tweak.
    settings.atom_scale = 0.4
    settings.new_preset_name = "artist style!"
    assert bpy.ops.misigen.save_preset() == {"FINISHED"}
    saved = load_style(tmp_path / "presets" / "artist_style.yaml")
    assert saved["atom_scale"] == pytest.approx(0.4) and saved["name"] == "artist_style"


def test_bad_transform_is_reported_not_raised(addon, examples):
    settings = panel_settings()
    settings.protein_path = str(examples / "wagner_brd4")
    bpy.ops.misigen.import_structure()
    settings.transform = "spin x 3"
    with pytest.raises(RuntimeError, match="not a command"):
        bpy.ops.misigen.show_view()   # bpy raises an operator's ERROR report for Python callers
