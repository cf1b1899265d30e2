"""Blender agrees with the core camera model, and rendered pixels agree with the sidecars."""
import json

import numpy as np
import pytest

bpy = pytest.importorskip("bpy", reason="the render tests need bpy (pip install -e .[standalone])")

from misigen.core.structure.loader import discover  # noqa: E402
from misigen.core.look.style import load_style  # noqa: E402
from misigen.pipeline.views import plan_views, render_structure_views  # noqa: E402

pytestmark = pytest.mark.render       # renders with Cycles: not in the fast subset (-m "not slow and not render")



def load_png(path):
    from PIL import Image
    return np.asarray(Image.open(path).convert("RGB")).astype(float) / 255.0


@pytest.fixture(scope="module")
def small_style():
    return load_style("misi_bench", {"render": {"resolution": [256, 256], "samples": 8}})


@pytest.fixture(scope="module")
def rendered(tmp_path_factory, examples, small_style):
    out = tmp_path_factory.mktemp("render")
    src = discover([examples / "wagner_brd4"])[0]
    summary = render_structure_views(src, small_style, out, ["front", "left"], transform="roll z 30",
                                     labels=False, device="cpu")
    sidecars = [json.loads((out / im["image"]).with_suffix(".json").read_text()) for im in summary["images"]]
    return out, summary, sidecars


def test_blender_projection_matches_core(brd4, small_style):
    from bpy_extras.object_utils import world_to_camera_view
    from misigen.core.scene.scene_plan import annotate, shown_structure
    from misigen.render.renderer import SceneRenderer

    for projection in ("perspective", "orthographic"):
        style = load_style("misi_bench", {"camera": {"projection": projection},
                                          "render": {"resolution": [320, 200], "samples": 1}})
        shown = shown_structure(brd4, style)
        view, spec, mats = plan_views(shown, style, ["top"], "move x 2, roll z 40", labels=False)[0]
        side = annotate(shown, spec, mats)
        r = SceneRenderer(shown, style, "cpu")
        try:
            r.set_camera(spec.camera)
            r.set_pose(mats)
            r.scene.view_layers[0].update()
            import mathutils
            got = []
            for part in ("protein", "ligand"):
                m = r.parts[part].matrix_world
                rows = shown.ligand if part == "ligand" else ~shown.ligand
                for co in shown.coords[rows]:
                    p = world_to_camera_view(r.scene, r.camera, m @ mathutils.Vector(co))
                    got.append((p.x * 320, (1 - p.y) * 200))
            want = [a["pixel"] for part in (False, True) for a in side["atoms"] if a["ligand"] == part]
            assert np.allclose(np.array(got), np.array(want), atol=0.02), projection
        finally:
            r.close()


def test_render_writes_png_and_sidecar(rendered):
    out, summary, sidecars = rendered
    assert summary["device"] == "CPU"
    for im, side in zip(summary["images"], sidecars):
        img = load_png(out / im["image"])
        assert img.shape == (256, 256, 3)
        assert side["width"] == 256 and side["camera"]["projection"] == "perspective"
        assert side["camera"]["fov_deg"] == 30.0
        assert len(side["atoms"]) == summary["atoms_shown"]
        assert (out / im["image"]).name == f"wagner_brd4_{im['view']}.png"      # named, not by hash
        assert (out / im["image"]).with_suffix(".json").is_file() and side["view"] == im["view"]
    assert not list(out.glob("images/.*"))          # no temp files left


def _expected_hue_ok(element, ligand, rgb):
    r, g, b = rgb
    if element == "O":
        return r > g + 0.1 and r > b + 0.1
    if element == "N":
        return b > r + 0.1 and b > g + 0.05
    if element == "C" and ligand:
        return max(abs(r - g), abs(r - b), abs(g - b)) < 0.12
    if element == "C":
        purple = b > r > g
        orange = r > g > b
        return purple or orange
    return True


