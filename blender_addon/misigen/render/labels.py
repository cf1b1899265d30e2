"""Draw what core/ placed (labels, leader lines, the scale bar) onto a rendered image, in memory.

Cycles writes an uncompressed BMP; Pillow draws on it and encodes the one PNG that is kept,
with the preset's zlib level (lossless, so a fast level changes no pixel). Each label text
is rasterised once per font size and pasted wherever it appears (views repeat their labels).
"""
from __future__ import annotations

import functools
from pathlib import Path

import bpy

from ..core.labels import OUTLINE_PX, font_px
from ..core.style import hex_to_rgb


def font_file(font_name: str) -> Path:
    fonts = Path(bpy.utils.system_resource("DATAFILES")) / "fonts"
    for candidate in sorted(fonts.glob(f"{font_name}.*")):
        return candidate
    raise RuntimeError(f"label font {font_name!r} not found in {fonts}")


@functools.lru_cache(maxsize=16)
def _font(font_name: str, size: int):
    from PIL import ImageFont
    return ImageFont.truetype(str(font_file(font_name)), size)


@functools.lru_cache(maxsize=8192)
def _sprite(text: str, font_name: str, size: int):
    """(fill mask, outline mask) of one label text; the box's top-left corner is (0, 0) and the
    baseline sits on the box's bottom edge less the outline, as core.labels lays it out."""
    from PIL import Image, ImageChops, ImageDraw
    font = _font(font_name, size)
    left, top, right, bottom = font.getbbox(text, anchor="ls")
    w = max(right, 1) + 2 * OUTLINE_PX + 2
    base = max(-top, 1) + OUTLINE_PX + 1            # rows above the baseline
    h = base + max(bottom, 0) + OUTLINE_PX + 1
    fill = Image.new("L", (w, h), 0)
    ImageDraw.Draw(fill).text((OUTLINE_PX, base), text, font=font, fill=255, anchor="ls")
    outline = Image.new("L", (w, h), 0)
    for dx in (-1, 0, 1):                          # the 1-px outline: the glyphs shifted 8 ways
        for dy in (-1, 0, 1):
            if dx or dy:
                outline = ImageChops.lighter(outline, ImageChops.offset(fill, dx, dy))
    return fill, outline, base


def draw_overlay(raw: str, png_out: str, labels: list[dict], style: dict, width: int, height: int,
                 scale_bar: dict | None = None) -> None:
    """Labels (text with a 1-px outline, legible on any atom colour and the background), their
    leader lines and the scale bar onto the raw render; one PNG written to ``png_out``."""
    from PIL import Image, ImageDraw

    image = Image.open(raw).convert("RGB")
    cfg = style["labels"]
    colour = tuple(int(round(c * 255)) for c in hex_to_rgb(cfg["color"]))
    outline = tuple(int(round(c * 255)) for c in hex_to_rgb(cfg["outline"]))
    draw = ImageDraw.Draw(image)
    size = font_px(style, width)
    for lab in labels:
        if lab.get("leader"):
            (a, b), (c, d) = lab["leader"]
            draw.line([(a, b), (c, d)], fill=outline, width=3)
            draw.line([(a, b), (c, d)], fill=colour, width=1)
    if scale_bar:
        (u0, v), (u1, _) = scale_bar["points"]
        t = scale_bar["thickness"]
        bar = tuple(int(round(c * 255)) for c in hex_to_rgb(style["scale_bar"]["color"]))
        draw.rectangle([u0 - 1, v - t / 2 - 1, u1, v + t / 2], fill=outline)
        draw.rectangle([u0, v - t / 2, u1 - 1, v + t / 2 - 1], fill=bar)
        labels = list(labels) + [{"text": scale_bar["text"], "box": scale_bar["text_box"]}]
    for lab in labels:
        u0, _v0, _u1, v1 = lab["box"]                  # the box includes the outline
        fill, ring, base = _sprite(lab["text"], cfg["font"], size)
        corner = (int(u0), int(v1) - OUTLINE_PX - base)   # the baseline on the box's bottom edge less the outline
        image.paste(outline, corner, ring)
        image.paste(colour, corner, fill)
    level = max(0, min(9, round(int(style["render"]["png_compression"]) * 9 / 100)))
    image.save(png_out, format="PNG", compress_level=level)
