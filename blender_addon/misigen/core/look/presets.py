"""Saving a style as a preset: the GUI's "Save preset" writes what ``--scene NAME`` then reads.

A saved preset holds only what differs from the reference preset (``misi_bench``), so it
reads like the bundled ones and keeps working when the reference gains new keys.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import yaml

from ..errors import InputError
from ..resources import bundled_presets, scenes_dir, user_presets_dir
from .style import REFERENCE_PRESET, load_style

SAFE_NAME = re.compile(r"[^A-Za-z0-9_-]+")


def preset_name(text: str) -> str:
    """A file-safe preset name: letters, digits, ``_`` and ``-``."""
    return SAFE_NAME.sub("_", text).strip("_")


def style_overrides(style: dict, reference: dict) -> dict:
    """The keys of ``style`` whose values differ from ``reference`` (nested mappings recursed)."""
    out = {}
    for key, value in style.items():
        ref = reference.get(key)
        if isinstance(value, dict) and isinstance(ref, dict):
            sub = style_overrides(value, ref)
            if sub:
                out[key] = sub
        elif value != ref:
            out[key] = value
    return out


def save_preset(name: str, style: dict, folder: str | Path | None = None, description: str = "") -> Path:
    """Write ``style`` as preset ``name`` in ``folder`` (default: the user presets folder).

    Bundled names are reserved; the file is written whole or not at all and read back
    through the same validation as any preset before this returns."""
    folder = Path(folder) if folder else user_presets_dir()
    clean = preset_name(name)
    target = folder / f"{clean or 'preset'}.yaml"
    if not clean:
        raise InputError(target, "preset name is empty")
    if clean in bundled_presets():
        raise InputError(target, f"{clean!r} is a bundled preset ({scenes_dir()}); choose another name")
    reference = load_style(REFERENCE_PRESET)
    data = {"name": clean, "description": description or f"Saved from misigen (based on {style.get('name')})."}
    data.update({k: v for k, v in style_overrides(style, reference).items() if k not in data})
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.tmp")
        tmp.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
        os.replace(tmp, target)
    except OSError as exc:
        raise InputError(target, f"cannot write preset: {exc.strerror or exc}") from None
    load_style(target)
    return target