def test_visible_atoms_are_foreground_in_their_colour(rendered):
    out, summary, sidecars = rendered
    for im, side in zip(summary["images"], sidecars):
        img = load_png(out / im["image"])
        checked = ok_fg = ok_colour = 0
        for a in side["atoms"]:
            if not a["visible"]:
                continue
            scale = side["width"] / (2 * a["depth"] * np.tan(np.radians(15)))
            if a["radius"] * scale < 2.5:
                continue
            u, v = (int(a["pixel"][0]), int(a["pixel"][1]))
            rgb = img[v, u]
            checked += 1
            ok_fg += rgb.sum() > 0.15
            ok_colour += _expected_hue_ok(a["element"], a["ligand"], rgb)
        assert checked > 100
        assert ok_fg / checked > 0.97
        assert ok_colour / checked > 0.9
        # Background really is black where no atom projects.
        assert (img[:3, :3] < 0.02).all()


def test_hidden_atoms_are_covered(rendered):
    """An atom the sidecar calls hidden shows the colour of something in front of it."""
    out, summary, sidecars = rendered
    side = sidecars[0]
    hidden = [a for a in side["atoms"] if not a["visible"]]
    assert len(hidden) > 20
    img = load_png(out / summary["images"][0]["image"])
    fg = [img[int(a["pixel"][1]), int(a["pixel"][0])].sum() > 0.15 for a in hidden
          if 0 <= a["pixel"][0] < 256 and 0 <= a["pixel"][1] < 256]
    assert np.mean(fg) > 0.95


FIXED_COLOURS = {"O": "#FF0D0D", "N": "#3050F8"}      # misi_bench's oxygen and nitrogen (any residue)


def _expected_direct_pixel(side, atom, lighting, pixel):
    """The direct model's colour at the centre of ``pixel`` (integer [u, v]) where its eye ray meets
    ``atom``'s sphere, from the sidecar alone: core.scene.shading lights the hit point and fades it by the
    sidecar's depth-cue ramp (black background). None where the ray misses the sphere."""
    from misigen.core.scene.shading import depth_cue_factor, shade_direct
    from misigen.core.look.style import hex_to_rgb

    w, h = side["width"], side["height"]
    u, v = pixel[0] + 0.5, pixel[1] + 0.5
    t = np.tan(np.radians(side["camera"]["fov_deg"]) / 2)
    ray = np.array([(2 * u / w - 1) * t, (1 - 2 * v / h) * t * h / w, -1.0])
    ray /= np.linalg.norm(ray)
    c, r = np.array(atom["camera_xyz"]), atom["radius"]
    b = ray @ c
    disc = b * b - c @ c + r * r
    if disc <= 0:
        return None
    hit = (b - np.sqrt(disc)) * ray
    lit = shade_direct(np.array([hex_to_rgb(FIXED_COLOURS[atom["element"]])]), ((hit - c) / r)[None], -ray[None],
                       lighting)[0]
    return np.clip(lit * depth_cue_factor(-hit[2], tuple(side["depth_cue"])), 0, 1)


def _highlight_pixel(side, atom, lighting):
    """The pixel of ``atom``'s specular highlight: where its normal halves the key light and the eye."""
    from misigen.core.scene.shading import unit
    c, r = np.array(atom["camera_xyz"]), atom["radius"]
    p = c + r * unit(unit(lighting["key_direction"]) + unit(-c))
    t = np.tan(np.radians(side["camera"]["fov_deg"]) / 2)
    return [int((p[0] / (-p[2] * t) + 1) * side["width"] / 2),
            int((1 - p[1] / (-p[2] * t * side["height"] / side["width"])) * side["height"] / 2)]


