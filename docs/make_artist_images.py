"""Renders the images of docs/BLENDER.md (docs/images/artist_*.png) through misigen.api.

    python docs/make_artist_images.py          # ~15 s on 2 CPU cores
"""
import sys
from pathlib import Path

try:  # PyPI bpy 4.2: RDKit before bpy
    import rdkit.Chem  # noqa: F401
except ImportError:
    pass

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "blender_addon"))

from PIL import Image  # noqa: E402

from misigen import api  # noqa: E402

OUT = ROOT / "docs" / "images"
ARTIST = {"background": "#1B2030", "atom_scale": 0.4, "colors": {"ligand_carbon": "#3FD16B"},
          "labels": {"enabled": False}, "render": {"resolution": [384, 384], "samples": 8}}


def render_front(style, name):
    complex_ = api.load(api.examples_dir() / "wagner_brd4")
    shown = api.shown(complex_, style)
    with api.open_renderer(shown, style, "cpu") as renderer:
        (_v, spec, mats), = api.plan_views(shown, style, ["front"], None, labels=style["labels"]["enabled"])
        png, _ = api.render_annotated(renderer, shown, spec, mats, OUT / "_tmp")
    Image.open(png).save(OUT / name, optimize=True)


def docking_strip():
    complex_ = api.load(api.examples_dir() / "wagner_brd4")
    style = api.load_style("misi_bench", {"render": {"resolution": [320, 320]}})
    samples, _ = api.plan_task(api.load_task("docking"), complex_, style, "test", seed=0)
    got = api.render_sample(complex_, samples[0], OUT / "_tmp", "cpu")
    tiles = [Image.open(p).resize((200, 200)) for p in got["images"]]
    strip = Image.new("RGB", (200 * len(tiles) + 4 * (len(tiles) - 1), 200), "white")
    for k, tile in enumerate(tiles):
        strip.paste(tile, (k * 204, 0))
    strip.save(OUT / "artist_preview_docking.png", optimize=True)
    return samples[0].answer


if __name__ == "__main__":
    import shutil
    render_front(api.load_style("misi_bench", {"labels": {"enabled": False},
                                               "render": {"resolution": [384, 384], "samples": 8}}),
                 "artist_before.png")
    render_front(api.load_style("misi_bench", ARTIST), "artist_after.png")
    print("docking sample answer:", docking_strip())
    shutil.rmtree(OUT / "_tmp")
