"""Draw the labels core/labels.py placed onto a rendered PNG (blf into an ImBuf)."""
from __future__ import annotations

import functools
from pathlib import Path

import bpy
import blf
import imbuf

from ..core.labels import OUTLINE_PX, font_px
from ..core.style import hex_to_rgb


OUTLINE = ((-1, 0), (1, 0), (0, -1), (0, 1), (-1, -1), (1, 1), (-1, 1), (1, -1))


def font_file(font_name: str) -> Path:
    fonts = Path(bpy.utils.system_resource("DATAFILES")) / "fonts"
    for candidate in sorted(fonts.glob(f"{font_name}.*")):
        return candidate
    raise RuntimeError(f"label font {font_name!r} not found in {fonts}")


@functools.lru_cache(maxsize=None)
def font_id(font_name: str) -> int:
    fid = blf.load(str(font_file(font_name)))
    if fid == -1:
        raise RuntimeError(f"Blender cannot load label font {font_name!r}")
    return fid


def draw_labels(png_in: str, png_out: str, labels: list[dict], style: dict, width: int, height: int) -> None:
    """Text with a 1-px outline, so it stays legible on any atom colour and on the background.

    Blender 4.3+ draws into the image with blf; Blender 4.2 has no ``blf.bind_imbuf``, so
    there the same text is drawn with Pillow and the same font file.
    """
    if labels and not hasattr(blf, "bind_imbuf"):
        _draw_labels_pillow(png_in, png_out, labels, style, width)
        return
    image = imbuf.load(png_in)
    if labels:
        cfg = style["labels"]
        fid = font_id(cfg["font"])
        colour = hex_to_rgb(cfg["color"])
        outline = hex_to_rgb(cfg["outline"])
        with blf.bind_imbuf(fid, image):
            blf.size(fid, font_px(style, width))
            for lab in labels:
                u0, _v0, _u1, v1 = lab["box"]     # the box includes the outline
                x, y = u0 + OUTLINE_PX, height - v1 + OUTLINE_PX   # blf's origin is the bottom-left corner
                blf.color(fid, *outline, 1.0)
                for dx, dy in OUTLINE:
                    blf.position(fid, x + dx, y + dy, 0)
                    blf.draw_buffer(fid, lab["text"])
                blf.color(fid, *colour, 1.0)
                blf.position(fid, x, y, 0)
                blf.draw_buffer(fid, lab["text"])
    imbuf.write(image, filepath=png_out)


def _draw_labels_pillow(png_in: str, png_out: str, labels: list[dict], style: dict, width: int) -> None:
    from PIL import Image, ImageDraw, ImageFont

    cfg = style["labels"]
    font = ImageFont.truetype(str(font_file(cfg["font"])), font_px(style, width))
    colour = tuple(int(round(c * 255)) for c in hex_to_rgb(cfg["color"]))
    outline = tuple(int(round(c * 255)) for c in hex_to_rgb(cfg["outline"]))
    image = Image.open(png_in).convert("RGB")
    draw = ImageDraw.Draw(image)
    for lab in labels:
        u0, _v0, _u1, v1 = lab["box"]
        u0, v1 = u0 + OUTLINE_PX, v1 - OUTLINE_PX     # the box includes the outline
        # Anchor "ls" = left, baseline: the baseline sits on the text box's bottom edge as with blf.
        for dx, dy in OUTLINE:
            draw.text((u0 + dx, v1 + dy), lab["text"], font=font, fill=outline, anchor="ls")
        draw.text((u0, v1), lab["text"], font=font, fill=colour, anchor="ls")
    image.save(png_out)