def test_direct_lighting_matches_chimerax_formula(tmp_path, examples):
    """misi_bench's pixels are ChimeraX's default lighting with its depth cue, computed in numpy
    (core.scene.shading) from the sidecar: at the centre and at the key light's highlight of every clearly
    visible O and N atom, within 8-bit rounding (the median) and the one-sample pixel jitter."""
    style = load_style("misi_bench", {"render": {"resolution": [384, 384]}})
    dull = dict(style["lighting"], reflectivity={**style["lighting"]["reflectivity"], "specular": 0.0})
    src = discover([examples / "1hvi.pdb"])[0]
    summary = render_structure_views(src, style, tmp_path, ["front", "top"], labels=False, device="cpu")
    centre_err, highlight_err, highlight_gain = [], [], []
    for im in summary["images"]:
        side = json.loads((tmp_path / im["image"]).with_suffix(".json").read_text())
        img = load_png(tmp_path / im["image"])
        assert side["depth_cue"][0] < side["depth_cue"][1]
        for a in side["atoms"]:
            scale = side["width"] / (2 * a["depth"] * np.tan(np.radians(15)))
            if not a["visible"] or a["element"] not in FIXED_COLOURS or a["radius"] * scale < 2.5:
                continue
            for pixel, errs in (([int(a["pixel"][0]), int(a["pixel"][1])], centre_err),
                                (_highlight_pixel(side, a, style["lighting"]), highlight_err)):
                want = _expected_direct_pixel(side, a, style["lighting"], pixel)
                if want is not None:
                    errs.append(np.abs(img[pixel[1], pixel[0]] - want).max())
                    if errs is highlight_err:
                        highlight_gain.append((want - _expected_direct_pixel(side, a, dull, pixel)).max())
    assert len(centre_err) > 100 and len(highlight_err) > 100
    assert np.median(centre_err) < 0.01 and np.mean(np.array(centre_err) < 0.06) > 0.85
    assert np.median(highlight_gain) > 0.05            # the highlights matter here …
    assert np.median(highlight_err) < 0.03             # … and are drawn as the formula says


def test_depth_cue_darkens_far_atoms(tmp_path, examples):
    """Depth cueing darkens the oxygens at the back of the pocket and leaves those in front alone;
    turned off, the sidecar says so."""
    src = discover([examples / "1hvi.pdb"])[0]
    means = {}
    for cue in (True, False):
        style = load_style("misi_bench", {"render": {"resolution": [192, 192]}, "depth_cue": {"enabled": cue}})
        out = tmp_path / str(cue)
        summary = render_structure_views(src, style, out, ["front"], labels=False, device="cpu")
        side = json.loads((out / summary["images"][0]["image"]).with_suffix(".json").read_text())
        assert (side["depth_cue"] is not None) == cue
        img = load_png(out / summary["images"][0]["image"])
        oxy = [a for a in side["atoms"] if a["visible"] and a["element"] == "O"]
        depths = np.array([a["depth"] for a in oxy])
        far, near = depths > np.quantile(depths, 0.8), depths < np.quantile(depths, 0.2)
        bright = np.array([img[int(a["pixel"][1]), int(a["pixel"][0])].max() for a in oxy])
        means[cue] = (bright[near].mean(), bright[far].mean())
    (near_on, far_on), (near_off, far_off) = means[True], means[False]
    assert far_on < far_off - 0.1, means
    assert abs(near_on - near_off) < 0.03, means


def test_a_view_rendered_after_another_equals_it_rendered_alone(tmp_path, brd4):
    """One scene renders its views back to back (persistent data): every part must follow its new
    pose, so the second view is pixel for pixel that view rendered in a scene of its own."""
    from misigen.core.scene.scene_plan import shown_structure
    from misigen.pipeline.rendering import open_renderer, render_annotated

    style = load_style("misi_bench", {"render": {"resolution": [160, 160]}})
    shown = shown_structure(brd4, style)
    (_, front, m_front), (_, top, m_top) = plan_views(shown, style, ["front", "top"], None, labels=False)
    with open_renderer(shown, style, "cpu") as renderer:
        render_annotated(renderer, shown, front, m_front, tmp_path / "both", name="front")
        second, _ = render_annotated(renderer, shown, top, m_top, tmp_path / "both", name="top")
    with open_renderer(shown, style, "cpu") as renderer:
        alone, _ = render_annotated(renderer, shown, top, m_top, tmp_path / "alone", name="top")
    assert np.abs(load_png(second) - load_png(alone)).max() < 0.02


