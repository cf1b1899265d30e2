"""The GUI's session state, kept on Blender's scenes (saved with the .blend, undoable).

``MisigenSettings`` hangs off every scene as ``scene.misigen``. The scene the artist starts
from holds the settings; the scene misigen builds for a structure points back to it
(``owner``), and the owner points at its built scene (``built_scene``).
"""
from __future__ import annotations

import bpy

from ..core.scene.geometry import canonical_views
from ..core.resources import preset_names
from ..core.look.style import hex_to_rgb
from ..core.tasks import task_names
from ..render.device import DEVICE_NAMES

def search_presets(_self, _context, text):
    from .preferences import presets_dir
    return [name for name in preset_names(presets_dir()) if text.lower() in name.lower()]


def _on_preset(self, _context):
    from .session import load_settings_from_preset
    load_settings_from_preset(self)


def _search_tasks(self, _context, text):
    from .session import suite_tasks
    try:
        return [t for t in suite_tasks(self.suite) if text.lower() in t.lower()]
    except Exception as exc:   # a search box cannot report; say why in the list itself
        return [f"(cannot read suite: {exc})"]


def _colour(name, default):
    return bpy.props.FloatVectorProperty(name=name, subtype="COLOR_GAMMA", size=3, min=0.0, max=1.0,
                                         default=hex_to_rgb(default))


class MisigenSettings(bpy.types.PropertyGroup):
    # ---- what to import
    structure_path: bpy.props.StringProperty(name="Structure", subtype="FILE_PATH",
                                             description="PDB/mmCIF file, or a PDBbind-style folder")
    ligand_path: bpy.props.StringProperty(name="Ligand file", subtype="FILE_PATH",
                                          description="SDF/MOL2 ligand to pair with the structure (optional)")
    ligand: bpy.props.StringProperty(name="Ligand", description="RES:CHAIN:NUM of the HETATM ligand (optional)")
    # ---- style (mirrors preset keys, see STYLE_KEYS)
    preset: bpy.props.StringProperty(name="Preset", default="misi_bench", search=search_presets,
                                     update=_on_preset, description="Style preset the edits below start from")
    representation: bpy.props.EnumProperty(name="Style", items=[(r, r.replace("_", " ").title(), r) for r in
                                                                ("ball_and_stick", "sticks", "spheres")])
    atom_scale: bpy.props.FloatProperty(name="Atom scale", min=0.05, max=1.5, default=0.25,
                                        description="Sphere radius = van der Waals radius × this")
    bond_radius: bpy.props.FloatProperty(name="Bond radius", min=0.02, max=1.0, default=0.16, unit="NONE")
    background: _colour("Background", "#000000")
    ligand_carbon: _colour("Ligand C", "#909090")
    pocket_carbon_a: _colour("Pocket C 1", "#BF99F2")
    pocket_carbon_b: _colour("Pocket C 2", "#F2B366")
    nitrogen: _colour("N", "#3050F8")
    oxygen: _colour("O", "#FF0D0D")
    sulfur: _colour("S", "#FFFF30")
    labels: bpy.props.BoolProperty(name="Labels", default=True)
    label_size: bpy.props.IntProperty(name="Label size", min=6, max=64, default=11)
    label_color: _colour("Label colour", "#FFFFFF")
    projection: bpy.props.EnumProperty(name="Projection", items=[("perspective", "Perspective", ""),
                                                                  ("orthographic", "Orthographic", "")])
    fov_deg: bpy.props.FloatProperty(name="Field of view", min=1.0, max=120.0, default=30.0)
    margin: bpy.props.FloatProperty(name="Margin", min=0.0, max=0.9, default=0.08)
    pocket_cutoff: bpy.props.FloatProperty(name="Pocket radius", min=0.0, max=100.0, default=10.0,
                                           description="Å around the ligand; 0 = the whole protein")
    hydrogens: bpy.props.BoolProperty(name="Hydrogens", default=False)
    lighting_model: bpy.props.EnumProperty(name="Lighting", items=[
        ("direct", "Direct (ChimeraX)", "key + fill + ambient computed in the material: no shadows, noise-free"),
        ("path", "Path traced", "a sun with soft shadows and an ambient world light: needs samples + denoiser")])
    key_strength: bpy.props.FloatProperty(name="Key light", min=0.0, max=20.0, default=1.0)
    fill_strength: bpy.props.FloatProperty(name="Fill light", min=0.0, max=20.0, default=0.5)
    ambient: bpy.props.FloatProperty(name="Ambient", min=0.0, max=5.0, default=0.4)
    depth_cue: bpy.props.BoolProperty(name="Depth cue", default=True,
                                      description="Fade far atoms toward the background, as ChimeraX does")
    samples: bpy.props.IntProperty(name="Samples", min=1, max=4096, default=1)
    resolution: bpy.props.IntVectorProperty(name="Resolution", size=2, min=16, max=8192, default=(512, 512))
    denoise: bpy.props.BoolProperty(name="Denoise", default=False)
    device: bpy.props.EnumProperty(name="Device", items=[("PREFS", "As in preferences", "")] +
                                   [(d, d, "") for d in DEVICE_NAMES])
    # ---- a view of the imported structure
    view: bpy.props.EnumProperty(name="View", items=[(v, v.title(), f"the {v} view") for v in canonical_views()])
    transform: bpy.props.StringProperty(name="Transform", description="e.g. move x 3, roll y 15")
    output_dir: bpy.props.StringProperty(name="Output", subtype="DIR_PATH",
                                         description="Where renders go (empty: the add-on preferences' folder)")
    new_preset_name: bpy.props.StringProperty(name="Save as", default="my_style")
    # ---- task preview
    suite: bpy.props.StringProperty(name="Suite", default="misi_bench",
                                    description="A bundled suite name or a suite YAML path")
    task: bpy.props.StringProperty(name="Task", default=task_names()[0], search=_search_tasks)
    split: bpy.props.EnumProperty(name="Split", items=[("test", "Test", ""), ("train", "Train", "")])
    seed: bpy.props.IntProperty(name="Seed", default=0, min=0)
    sample_index: bpy.props.IntProperty(name="Sample", default=0, min=0)
    image_index: bpy.props.IntProperty(name="Image", default=0, min=0)
    sample_id: bpy.props.StringProperty(name="Sample id")
    n_images: bpy.props.IntProperty(name="Images", default=0)
    image_caption: bpy.props.StringProperty(name="Showing")
    question: bpy.props.StringProperty(name="Question")
    options: bpy.props.StringProperty(name="Options")
    answer: bpy.props.StringProperty(name="Answer")
    last_error: bpy.props.StringProperty(name="Error")
    # ---- links between the settings scene and the scene built for a structure
    built_scene: bpy.props.PointerProperty(type=bpy.types.Scene, name="Built scene")
    owner: bpy.props.PointerProperty(type=bpy.types.Scene, name="Settings scene")
    built_source: bpy.props.StringProperty(name="Built from")       # the structure the scene holds
    built_style: bpy.props.StringProperty(name="Built style")       # style hash it was built with
    built_residues: bpy.props.StringProperty(name="Built residues")  # JSON residue selection ("" = all)
