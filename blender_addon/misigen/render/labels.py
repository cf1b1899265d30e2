"""Draw the labels core/labels.py placed onto a rendered PNG (blf into an ImBuf)."""
from __future__ import annotations

import functools
from pathlib import Path

import bpy
import blf
import imbuf

from ..core.labels import font_px
from ..core.style import hex_to_rgb


@functools.lru_cache(maxsize=None)
def font_id(font_name: str) -> int:
    fonts = Path(bpy.utils.system_resource("DATAFILES")) / "fonts"
    for candidate in sorted(fonts.glob(f"{font_name}.*")):
        fid = blf.load(str(candidate))
        if fid != -1:
            return fid
    raise RuntimeError(f"label font {font_name!r} not found in {fonts}")


def draw_labels(png_in: str, png_out: str, labels: list[dict], style: dict, width: int, height: int) -> None:
    """Text with a 1-px outline, so it stays legible on any atom colour and on the background."""
    image = imbuf.load(png_in)
    if labels:
        cfg = style["labels"]
        fid = font_id(cfg["font"])
        colour = hex_to_rgb(cfg["color"])
        outline = hex_to_rgb(cfg["outline"])
        with blf.bind_imbuf(fid, image):
            blf.size(fid, font_px(style, width))
            for lab in labels:
                u0, _v0, _u1, v1 = lab["box"]
                x, y = u0, height - v1       # blf's origin is the bottom-left corner
                blf.color(fid, *outline, 1.0)
                for dx, dy in ((-1, 0), (1, 0), (0, -1), (0, 1), (-1, -1), (1, 1), (-1, 1), (1, -1)):
                    blf.position(fid, x + dx, y + dy, 0)
                    blf.draw_buffer(fid, lab["text"])
                blf.color(fid, *colour, 1.0)
                blf.position(fid, x, y, 0)
                blf.draw_buffer(fid, lab["text"])
    imbuf.write(image, filepath=png_out)
