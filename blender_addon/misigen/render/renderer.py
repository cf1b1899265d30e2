"""One Blender scene per structure; render any number of views of it back to back."""
from __future__ import annotations

import math
import time
from pathlib import Path

import bpy
import mathutils
import numpy as np

from ..core.scene import geometry
from ..core.scene.camera import Camera
from ..core.scene.shading import depth_cue_range
from ..core.structure.model import Structure
from ..core.look.style import atom_colours, atom_radii, hex_to_rgb
from .device import select_device
from .labels import font_file
from .overlay import LabelledImage
from .quiet import QuietStdout, quiet_stdout
from .materials import FILL_PROPERTY, direct_material, path_material, set_depth_cue, setup_world
from .molecule import atoms_object, bonds_object

SCENE_PREFIX = "misigen"
ROLE_PROPERTY = "misigen_role"       # on the objects a renderer finds again (SceneRenderer.attach)
DEVICE_PROPERTY = "misigen_device"   # on the scene: the Cycles device chosen when it was built
# Blender 4.x Cycles with persistent data may keep a Geometry Nodes point cloud where an earlier
# render put it when only its object moved (tests/test_render.py renders a view after another to
# catch it); there every render syncs the scene afresh.
PERSISTENT_DATA = bpy.app.version >= (5, 0, 0)


def blender_version() -> str:
    return bpy.app.version_string


def _set(obj, attr: str, value) -> None:
    """Set a setting that older Blender versions (4.2 is supported) may not have."""
    if hasattr(obj, attr):
        setattr(obj, attr, value)


def configure_cycles(sc, cfg: dict, device: str = "CPU", view_transform: str = "Standard") -> None:
    """Cycles, film and output settings of one scene from a preset's ``render`` section
    (``view_transform``: Raw where the material computes display values itself)."""
    sc.render.engine = "CYCLES"
    cy = sc.cycles
    cy.samples = int(cfg["samples"])
    threshold = float(cfg["adaptive_threshold"])
    cy.use_adaptive_sampling = threshold > 0
    if threshold > 0:
        cy.adaptive_threshold = threshold
    cy.use_denoising = bool(cfg["denoise"])
    cy.denoiser = "OPENIMAGEDENOISE"               # the same denoiser (and look) on every device
    cy.denoising_prefilter = str(cfg["denoise_prefilter"])
    cy.denoising_input_passes = str(cfg["denoise_passes"])
    _set(cy, "denoising_quality", str(cfg["denoise_quality"]))          # Blender ≥ 4.1
    _set(cy, "denoising_use_gpu", not str(device).upper().startswith("CPU"))
    bounces = int(cfg["max_bounces"])
    cy.max_bounces = bounces
    cy.diffuse_bounces = min(2, bounces)
    cy.glossy_bounces = min(2, bounces)
    cy.transmission_bounces = 0
    cy.volume_bounces = 0
    cy.transparent_max_bounces = 0
    cy.caustics_reflective = False
    cy.caustics_refractive = False
    cy.sample_clamp_indirect = float(cfg["clamp"])
    cy.use_light_tree = bool(cfg["light_tree"])
    cy.filter_width = float(cfg["filter_width"])
    sc.render.use_persistent_data = PERSISTENT_DATA   # keep BVH and kernels between the views
    sc.render.use_compositing = False              # nothing to composite; labels are drawn after
    sc.render.use_sequencer = False
    w, h = cfg["resolution"]
    sc.render.resolution_x, sc.render.resolution_y = int(w), int(h)
    sc.render.resolution_percentage = 100
    sc.render.pixel_aspect_x = sc.render.pixel_aspect_y = 1.0
    sc.render.film_transparent = False
    sc.render.image_settings.file_format = "BMP"     # uncompressed raw: the overlay step encodes the PNG
    sc.render.image_settings.color_mode = "RGB"
    sc.view_settings.view_transform = view_transform   # keep preset colours as given
    sc.view_settings.look = "None"
    sc.render.dither_intensity = 0.0


