"""Camera model, transforms, command grammar, visibility and label layout (no Blender)."""
import numpy as np
import pytest

from misigen.core.scene import geometry
from misigen.core.scene.camera import Camera, frame_points, visible_atoms
from misigen.core.op_grammar import Op, format_ops, parse_ops
from misigen.core.scene.labels import LabelPlan, label_items, layout_labels
from misigen.core.scene.scene_plan import part_matrices, posed_coords, shown_structure


def test_commands_round_trip():
    for text in ["move x 3", "roll y -15", "move z 42", "roll x 75, move x -14", "move y 2.5"]:
        assert format_ops(parse_ops(text)) == text
    assert parse_ops("roll x 75; move x -14") == [Op("roll", "x", 75), Op("move", "x", -14)]
    for bad in ["", "spin x 3", "move w 3", "move x", "move x three"]:
        with pytest.raises(ValueError):
            parse_ops(bad)


def test_rotation_is_right_handed():
    # +90° about z takes +x to +y; about x takes +y to +z; about y takes +z to +x.
    assert np.allclose(geometry.rotation_matrix("z", 90) @ [1, 0, 0], [0, 1, 0])
    assert np.allclose(geometry.rotation_matrix("x", 90) @ [0, 1, 0], [0, 0, 1])
    assert np.allclose(geometry.rotation_matrix("y", 90) @ [0, 0, 1], [1, 0, 0])


@pytest.mark.parametrize("view, side", [("left", [-1, 0, 0]), ("right", [1, 0, 0]), ("top", [0, 1, 0]),
                                        ("bottom", [0, -1, 0]), ("back", [0, 0, -1]), ("front", [0, 0, 1])])
def test_canonical_views_turn_that_side_to_the_viewer(view, side):
    m, _ = geometry.compose(geometry.view_ops(view), [0, 0, 0])
    assert np.allclose(geometry.apply(m, np.array([side], float))[0], [0, 0, 1], atol=1e-9)


def test_move_and_roll_in_camera_frame(brd4, style):
    shown = shown_structure(brd4, style)
    base, _ = part_matrices(shown, {})
    cam = Camera((0.0, 0.0, 100.0), 512, 512)
    before = cam.to_camera(posed_coords(shown, base))
    moved, _ = part_matrices(shown, {"all": parse_ops("move x 3")})
    after = cam.to_camera(posed_coords(shown, moved))
    assert np.allclose(after - before, [3, 0, 0])
    rolled, centres = part_matrices(shown, {"all": parse_ops("move y -2, roll y 15")})
    after = cam.to_camera(posed_coords(shown, rolled))
    centre = np.array(centres["all"][1]) - cam.position     # recorded centre, after the move
    assert np.allclose(centre, shown.coords.mean(0) + [0, -2, 0] - cam.position, atol=1e-3)
    expect = (before + [0, -2, 0] - centre) @ geometry.rotation_matrix("y", 15).T + centre
    assert np.allclose(after, expect, atol=1e-3)


def test_ligand_only_ops_leave_protein_alone(brd4, style):
    shown = shown_structure(brd4, style)
    mats, centres = part_matrices(shown, {"ligand": parse_ops("roll x 75, move x -14")})
    posed = posed_coords(shown, mats)
    assert np.allclose(posed[~shown.ligand], shown.coords[~shown.ligand])
    lig0, lig1 = shown.coords[shown.ligand], posed[shown.ligand]
    assert np.allclose(lig1.mean(0), lig0.mean(0) + [-14, 0, 0], atol=1e-6)  # rotated about own centre
    assert np.allclose(centres["ligand"][0], lig0.mean(0), atol=1e-3)


def test_projection_centre_and_edges():
    cam = Camera((0.0, 0.0, 10.0), 200, 100, fov_deg=90.0)
    pix, depth = cam.project(np.array([[0, 0, 0], [10, 0, 0], [0, 5, 0], [-5, -2.5, 5]], float))
    assert np.allclose(pix, [[100, 50], [200, 50], [100, 0], [0, 100]])
    assert np.allclose(depth, [10, 10, 10, 5])
    ortho = Camera((0.0, 0.0, 10.0), 200, 100, "orthographic", ortho_scale=20.0)
    pix, _ = ortho.project(np.array([[10, 5, -30.0]]))
    assert np.allclose(pix, [[200, 0]])


