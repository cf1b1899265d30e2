"""Blender GUI: import a complex, pick a view/transform, tune the style, save it as a preset.

Operators are thin: they call the same functions as the headless pipeline
(``core.loader``, ``core.scene_plan``, ``pipeline.render_job``, ``render.renderer``).
"""
from __future__ import annotations

import bpy

from . import operators, properties

CLASSES = (properties.MisigenSettings, operators.MISIGEN_OT_import, operators.MISIGEN_OT_show_view,
           operators.MISIGEN_OT_render, operators.MISIGEN_OT_save_preset, operators.MISIGEN_PT_panel)


def register():
    for cls in CLASSES:
        bpy.utils.register_class(cls)
    bpy.types.Scene.misigen = bpy.props.PointerProperty(type=properties.MisigenSettings)


def unregister():
    del bpy.types.Scene.misigen
    for cls in reversed(CLASSES):
        bpy.utils.unregister_class(cls)