def test_scenes_alive_together_keep_their_own_look(tmp_path, brd4):
    """A GUI session keeps its scene while the pipeline builds others: each scene's atoms and bonds use
    that scene's material, so a view rendered beside another scene equals it rendered alone."""
    from misigen.core.scene.scene_plan import shown_structure
    from misigen.pipeline.rendering import open_renderer, render_annotated

    cued = load_style("misi_bench", {"render": {"resolution": [128, 128]}})
    flat = load_style("misi_bench", {"render": {"resolution": [128, 128]}, "depth_cue": {"enabled": False},
                                     "colors": {"ligand_carbon": "#00FF00"}})
    shown = shown_structure(brd4, cued)
    (_, spec, mats), = plan_views(shown, cued, ["front"], None, labels=False)
    with open_renderer(shown, cued, "cpu") as alone:
        ref, _ = render_annotated(alone, shown, spec, mats, tmp_path / "alone", name="front")
    with open_renderer(shown_structure(brd4, flat), flat, "cpu"):
        with open_renderer(shown, cued, "cpu") as second:
            got, _ = render_annotated(second, shown, spec, mats, tmp_path / "beside", name="front")
    assert np.abs(load_png(got) - load_png(ref)).max() < 0.02


def test_labels_drawn_in_their_boxes(tmp_path, examples, small_style):
    """Each label's text is drawn in its box: its glyph pixels white, inside the box; its outline
    dims what is under it to at most ``labels.outline_luminance`` (legible), and atoms show through
    the outlines (not all of their pixels are black, as an opaque outline would make them)."""
    from misigen.core.scene.labels import font_px
    from misigen.render.labels import font_file
    from misigen.render.overlay import _LUMA, _sprite, _to_linear, label_corner
    src = discover([examples / "1hvi.pdb"])[0]
    summary = render_structure_views(src, small_style, tmp_path, ["front"], labels=True, device="cpu")
    im = summary["images"][0]
    side = json.loads((tmp_path / im["image"]).with_suffix(".json").read_text())
    img = load_png(tmp_path / im["image"])
    cfg, size = small_style["labels"], font_px(small_style, 256)
    font = str(font_file(cfg["font"]))
    assert len(side["labels"]) > 10
    ring_y = []
    for lab in side["labels"]:
        fill, ring, _ = _sprite(lab["text"], font, size)
        u, v = label_corner(lab, font, size)
        f, r = np.asarray(fill) / 255.0, np.asarray(ring) / 255.0
        rows, cols = np.nonzero(f >= 0.75)
        assert len(rows) >= 3 * len(lab["text"].replace(" ", "")), lab       # the text has glyph pixels
        u0, v0, u1, v1 = lab["box"]
        assert (u0 <= u + cols).all() and (u + cols < u1).all() and (v0 <= v + rows).all() and (v + rows < v1).all(), lab
        assert (img[v + rows, u + cols].min(axis=1) > 0.7).mean() > 0.95, lab  # drawn white
        halo = (r > 0.99) & (f == 0)
        hr, hc = np.nonzero(halo)
        inside = (u + hc < img.shape[1]) & (v + hr < img.shape[0])
        y = _to_linear(img[v + hr[inside], u + hc[inside]]) @ _LUMA
        assert (y <= cfg["outline_luminance"] + 0.01).all(), lab           # the outline keeps the text legible
        ring_y.append(y)
    ring_y = np.concatenate(ring_y)
    assert (ring_y > 0.004).mean() > 0.1          # atoms show through the outlines