class SceneRenderer:
    """Builds the scene for one shown structure once; ``render`` poses, frames and renders it."""

    cycles_seconds = 0.0          # time inside Cycles' render call (also for renderers made by ``attach``)

    def __init__(self, shown: Structure, style: dict, device: str = "auto"):
        self.style = style
        self.shown = shown
        self.cycles_seconds = 0.0     # time inside Cycles' render call alone (overhead benchmark)
        self.scene = bpy.data.scenes.new(f"{SCENE_PREFIX}:{shown.id}")
        with quiet_stdout():          # device probing prints library warnings on machines without GPUs
            self.device = select_device(self.scene, device)
        self._configure_render()
        lighting = style["lighting"]
        setup_world(self.scene, hex_to_rgb(style["background"]), lighting["ambient"],
                    path_lit=lighting["model"] == "path")
        if lighting["model"] == "path":
            self._add_light()
        self.parts = self._add_molecule()
        self.camera = self._add_camera()
        self.scene[DEVICE_PROPERTY] = self.device

    @classmethod
    def attach(cls, scene, shown: Structure, style: dict) -> "SceneRenderer":
        """The renderer of a scene built earlier (found by the roles its objects carry), so a GUI
        session can keep its state on Blender's scene rather than in Python objects."""
        self = cls.__new__(cls)
        self.scene, self.shown, self.style = scene, shown, style
        self.device = str(scene.get(DEVICE_PROPERTY, "CPU"))
        roles = {obj.get(ROLE_PROPERTY): obj for obj in scene.collection.objects if obj.get(ROLE_PROPERTY)}
        material = bpy.data.materials.get(cls.material_name(scene))
        if material is None or not all(p in roles for p in ("camera", "protein", "ligand")):
            raise ValueError(f"scene {scene.name!r} was not built by misigen (or was edited): import again")
        self.parts = {p: roles[p] for p in ("protein", "ligand")}
        self.camera, self.material = roles["camera"], material
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ------------------------------------------------------------------ building
    @property
    def path_lit(self) -> bool:
        return self.style["lighting"]["model"] == "path"

    def _configure_render(self) -> None:
        configure_cycles(self.scene, self.style["render"], self.device, "Standard" if self.path_lit else "Raw")

    def _add_light(self) -> None:
        cfg = self.style["lighting"]
        light = bpy.data.lights.new(f"{SCENE_PREFIX}_key", "SUN")
        light.energy = float(cfg["key_strength"])
        light.angle = math.radians(float(cfg["sun_angle_deg"]))
        obj = bpy.data.objects.new(f"{SCENE_PREFIX}_key", light)
        direction = mathutils.Vector(cfg["key_direction"]).normalized()
        obj.rotation_euler = direction.to_track_quat("Z", "Y").to_euler()  # light shines along −Z
        self.scene.collection.objects.link(obj)
        self.scene[FILL_PROPERTY] = float(cfg["fill_strength"])   # read by the atom material

    @staticmethod
    def material_name(scene) -> str:
        return f"{SCENE_PREFIX}_atom:{scene.name}"

    def _material(self):
        """This scene's atom material (named after the scene: its constants are this style's)."""
        name, background = self.material_name(self.scene), hex_to_rgb(self.style["background"])
        if self.path_lit:
            self.material = path_material(name, background)
        else:
            self.material = direct_material(name, self.style["lighting"], background)
        return self.material

    def _add_role_empty(self, role: str):
        empty = bpy.data.objects.new(f"{SCENE_PREFIX}_{role}", None)
        empty[ROLE_PROPERTY] = role
        self.scene.collection.objects.link(empty)
        return empty

    def _add_molecule(self) -> dict:
        s, style = self.shown, self.style
        colours, radii = atom_colours(s, style), atom_radii(s, style)
        material = self._material()
        linear = self.path_lit
        parts = {}
        for part, rows in (("protein", ~s.ligand), ("ligand", s.ligand)):
            empty = parts[part] = self._add_role_empty(part)
            if not rows.any():
                continue
            sub = s.subset(rows)
            atoms = atoms_object(f"{SCENE_PREFIX}_{part}_atoms", sub.coords, colours[rows], radii[rows],
                                 material, self.scene.collection, linear)
            atoms.parent = empty
            if style["representation"] != "spheres":
                bonds = bonds_object(f"{SCENE_PREFIX}_{part}_bonds", sub.coords, colours[rows], sub.bonds,
                                     float(style["bond_radius"]), material, self.scene.collection, linear)
                if bonds is not None:
                    bonds.parent = empty
        return parts

    def _add_camera(self):
        data = bpy.data.cameras.new(f"{SCENE_PREFIX}_camera")
        data.sensor_fit = "HORIZONTAL"
        obj = bpy.data.objects.new(f"{SCENE_PREFIX}_camera", data)
        obj[ROLE_PROPERTY] = "camera"
        obj.rotation_euler = (0.0, 0.0, 0.0)   # looks down −Z with +Y up: the screen frame
        self.scene.collection.objects.link(obj)
        self.scene.camera = obj
        return obj

    # ------------------------------------------------------------------ rendering
    def set_camera(self, cam: Camera) -> None:
        data = self.camera.data
        if cam.projection == "perspective":
            data.type = "PERSP"
            data.lens_unit = "FOV"
            data.angle = math.radians(cam.fov_deg)
        else:
            data.type = "ORTHO"
            data.ortho_scale = cam.ortho_scale
        data.clip_start, data.clip_end = cam.clip
        data.shift_x = data.shift_y = 0.0
        self.camera.location = cam.position
        self.scene.render.resolution_x, self.scene.render.resolution_y = cam.width, cam.height

    def set_pose(self, mats: dict, parts=("protein", "ligand")) -> None:
        """Place each part; parts not listed are hidden from the render."""
        for part, empty in self.parts.items():
            empty.matrix_world = mathutils.Matrix(np.asarray(mats[part]).tolist())
            for child in empty.children:
                child.hide_render = part not in parts

    def set_depth_cue(self, cam: Camera, mats: dict, parts=("protein", "ligand")) -> None:
        """Place the depth-cue ramp of this view (``core.scene.shading.depth_cue_range`` of the shown parts,
        posed); the sidecar records the same ramp."""
        s, xyz, radii = self.shown, [], []
        all_radii = atom_radii(s, self.style)
        for part in parts:
            rows = s.ligand if part == "ligand" else ~s.ligand
            if rows.any():
                xyz.append(cam.to_camera(geometry.apply(np.asarray(mats[part]), s.coords[rows])))
                radii.append(all_radii[rows])
        ramp = depth_cue_range(np.vstack(xyz), np.concatenate(radii), self.style["depth_cue"]) if xyz else None
        set_depth_cue(self.material, ramp)

    def render(self, cam: Camera, mats: dict, out_png: Path, labels: list[dict],
               parts=("protein", "ligand"), marks: dict | None = None) -> float:
        """Render one view to ``out_png`` (atomically) with its labels and marks (scale bar, site marker)
        drawn; return the seconds spent."""
        t0 = time.perf_counter()
        raw = self.render_raw(cam, mats, out_png, parts)
        self.finish(raw, out_png, labels, cam, marks)
        return time.perf_counter() - t0

    @staticmethod
    def raw_path(out_png: Path) -> Path:
        out_png = Path(out_png)
        return out_png.with_name(f".{out_png.stem}.raw.bmp")

    def render_raw(self, cam: Camera, mats: dict, out_png: Path, parts=("protein", "ligand")) -> Path:
        """Cycles' part of ``render``: pose, render, write the uncompressed raw image beside
        ``out_png``; returns its path. The only step that needs Blender."""
        self.set_camera(cam)
        self.set_pose(mats, parts)
        self.set_depth_cue(cam, mats, parts)
        raw = self.raw_path(out_png)
        self.scene.render.filepath = str(raw)
        quiet = self.__dict__.get("_quiet")
        if quiet is None:
            quiet = self._quiet = QuietStdout()
        with quiet():
            t_cycles = time.perf_counter()
            bpy.ops.render.render(write_still=True, scene=self.scene.name)
            self.cycles_seconds += time.perf_counter() - t_cycles
        return raw

    def finish(self, raw: Path, out_png: Path, labels: list[dict], cam: Camera,
               marks: dict | None = None) -> None:
        """The rest of ``render``, without Blender (so it may run on another thread while Cycles
        renders the next view): draw labels and marks, write the PNG atomically."""
        self.labelling(raw, out_png, labels, cam, marks).write()

    def labelling(self, raw: Path, out_png: Path, labels, cam: Camera, marks: dict | None = None) -> LabelledImage:
        """What ``finish`` does, as values: a process without Blender may do it (a planning process)."""
        return LabelledImage(str(raw), str(out_png), tuple(labels), self.style, cam.width, cam.height, dict(marks or {}),
                             str(font_file(self.style["labels"]["font"])))

    def close(self) -> None:
        """Remove this scene and everything it made, so long runs do not grow in memory."""
        quiet = self.__dict__.pop("_quiet", None)
        if quiet is not None:
            quiet.close()
        for obj in list(self.scene.collection.objects):
            bpy.data.objects.remove(obj, do_unlink=True)
        bpy.data.scenes.remove(self.scene)
        bpy.data.orphans_purge(do_recursive=True)
