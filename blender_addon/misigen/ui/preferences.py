"""Add-on preferences: where renders go, which device renders, where presets are saved."""
from __future__ import annotations

from pathlib import Path

import bpy

from ..core.resources import user_presets_dir
from ..render.device import DEVICE_NAMES

ADDON_ID = __package__.rpartition(".")[0]     # "misigen", or "bl_ext.<repo>.misigen" as an extension


class MisigenPreferences(bpy.types.AddonPreferences):
    bl_idname = ADDON_ID

    output_dir: bpy.props.StringProperty(name="Output folder", subtype="DIR_PATH", default="",
                                         description="Where GUI renders go (empty: ~/misigen_out)")
    device: bpy.props.EnumProperty(name="Device", items=[(d, d, "") for d in DEVICE_NAMES],
                                   description="Cycles device; auto = first GPU backend that has a device, else CPU")
    presets_dir: bpy.props.StringProperty(name="Presets folder", subtype="DIR_PATH", default="",
                                          description="Where saved presets go (empty: the folder the headless "
                                                      "'--scene NAME' also reads, see MISIGEN_PRESETS)")

    def draw(self, _context):
        col = self.layout.column()
        col.prop(self, "output_dir")
        col.prop(self, "device")
        col.prop(self, "presets_dir")
        col.label(text=f"Default presets folder: {user_presets_dir()}")


def _prefs():
    addon = bpy.context.preferences.addons.get(ADDON_ID)
    return addon.preferences if addon is not None else None   # None when registered by a script


def output_dir(settings) -> Path:
    chosen = settings.output_dir or (_prefs().output_dir if _prefs() else "") or "~/misigen_out"
    return Path(bpy.path.abspath(chosen)).expanduser()


def device(settings) -> str:
    if settings.device != "PREFS":
        return settings.device
    return _prefs().device if _prefs() else "auto"


def presets_dir() -> Path:
    chosen = _prefs().presets_dir if _prefs() else ""
    return Path(bpy.path.abspath(chosen)).expanduser() if chosen else user_presets_dir()