@pytest.mark.parametrize("projection", ["perspective", "orthographic"])
@pytest.mark.parametrize("size", [(512, 512), (640, 360), (300, 500)])
def test_frame_points_fits_every_sphere(brd4, style, projection, size):
    shown = shown_structure(brd4, style)
    r = np.full(shown.n_atoms, 0.5)
    cam = frame_points(shown.coords, r, *size, projection=projection, margin=0.08)
    pix, depth = cam.project(shown.coords)
    scale = cam.pixel_scale(depth)
    lo = pix - (r * scale)[:, None]
    hi = pix + (r * scale)[:, None]
    assert (lo >= 0).all() and (hi[:, 0] <= size[0]).all() and (hi[:, 1] <= size[1]).all()
    # ... and is tight: something comes close to the margin on one axis.
    fill = max((np.abs(pix[:, 0] - size[0] / 2) + r * scale).max() / (size[0] / 2),
               (np.abs(pix[:, 1] - size[1] / 2) + r * scale).max() / (size[1] / 2))
    assert fill > 0.85


def test_hidden_atom_behind_another():
    cam = Camera((0.0, 0.0, 50.0), 256, 256)
    centres = np.array([[0, 0, 0], [0, 0, -5], [5, 0, -5]], float)
    vis = visible_atoms(cam, centres, np.array([1.0, 1.0, 1.0]))
    assert vis.tolist() == [True, False, True]
    # A bond cylinder between two front atoms hides an atom right behind its middle.
    centres = np.array([[-2, 0, 0], [2, 0, 0], [0, 0, -3]], float)
    vis = visible_atoms(cam, centres, np.array([0.3, 0.3, 0.3]), np.array([[0, 1]]), bond_radius=0.3)
    assert vis.tolist() == [True, True, False]


def test_labels_do_not_overlap_and_stay_inside(brd4, style):
    shown = shown_structure(brd4, style)
    cam = frame_points(shown.coords, 0.5, 512, 512)
    pix, depth = cam.project(shown.coords)
    items = label_items(shown, LabelPlan.from_style(style))
    n_res = len({(c, n) for c, n, l in zip(shown.chain, shown.resseq, shown.ligand) if not l})
    assert len(items) == n_res + int((shown.ligand & ~shown.is_hydrogen).sum())
    placed = [p for p in layout_labels(items, pix, depth > 0, style, 512, 512) if p["box"]]
    assert len(placed) > 0.5 * len(items)
    boxes = np.array([p["box"] for p in placed])
    assert (boxes[:, 0] >= 0).all() and (boxes[:, 2] <= 512).all() and (boxes[:, 1] >= 0).all() \
        and (boxes[:, 3] <= 512).all()
    gap = style["labels"]["gap_px"]
    assert gap >= 2
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            a, b = boxes[i], boxes[j]
            assert not (a[0] < b[2] + gap and b[0] < a[2] + gap and a[1] < b[3] + gap and b[1] < a[3] + gap)


def test_a_label_wider_than_the_image_is_left_out(style):
    from misigen.core.scene.labels import layout_labels
    pix = np.array([[20.0, 20.0]])
    placed = layout_labels([("A VERY LONG LABEL TEXT", 0, "residue", "res A:1")], pix, np.array([True]), style, 48, 48)
    assert placed[0]["box"] is None


def test_a_label_keeps_its_home_side_where_it_has_room(style):
    """label_homes picks, per label, the side of its atom with room in the most views; layout_labels
    then uses it first. A label the plan does not put first (``may_cover``) is left out where its home
    has no room, one that it puts first goes elsewhere."""
    from misigen.core.scene.labels import label_homes, label_side
    pix, front = np.array([[100.0, 100.0]]), np.array([True])
    items = [("ABC", 0, "residue", "res A:1")]
    right = [104, 90, 160, 110]                        # a box on the atom's right (the first choice)
    left = [40, 90, 96, 110]

    def side(reserved=None, homes=None, may_cover=None):
        lab = layout_labels(items, pix, front, style, 200, 200, reserved=reserved, homes=homes, may_cover=may_cover)[0]
        return label_side(lab["box"], 100.0, 100.0) if lab["box"] else None

    assert side() == (1, 0) and side([right]) == (-1, 0)          # image by image: right, else left
    views = [{"pixels": pix, "in_front": front, "width": 200, "height": 200, "reserved": r}
             for r in ([right], None, [right])]
    homes, placed = label_homes(items, views, style)
    assert side(homes=homes) == (-1, 0) and side([right], homes) == (-1, 0)   # left: room in all three
    assert placed[1] == layout_labels(items, pix, front, style, 200, 200, homes=homes)   # each view as laid out
    assert side([left], homes) == (1, 0)                              # no room there: elsewhere
    assert side([left], homes, may_cover=set()) is None               # … or left out
    assert side([left], homes, may_cover={"res A:1"}) == (1, 0)
