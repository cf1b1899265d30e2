"""GUI operators: thin wrappers over ``ui.session`` (itself over ``misigen.api``).

Every operator reports bad input in Blender's UI with the one-line message the CLI prints
(``InputError``/``ValueError`` text); anything else is a bug and propagates unswallowed.
"""
from __future__ import annotations

import functools

import bpy
from bpy_extras.io_utils import ImportHelper

from ..core.errors import InputError
from . import properties, session


def reports_errors(execute):
    @functools.wraps(execute)
    def wrapper(self, context):
        try:
            return execute(self, context)
        except (InputError, ValueError) as exc:
            message = str(exc)
            session.settings_of(context).last_error = message
            self.report({"ERROR"}, message)
            return {"CANCELLED"}
    return wrapper


def _done(op, context, message: str):
    session.settings_of(context).last_error = ""
    op.report({"INFO"}, message)
    return {"FINISHED"}


class MISIGEN_OT_import(bpy.types.Operator):
    """Load the structure named in the panel and build its scene with the current style"""
    bl_idname = "misigen.import_structure"
    bl_label = "Import complex"
    bl_options = {"REGISTER", "UNDO"}

    @reports_errors
    def execute(self, context):
        return _done(self, context, session.import_structure(context, session.settings_of(context)))


class _ImportOptions:
    """Options shared by the File › Import entries (copied into the panel's settings)."""
    pocket_cutoff: bpy.props.FloatProperty(name="Pocket radius", min=0.0, max=100.0, default=10.0,
                                           description="Å around the ligand; 0 = the whole protein")
    ligand: bpy.props.StringProperty(name="Ligand", description="RES:CHAIN:NUM of the HETATM ligand (optional)")
    preset: bpy.props.StringProperty(name="Style preset", default="", search=properties.search_presets,
                                     description="Preset to start from (empty: keep the panel's)")
    hydrogens: bpy.props.BoolProperty(name="Hydrogens", default=False)
    labels: bpy.props.BoolProperty(name="Labels", default=True)

    def invoke(self, context, event):
        s = session.settings_of(context)       # the dialog starts from what the panel shows
        self.preset, self.pocket_cutoff, self.hydrogens, self.labels = s.preset, s.pocket_cutoff, s.hydrogens, s.labels
        return ImportHelper.invoke(self, context, event)

    def _apply(self, context, structure_path: str, ligand_path: str = "") -> set:
        settings = session.settings_of(context)
        if self.preset and settings.preset != self.preset:
            settings.preset = self.preset          # loads the preset's values into the panel
            if settings.last_error:
                raise InputError(self.preset, settings.last_error)
        settings.structure_path, settings.ligand_path, settings.ligand = structure_path, ligand_path, self.ligand
        settings.pocket_cutoff, settings.hydrogens, settings.labels = self.pocket_cutoff, self.hydrogens, self.labels
        return _done(self, context, session.import_structure(context, settings))


class MISIGEN_OT_import_structure_file(bpy.types.Operator, _ImportOptions, ImportHelper):
    """Import a protein–ligand complex from a PDB or mmCIF file (the ligand is a HETATM group)"""
    bl_idname = "misigen.import_structure_file"
    bl_label = "Import PDB/mmCIF complex"
    bl_options = {"REGISTER", "UNDO"}
    filter_glob: bpy.props.StringProperty(default="*.pdb;*.ent;*.cif;*.mmcif", options={"HIDDEN"})

    @reports_errors
    def execute(self, context):
        return self._apply(context, self.filepath)


class MISIGEN_OT_import_ligand_file(bpy.types.Operator, _ImportOptions, ImportHelper):
    """Import a ligand from SDF/MOL2 with its protein (named below, or the PDB beside it)"""
    bl_idname = "misigen.import_ligand_file"
    bl_label = "Import SDF/MOL2 ligand + protein"
    bl_options = {"REGISTER", "UNDO"}
    filter_glob: bpy.props.StringProperty(default="*.sdf;*.mol;*.mol2", options={"HIDDEN"})
    protein: bpy.props.StringProperty(name="Protein", subtype="FILE_PATH",
                                      description="PDB/mmCIF of the protein (empty: the one beside the ligand)")

    @reports_errors
    def execute(self, context):
        from pathlib import Path

        from ..core.structure.readers import PROTEIN_SUFFIXES
        ligand = Path(self.filepath)
        protein = Path(bpy.path.abspath(self.protein)) if self.protein else None
        if protein is None:
            beside = sorted(p for p in ligand.parent.iterdir() if p.suffix.lower() in PROTEIN_SUFFIXES)
            preferred = [p for p in beside if p.stem.endswith(("_protein", "_pocket"))]
            if not (preferred or len(beside) == 1):
                raise InputError(ligand, f"no single protein file beside it ({len(beside)} found): "
                                         f"name one under Protein")
            protein = (preferred or beside)[0]
        return self._apply(context, str(protein), str(ligand))


