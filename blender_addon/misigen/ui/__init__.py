"""Blender GUI: File › Import entries, the misigen sidebar (style, presets, task preview),
add-on preferences and the ``blender -c misigen …`` command.

Operators are thin: ``ui.session`` turns the scene-held settings into calls of
``misigen.api``, the same functions the headless pipeline and notebooks use.
"""
from __future__ import annotations

import bpy

from . import operators, panels, preferences, properties

CLASSES = (properties.MisigenSettings, preferences.MisigenPreferences, *operators.CLASSES, *panels.CLASSES)
_cli_handle = []      # the registered command-line handler, to unregister it again


def _command_line(argv) -> int:
    """``blender -c misigen <command> …``: the CLI of the installed add-on/extension."""
    from ..pipeline.cli import main
    return main(list(argv))


def register():
    for cls in CLASSES:
        bpy.utils.register_class(cls)
    bpy.types.Scene.misigen = bpy.props.PointerProperty(type=properties.MisigenSettings)
    bpy.types.TOPBAR_MT_file_import.append(operators.import_menu)
    if hasattr(bpy.utils, "register_cli_command"):     # Blender 4.2+
        _cli_handle.append(bpy.utils.register_cli_command("misigen", _command_line))


def unregister():
    while _cli_handle:
        bpy.utils.unregister_cli_command(_cli_handle.pop())
    bpy.types.TOPBAR_MT_file_import.remove(operators.import_menu)
    del bpy.types.Scene.misigen
    for cls in reversed(CLASSES):
        bpy.utils.unregister_class(cls)
