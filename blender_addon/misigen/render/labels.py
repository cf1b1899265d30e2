"""The label font: Blender ships it (``overlay`` draws with it, given its file)."""
from __future__ import annotations

import functools
from pathlib import Path

import bpy


@functools.lru_cache(maxsize=16)
def font_file(font_name: str) -> Path:
    fonts = Path(bpy.utils.system_resource("DATAFILES")) / "fonts"
    for candidate in sorted(fonts.glob(f"{font_name}.*")):
        return candidate
    raise RuntimeError(f"label font {font_name!r} not found in {fonts}")
