"""Draw what core/ placed (labels, leader lines, the scale bar) onto a rendered image, in memory.

Cycles writes an uncompressed BMP; Pillow draws on it and encodes the one PNG that is kept,
with the preset's zlib level (lossless, so a fast level changes no pixel). Each label text
is rasterised once per font size and pasted wherever it appears (views repeat their labels).

Pillow and numpy only, no Blender: a planning process (``pipeline.planners``), which starts
without Blender, finishes images with it. The font comes as a file (``labels.font_file`` finds
Blender's, in the process that has Blender).
"""
from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..core.scene.labels import OUTLINE_PX, font_px
from ..core.look.style import hex_to_rgb


@dataclass(frozen=True)
class LabelledImage:
    """What turns a raw render into its kept PNG (values only, so another process may do it)."""
    raw: str                       # the raw render (``.<stem>.raw.bmp`` beside the PNG)
    png: str
    labels: tuple                  # label dicts, as the sidecar has them
    style: dict
    width: int
    height: int
    marks: dict                    # "scale_bar", "marker": the sidecar's entries (None or absent: not drawn)
    font: str                      # the label font's file

    def write(self) -> None:
        """Draw labels and marks (scale bar, site marker), write the PNG atomically, remove the raw render."""
        png = Path(self.png)
        tmp = png.with_name(f".{png.stem}.tmp.png")
        draw_overlay(self.raw, str(tmp), list(self.labels), self.style, self.width, self.height, self.marks,
                     font=self.font)
        os.replace(tmp, png)
        Path(self.raw).unlink(missing_ok=True)


@functools.lru_cache(maxsize=16)
def _font(font: str, size: int):
    from PIL import ImageFont
    return ImageFont.truetype(font, size)


@functools.lru_cache(maxsize=8192)
def _sprite(text: str, font: str, size: int):
    """(fill mask, outline mask, rows above the baseline) of one label text; the box's top-left corner
    is (0, 0) and the baseline sits on the box's bottom edge less the outline, as core.scene.labels lays it
    out. The outline is every pixel within one of a glyph pixel at full strength (a soft edge would let
    bright atoms through right beside the strokes)."""
    from PIL import Image, ImageDraw, ImageFilter
    face = _font(font, size)
    left, top, right, bottom = face.getbbox(text, anchor="ls")
    w = max(right, 1) + 2 * OUTLINE_PX + 2
    base = max(-top, 1) + OUTLINE_PX + 1            # rows above the baseline
    h = base + max(bottom, 0) + OUTLINE_PX + 1
    fill = Image.new("L", (w, h), 0)
    ImageDraw.Draw(fill).text((OUTLINE_PX, base), text, font=face, fill=255, anchor="ls")
    glyphs = fill.point(lambda x: 255 if x >= 64 else 0)
    outline = glyphs.filter(ImageFilter.MaxFilter(2 * OUTLINE_PX + 1))
    return fill, outline, base


# Relative luminance of linear RGB (Rec. 709 / sRGB primaries).
_LUMA = np.array([0.2126, 0.7152, 0.0722], np.float32)


def _to_linear(c: np.ndarray) -> np.ndarray:
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


_LINEAR = _to_linear(np.arange(256, dtype=np.float32) / 255.0)      # an 8-bit sRGB value's linear value


def _to_srgb(c: np.ndarray) -> np.ndarray:
    return np.where(c <= 0.0031308, c * 12.92, 1.055 * np.power(np.maximum(c, 0.0), 1 / 2.4) - 0.055)