def test_scale_bar_and_leaders_drawn_where_the_sidecar_says(tmp_path, examples):
    """The scale bar's pixels are its colour between the sidecar's end points, with a
    dark edge; every leader line is drawn (light pixels along it, in its dark outline)."""
    style = load_style("misi_bench", {"render": {"resolution": [256, 256], "samples": 1},
                                      "scale_bar": {"enabled": True}})
    src = discover([examples / "1hvi.pdb"])[0]
    summary = render_structure_views(src, style, tmp_path, ["front"], labels=True, device="cpu")
    im = summary["images"][0]
    side = json.loads((tmp_path / im["image"]).with_suffix(".json").read_text())
    img = load_png(tmp_path / im["image"])
    bar = side["scale_bar"]
    (u0, v), (u1, _) = bar["points"]
    row = img[int(v), int(np.ceil(u0)):int(u1)]
    assert len(row) == int(u1) - int(np.ceil(u0)) > 10
    assert (row.min(axis=1) > 0.95).all()                       # the bar, white, end to end
    below = int(v + bar["thickness"] / 2)
    assert img[below, int(u0) + 5].max() < 0.2                   # its dark edge
    tb = bar["text_box"]
    patch = img[tb[1]:tb[3], tb[0]:tb[2]]
    assert 0.05 < (patch.min(axis=2) > 0.6).mean() < 0.9          # "5 Å" written above it
    leaders = [lab["leader"] for lab in side["labels"] if lab["leader"]]
    assert leaders, "expected some labels with leader lines on a crowded pocket"
    for (a, b), (c, d) in leaders:
        for t in (0.3, 0.5, 0.7):
            x, y = a + (c - a) * t, b + (d - b) * t
            near = img[max(0, int(y) - 1):int(y) + 2, max(0, int(x) - 1):int(x) + 2]
            assert near.min(axis=2).max() > 0.9, ((a, b), (c, d), t)   # the light line passes here


@pytest.mark.slow      # runs run_blender.py in a subprocess
def test_docking_ring_drawn_where_the_sidecar_says(tmp_path, examples, cli):
    """The site marker of a docking image: a light ring of the sidecar's radius round its point, in a dark
    outline, with the background showing inside it."""
    out = tmp_path / "out"
    res = cli("generate", "--structures", examples / "1hvi.pdb", "--out", out, "--tasks", "docking", "--split", "test",
              "--seed", 3, "--resolution", 256, 256, "--samples", 1, "--device", "cpu", "--no-progress", "--no-audit")
    assert res.returncode == 0, res.stderr[-2000:]
    rec = json.loads((out / "annotations.jsonl").read_text().splitlines()[0])
    for k in (0, 6):                                 # a pocket view and the combined view
        side = json.loads((out / rec["images"][k]).with_suffix(".json").read_text())
        img = load_png(out / rec["images"][k])
        (u, v), r = side["marker"]["point"], side["marker"]["radius_px"]
        lit = []
        for a in np.radians(np.arange(0, 360, 30)):
            x, y = u + r * np.cos(a), v + r * np.sin(a)
            near = img[int(y) - 1:int(y) + 2, int(x) - 1:int(x) + 2]
            lit.append(near.min(axis=2).max() > 0.8)
        assert np.mean(lit) > 0.9, (k, lit)
        assert not side["labels"] or all(not (lab["box"][0] < u < lab["box"][2] and lab["box"][1] < v < lab["box"][3])
                                          for lab in side["labels"])      # no label over the ring's centre


@pytest.mark.slow      # runs run_blender.py in a subprocess
def test_cli_render_records_failures_and_goes_on(tmp_path, examples, cli):
    bad = tmp_path / "broken.pdb"
    bad.write_bytes(b"\x00\x01binary junk")
    out = tmp_path / "out"
    res = cli("render", "--structures", bad, examples / "wagner_brd4", "--out", out, "--resolution", 64, 64,
              "--samples", 1, "--device", "cpu", "--no-labels")
    assert res.returncode == 3, res.stderr[-2000:]         # written, but an input failed
    assert "broken.pdb: binary file" in res.stderr
    fails = [json.loads(l) for l in (out / "failures.jsonl").read_text().splitlines()]
    assert len(fails) == 1 and fails[0]["structure"] == "broken"
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["device"] == ["CPU"] and manifest["blender"].startswith(("4.", "5."))
    assert len(list(out.glob("images/*.png"))) == 1


@pytest.mark.slow      # runs run_blender.py in a subprocess
def test_bad_preset_is_one_clear_error(tmp_path, examples, cli):
    preset = tmp_path / "bad.yaml"
    preset.write_text("render:\n  samplez: 3\n")
    res = cli("render", "--structures", examples / "wagner_brd4", "--out", tmp_path / "o", "--scene", preset)
    assert res.returncode == 2
    assert "bad.yaml: unknown key 'render.samplez'" in res.stderr
    assert "Traceback" not in res.stderr
