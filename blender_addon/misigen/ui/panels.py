"""The misigen tab of the 3D view's sidebar: import, style, view, task preview."""
from __future__ import annotations

import textwrap

import bpy

from .session import settings_of


def _wrapped(layout, text: str, width_px: float, icon: str = "NONE") -> None:
    """Multi-line text wrapped to the panel's width (Blender labels do not wrap)."""
    chars = max(20, int(width_px / 7))
    first = True
    for para in text.splitlines() or [""]:
        for line in textwrap.wrap(para, chars) or [""]:
            layout.label(text=line, icon=icon if first else "NONE")
            first = False


class _Panel:
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "misigen"


class MISIGEN_PT_panel(_Panel, bpy.types.Panel):
    bl_label = "misigen"
    bl_idname = "MISIGEN_PT_panel"

    def draw(self, context):
        s = settings_of(context)
        col = self.layout.column()
        if s.last_error:
            box = col.box()
            _wrapped(box, s.last_error, context.region.width, "ERROR")
        col.prop(s, "structure_path")
        col.prop(s, "ligand_path")
        col.prop(s, "ligand")
        col.operator("misigen.import_structure", icon="IMPORT")
        col.separator()
        col.prop(s, "view")
        col.prop(s, "transform")
        col.operator("misigen.show_view", icon="VIEW_CAMERA")
        col.prop(s, "output_dir")
        col.prop(s, "device")
        col.operator("misigen.render_view", icon="RENDER_STILL")


class MISIGEN_PT_style(_Panel, bpy.types.Panel):
    bl_label = "Style"
    bl_parent_id = "MISIGEN_PT_panel"

    def draw(self, context):
        s = settings_of(context)
        col = self.layout.column()
        row = col.row(align=True)
        row.prop(s, "preset")
        row.operator("misigen.reset_style", text="", icon="LOOP_BACK")
        col.prop(s, "representation")
        col.prop(s, "atom_scale")
        col.prop(s, "bond_radius")
        box = col.box()
        box.label(text="Colours")
        for prop in ("background", "ligand_carbon", "pocket_carbon_a", "pocket_carbon_b", "nitrogen", "oxygen",
                     "sulfur"):
            box.prop(s, prop)
        box = col.box()
        box.prop(s, "labels")
        box.prop(s, "label_size")
        box.prop(s, "label_color")
        box = col.box()
        box.label(text="Camera and render")
        box.prop(s, "projection")
        box.prop(s, "fov_deg")
        box.prop(s, "margin")
        box.prop(s, "pocket_cutoff")
        box.prop(s, "hydrogens")
        box.prop(s, "lighting_model")
        box.prop(s, "key_strength")
        box.prop(s, "fill_strength")
        box.prop(s, "ambient")
        box.prop(s, "depth_cue")
        box.prop(s, "samples")
        box.prop(s, "resolution")
        box.prop(s, "denoise")
        col.separator()
        col.prop(s, "new_preset_name")
        col.operator("misigen.save_preset", icon="FILE_TICK")


class MISIGEN_PT_preview(_Panel, bpy.types.Panel):
    bl_label = "Task preview"
    bl_parent_id = "MISIGEN_PT_panel"

    def draw(self, context):
        s = settings_of(context)
        col = self.layout.column()
        col.prop(s, "suite")
        col.prop(s, "task")
        row = col.row(align=True)
        row.prop(s, "split", text="")
        row.prop(s, "seed")
        col.prop(s, "sample_index")
        col.operator("misigen.preview_sample", icon="PLAY")
        if not s.sample_id:
            return
        row = col.row(align=True)
        row.operator("misigen.preview_step", text="", icon="TRIA_LEFT").step = -1
        row.label(text=f"{s.image_index + 1} / {s.n_images}")
        row.operator("misigen.preview_step", text="", icon="TRIA_RIGHT").step = 1
        _wrapped(col, s.image_caption, context.region.width)
        col.operator("misigen.render_sample", icon="RENDER_RESULT")
        box = col.box()
        box.label(text=s.sample_id)
        _wrapped(box, s.question, context.region.width)
        if s.options:
            box.label(text="Options:")
            _wrapped(box, s.options, context.region.width)
        _wrapped(box, f"Answer: {s.answer}", context.region.width, "CHECKMARK")


CLASSES = (MISIGEN_PT_panel, MISIGEN_PT_style, MISIGEN_PT_preview)
