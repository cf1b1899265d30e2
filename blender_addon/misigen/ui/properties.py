"""Scene-level settings the GUI edits; they map one-to-one onto preset keys."""
from __future__ import annotations

import bpy

from ..core.geometry import canonical_views
from ..core.style import SCENES_DIR


def _presets(_self, _context):
    return [(p.stem, p.stem, str(p)) for p in sorted(SCENES_DIR.glob("*.yaml"))]


def _views(_self, _context):
    return [(v, v.title(), f"the {v} view") for v in canonical_views()]


# preset key path → (property name, kind); the GUI edits exactly these keys.
STYLE_KEYS = {
    ("representation",): "representation",
    ("atom_scale",): "atom_scale",
    ("bond_radius",): "bond_radius",
    ("background",): "background",
    ("colors", "ligand_carbon"): "ligand_carbon",
    ("labels", "enabled"): "labels",
    ("labels", "size_px"): "label_size",
    ("lighting", "key_strength"): "key_strength",
    ("lighting", "ambient"): "ambient",
    ("render", "samples"): "samples",
}


class MisigenSettings(bpy.types.PropertyGroup):
    protein_path: bpy.props.StringProperty(name="Structure", subtype="FILE_PATH",
                                           description="PDB/mmCIF file, or a PDBbind-style folder")
    ligand: bpy.props.StringProperty(name="Ligand", description="RES:CHAIN:NUM (optional, PDB input)")
    preset: bpy.props.EnumProperty(name="Preset", items=_presets)
    view: bpy.props.EnumProperty(name="View", items=_views)
    transform: bpy.props.StringProperty(name="Transform", description="e.g. move x 3, roll y 15")
    output_dir: bpy.props.StringProperty(name="Output", subtype="DIR_PATH", default="//misigen_out")
    new_preset_name: bpy.props.StringProperty(name="Save as", default="my_style")
    preset_dir: bpy.props.StringProperty(name="Preset folder", subtype="DIR_PATH", default=str(SCENES_DIR))
    representation: bpy.props.EnumProperty(name="Style", items=[(r, r.replace("_", " "), r) for r in
                                                                ("ball_and_stick", "sticks", "spheres")])
    atom_scale: bpy.props.FloatProperty(name="Atom scale", min=0.05, max=1.5, default=0.25)
    bond_radius: bpy.props.FloatProperty(name="Bond radius", min=0.02, max=1.0, default=0.16)
    background: bpy.props.StringProperty(name="Background", default="#000000")
    ligand_carbon: bpy.props.StringProperty(name="Ligand C", default="#909090")
    labels: bpy.props.BoolProperty(name="Labels", default=True)
    label_size: bpy.props.IntProperty(name="Label size", min=6, max=64, default=11)
    key_strength: bpy.props.FloatProperty(name="Key light", min=0.0, max=20.0, default=3.0)
    ambient: bpy.props.FloatProperty(name="Ambient", min=0.0, max=5.0, default=0.6)
    samples: bpy.props.IntProperty(name="Samples", min=1, max=4096, default=16)
