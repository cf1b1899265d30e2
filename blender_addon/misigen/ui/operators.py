"""GUI operators and the sidebar panel (thin: all logic lives in core/, render/, pipeline/)."""
from __future__ import annotations

import re
from pathlib import Path

import bpy
import yaml

from ..core.errors import InputError
from ..core.loader import discover, load_structure
from ..core.scene_plan import shown_structure
from ..core.style import SCENES_DIR, load_style, read_yaml
from ..pipeline.render_job import plan_views
from .properties import STYLE_KEYS

_STATE: dict = {}   # the structure and renderer of the current GUI session


def _settings(context):
    """The settings the user edits live on the scene they started from, not the built scene."""
    name = _STATE.get("settings_scene")
    return bpy.data.scenes[name].misigen if name in bpy.data.scenes else context.scene.misigen


def current_style(settings) -> dict:
    """The chosen preset with the panel's edits applied (validated like any preset)."""
    overrides: dict = {}
    for path, prop in STYLE_KEYS.items():
        node = overrides
        for key in path[:-1]:
            node = node.setdefault(key, {})
        node[path[-1]] = getattr(settings, prop)
    return load_style(settings.preset or "misi_bench", overrides)


def load_settings_from_preset(settings) -> None:
    style = load_style(settings.preset or "misi_bench")
    for path, prop in STYLE_KEYS.items():
        value = style
        for key in path:
            value = value[key]
        setattr(settings, prop, value)


class MISIGEN_OT_import(bpy.types.Operator):
    """Load a protein–ligand complex and build its scene with the chosen style"""
    bl_idname = "misigen.import_structure"
    bl_label = "Import complex"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context):
        from ..render.renderer import SceneRenderer

        settings = context.scene.misigen if "renderer" not in _STATE else _settings(context)
        _STATE["settings_scene"] = settings.id_data.name
        if not _STATE.get("style_loaded"):
            load_settings_from_preset(settings)
            _STATE["style_loaded"] = True
        try:
            source = discover([bpy.path.abspath(settings.protein_path)])[0]
            structure = load_structure(source, settings.ligand or None)
            style = current_style(settings)
        except (InputError, IndexError) as exc:
            self.report({"ERROR"}, str(exc) or "no structure found")
            return {"CANCELLED"}
        if _STATE.get("renderer"):
            _STATE["renderer"].close()
        shown = shown_structure(structure, style)
        renderer = SceneRenderer(shown, style, "auto")
        _STATE.update(structure=structure, shown=shown, style=style, renderer=renderer)
        if context.window is not None:
            context.window.scene = renderer.scene
        bpy.ops.misigen.show_view()
        self.report({"INFO"}, f"{structure.id}: {shown.n_atoms} atoms shown, device {renderer.device}")
        return {"FINISHED"}


class MISIGEN_OT_show_view(bpy.types.Operator):
    """Pose the models for the chosen view and transform, framing the camera as the pipeline does"""
    bl_idname = "misigen.show_view"
    bl_label = "Show view"

    def execute(self, context):
        if "renderer" not in _STATE:
            self.report({"ERROR"}, "import a complex first")
            return {"CANCELLED"}
        settings = _settings(context)
        try:
            _view, spec, mats = plan_views(_STATE["shown"], _STATE["style"], [settings.view or "front"],
                                           settings.transform or None)[0]
        except ValueError as exc:
            self.report({"ERROR"}, str(exc))
            return {"CANCELLED"}
        _STATE["renderer"].set_camera(spec.camera)
        _STATE["renderer"].set_pose(mats)
        _STATE["planned"] = (spec, mats)
        return {"FINISHED"}


class MISIGEN_OT_render(bpy.types.Operator):
    """Render the current view with labels and its sidecar annotation, as the headless path does"""
    bl_idname = "misigen.render_view"
    bl_label = "Render view"

    def execute(self, context):
        from ..pipeline.render_job import render_annotated

        if "planned" not in _STATE:
            self.report({"ERROR"}, "import a complex first")
            return {"CANCELLED"}
        spec, mats = _STATE["planned"]
        out = Path(bpy.path.abspath(_settings(context).output_dir))
        png, seconds = render_annotated(_STATE["renderer"], _STATE["shown"], spec, mats, out)
        self.report({"INFO"}, f"rendered {png} in {seconds:.2f}s")
        return {"FINISHED"}


class MISIGEN_OT_save_preset(bpy.types.Operator):
    """Save the panel's style as a preset YAML in scenes/ (the headless run can then use it)"""
    bl_idname = "misigen.save_preset"
    bl_label = "Save style preset"

    def execute(self, context):
        settings = _settings(context)
        name = re.sub(r"[^A-Za-z0-9_-]+", "_", settings.new_preset_name).strip("_")
        if not name:
            self.report({"ERROR"}, "preset name is empty")
            return {"CANCELLED"}
        try:
            style = current_style(settings)
        except InputError as exc:
            self.report({"ERROR"}, str(exc))
            return {"CANCELLED"}
        base = read_yaml(SCENES_DIR / f"{settings.preset or 'misi_bench'}.yaml") or {}
        base.update({"name": name, "description": f"Saved from the misigen panel (based on {settings.preset})."})
        for path, _prop in STYLE_KEYS.items():
            node, src = base, style
            for key in path[:-1]:
                node = node.setdefault(key, {})
                src = src[key]
            node[path[-1]] = src[path[-1]]
        target = Path(bpy.path.abspath(settings.preset_dir)) / f"{name}.yaml"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(yaml.safe_dump(base, sort_keys=False), encoding="utf-8")
        load_style(target)  # re-read: what was saved must load
        self.report({"INFO"}, f"saved {target}")
        return {"FINISHED"}


class MISIGEN_PT_panel(bpy.types.Panel):
    bl_label = "misigen"
    bl_idname = "MISIGEN_PT_panel"
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "misigen"

    def draw(self, context):
        s = _settings(context)
        col = self.layout.column()
        col.prop(s, "protein_path")
        col.prop(s, "ligand")
        col.prop(s, "preset")
        col.operator("misigen.import_structure")
        col.separator()
        col.prop(s, "view")
        col.prop(s, "transform")
        col.operator("misigen.show_view")
        col.prop(s, "output_dir")
        col.operator("misigen.render_view")
        box = col.box()
        box.label(text="Style")
        for prop in ("representation", "atom_scale", "bond_radius", "background", "ligand_carbon", "labels",
                     "label_size", "key_strength", "ambient", "samples"):
            box.prop(s, prop)
        box.prop(s, "new_preset_name")
        box.prop(s, "preset_dir")
        box.operator("misigen.save_preset")
