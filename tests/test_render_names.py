"""``render`` names its files <id>_<view>[_<n>].png, readable names rather than hashes (1hvi_3f2a….png)."""
import json

from misigen.pipeline.views import view_image_names


def test_names_are_id_and_view(tmp_path):
    assert view_image_names("1hvi", ["front", "left"], ["k1", "k2"], tmp_path) == ["1hvi_front", "1hvi_left"]


def test_another_render_of_a_view_gets_a_number(tmp_path):
    (tmp_path / "1hvi_front.json").write_text(json.dumps({"key": "earlier"}))
    (tmp_path / "1hvi_front_2.json").write_text(json.dumps({"key": "also earlier"}))
    # an earlier render of the same view with another transform keeps its file
    assert view_image_names("1hvi", ["front", "top"], ["new", "t"], tmp_path) == ["1hvi_front_3", "1hvi_top"]
    # the same render again keeps its name (a rerun rewrites the same files)
    assert view_image_names("1hvi", ["front"], ["also earlier"], tmp_path) == ["1hvi_front_2"]
    # the same view asked twice within one call, different results
    assert view_image_names("x", ["top", "top"], ["a", "b"], tmp_path) == ["x_top", "x_top_2"]