def darken_under(image, mask, outline: tuple, limit: float):
    """``image`` with the pixels under ``mask`` (an "L" image, 255: fully) moved toward the ``outline``
    colour only as far as brings their relative luminance down to ``limit``: what is under a label's
    outline shows through, dimmed, and light text keeps at least (1.05 / (limit + 0.05)) : 1 contrast
    with it. ``limit`` 0 (or an outline at least that bright) paints the outline colour itself.
    Only the pixels under the mask are computed (a few percent of an image with dozens of labels)."""
    from PIL import Image
    bbox = mask.getbbox()
    if bbox is None:
        return image
    weight = np.asarray(mask.crop(bbox)).reshape(-1)
    under = np.flatnonzero(weight)                  # the pixels under the mask, row by row
    patch = np.array(image.crop(bbox))
    pixels = patch.reshape(-1, 3)
    px = _LINEAR[pixels[under]]
    m = weight[under, None].astype(np.float32) / 255.0
    out = _to_linear(np.asarray(outline, np.float32) / 255.0)
    y, y_out = px @ _LUMA, float(out @ _LUMA)
    # the share of the way from the pixel to the outline colour that brings its luminance to the limit
    t = np.where(y > limit, (y - limit) / np.maximum(y - y_out, 1e-6), 0.0) if limit > y_out else np.ones_like(y)
    # A pixel that does not move keeps its value: every 8-bit value comes back from linear and sRGB unchanged.
    moving = np.nonzero(t > 0)[0]
    if not len(moving):
        return image
    px, m, t = px[moving], m[moving], t[moving]
    moved = px + (out - px) * (np.clip(t, 0.0, 1.0)[..., None] * m)
    pixels[under[moving]] = np.clip(np.rint(_to_srgb(moved) * 255.0), 0, 255).astype(np.uint8)
    image.paste(Image.fromarray(patch, "RGB"), bbox[:2])
    return image


def draw_overlay(raw: str, png_out: str, labels: list[dict], style: dict, width: int, height: int,
                 marks: dict | None = None, *, font: str) -> None:
    """Labels (text with a 1-px outline that dims what is under it, ``labels.outline_luminance``),
    their leader lines and the marks (site marker, scale bar) onto the raw render; one PNG written to ``png_out``.
    ``font``: the label font's file (``labels.font_file`` of the style's font)."""
    from PIL import Image, ImageDraw

    image = Image.open(raw).convert("RGB")
    cfg = style["labels"]
    colour = tuple(int(round(c * 255)) for c in hex_to_rgb(cfg["color"]))
    outline = tuple(int(round(c * 255)) for c in hex_to_rgb(cfg["outline"]))
    limit = float(cfg["outline_luminance"])
    size = font_px(style, width)
    leaders = [lab["leader"] for lab in labels if lab.get("leader")]
    if leaders:
        halo = Image.new("L", image.size, 0)
        for (a, b), (c, d) in leaders:
            ImageDraw.Draw(halo).line([(a, b), (c, d)], fill=255, width=3)
        image = darken_under(image, halo, outline, limit)
    draw = ImageDraw.Draw(image)
    for (a, b), (c, d) in leaders:
        draw.line([(a, b), (c, d)], fill=colour, width=1)
    marks = marks or {}
    scale_bar, marker = marks.get("scale_bar"), marks.get("marker")
    if marker:
        (u, v), r, t = marker["point"], marker["radius_px"], marker["thickness"]
        ring = [u - r, v - r, u + r, v + r]
        draw.ellipse([ring[0] - 1, ring[1] - 1, ring[2] + 1, ring[3] + 1], outline=outline, width=t + 2)
        draw.ellipse(ring, outline=colour, width=t)
        draw.line([(u - 1, v), (u + 1, v)], fill=colour, width=1)
        draw.line([(u, v - 1), (u, v + 1)], fill=colour, width=1)
    if scale_bar:
        (u0, v), (u1, _) = scale_bar["points"]
        t = scale_bar["thickness"]
        bar = tuple(int(round(c * 255)) for c in hex_to_rgb(style["scale_bar"]["color"]))
        draw.rectangle([u0 - 1, v - t / 2 - 1, u1, v + t / 2], fill=outline)
        draw.rectangle([u0, v - t / 2, u1 - 1, v + t / 2 - 1], fill=bar)
        labels = list(labels) + [{"text": scale_bar["text"], "box": scale_bar["text_box"]}]
    texts = [(label_corner(lab, font, size), lab["text"]) for lab in labels]
    halo = Image.new("L", image.size, 0)
    for corner, text in texts:
        halo.paste(255, corner, _sprite(text, font, size)[1])
    image = darken_under(image, halo, outline, limit)
    for corner, text in texts:
        image.paste(colour, corner, _sprite(text, font, size)[0])
    level = max(0, min(9, round(int(style["render"]["png_compression"]) * 9 / 100)))
    image.save(png_out, format="PNG", compress_level=level)


def label_corner(lab: dict, font: str, size: int) -> tuple[int, int]:
    """Where a label's text sprite goes: the baseline on the box's bottom edge less the outline."""
    u0, _v0, _u1, v1 = lab["box"]                  # the box includes the outline
    return int(u0), int(v1) - OUTLINE_PX - _sprite(lab["text"], font, size)[2]