class MISIGEN_OT_import_pdbbind(bpy.types.Operator, _ImportOptions, ImportHelper):
    """Import a PDBbind-style folder (<id>_protein.pdb or _pocket.pdb + <id>_ligand.sdf/.mol2)"""
    bl_idname = "misigen.import_pdbbind"
    bl_label = "Import PDBbind folder"
    bl_options = {"REGISTER", "UNDO"}
    filename_ext = ""
    use_filter_folder = True
    directory: bpy.props.StringProperty(subtype="DIR_PATH")
    filter_glob: bpy.props.StringProperty(default="", options={"HIDDEN"})

    @reports_errors
    def execute(self, context):
        return self._apply(context, (self.directory or self.filepath).rstrip("/\\"))


class MISIGEN_OT_show_view(bpy.types.Operator):
    """Rebuild the scene with the panel's style and pose it for the chosen view"""
    bl_idname = "misigen.show_view"
    bl_label = "Show view"

    @reports_errors
    def execute(self, context):
        session.show_view(context, session.settings_of(context))
        return _done(self, context, "view updated")


class MISIGEN_OT_render(bpy.types.Operator):
    """Render the current view with labels and its sidecar annotation, as the headless path does"""
    bl_idname = "misigen.render_view"
    bl_label = "Render view"

    @reports_errors
    def execute(self, context):
        png = session.render_view(context, session.settings_of(context))
        return _done(self, context, f"rendered {png}")


class MISIGEN_OT_reset_style(bpy.types.Operator):
    """Set every style field back to the chosen preset's values"""
    bl_idname = "misigen.reset_style"
    bl_label = "Reset to preset"

    @reports_errors
    def execute(self, context):
        settings = session.settings_of(context)
        session.load_settings_from_preset(settings)
        if settings.last_error:
            raise InputError(settings.preset, settings.last_error)
        return _done(self, context, f"style reset to {settings.preset}")


class MISIGEN_OT_save_preset(bpy.types.Operator):
    """Save the panel's style as a preset (headless: generate --scene NAME)"""
    bl_idname = "misigen.save_preset"
    bl_label = "Save preset"

    @reports_errors
    def execute(self, context):
        settings = session.settings_of(context)
        path = session.save_current_preset(settings)
        return _done(self, context, f"saved {path} (use: --scene {path.stem})")


class MISIGEN_OT_preview_sample(bpy.types.Operator):
    """Plan the chosen task for the imported structure and set up the chosen sample's first image"""
    bl_idname = "misigen.preview_sample"
    bl_label = "Preview sample"

    @reports_errors
    def execute(self, context):
        return _done(self, context, session.preview_sample(context, session.settings_of(context)))


class MISIGEN_OT_preview_step(bpy.types.Operator):
    """Show the previous or next image of the previewed sample"""
    bl_idname = "misigen.preview_step"
    bl_label = "Step image"
    step: bpy.props.IntProperty(default=1)

    @reports_errors
    def execute(self, context):
        settings = session.settings_of(context)
        if not settings.sample_id:
            raise ValueError("preview a sample first")
        return _done(self, context, session.show_sample_image(context, settings, self.step))


class MISIGEN_OT_render_sample(bpy.types.Operator):
    """Render every image of the previewed sample with its sidecar, and its QA record, to the output folder"""
    bl_idname = "misigen.render_sample"
    bl_label = "Render sample"

    @reports_errors
    def execute(self, context):
        got = session.render_sample(session.settings_of(context))
        return _done(self, context, f"{len(got['images'])} images ({got['rendered']} rendered), "
                                    f"record {got['record']}")


CLASSES = (MISIGEN_OT_import, MISIGEN_OT_import_structure_file, MISIGEN_OT_import_ligand_file,
           MISIGEN_OT_import_pdbbind, MISIGEN_OT_show_view, MISIGEN_OT_render, MISIGEN_OT_reset_style,
           MISIGEN_OT_save_preset, MISIGEN_OT_preview_sample, MISIGEN_OT_preview_step, MISIGEN_OT_render_sample)


def import_menu(self, _context):
    self.layout.operator(MISIGEN_OT_import_structure_file.bl_idname, text="Protein–ligand complex (.pdb/.cif)")
    self.layout.operator(MISIGEN_OT_import_ligand_file.bl_idname, text="Ligand + protein (.sdf/.mol2)")
    self.layout.operator(MISIGEN_OT_import_pdbbind.bl_idname, text="PDBbind folder (misigen)")
