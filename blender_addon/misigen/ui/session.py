"""What the GUI's operators do, as plain functions over the scene-held settings.

State lives on Blender's scenes (``properties.MisigenSettings``); everything else is computed
from it through ``misigen.api``: the structure (memoised on file times), the style (the
preset plus the panel's edits, validated like any preset), the planned samples (memoised
on their inputs) and the renderer of the built scene (found again from the scene itself).
"""
from __future__ import annotations

import copy
import functools
import json
import sys
from pathlib import Path

import bpy

from .. import api
from ..core.errors import InputError
from ..core.look.presets import style_overrides
from ..core.look.style import hex_to_rgb
from .preferences import device, presets_dir
from .style_keys import COLOUR_PROPS, STYLE_KEYS, colour_to_hex

PARTS = ("protein", "ligand")


def settings_of(context):
    """The settings the artist edits: the built scene's owner's, or the current scene's own."""
    own = context.scene.misigen
    return own.owner.misigen if own.owner is not None else own


# ------------------------------------------------------------------ style <-> settings
def _get(tree, path):
    for key in path:
        tree = tree[key]
    return tree


def _set(tree, path, value):
    for key in path[:-1]:
        tree = tree[key]
    tree[path[-1]] = value


def preset_file(name: str) -> Path:
    """A preset name (bundled, user folder, the preferences' folder) or a YAML path."""
    known = api.preset_names(presets_dir())
    return known[name] if name in known else api.preset_path(name or "misi_bench")


def _prop_value(settings, prop):
    value = getattr(settings, prop)
    if prop in COLOUR_PROPS:
        return colour_to_hex(value)
    if prop == "resolution":
        return [int(v) for v in value]
    if isinstance(value, float):        # single-precision properties: 0.16 must stay 0.16
        return round(value, 6)
    return value


def current_style(settings) -> dict:
    """The chosen preset with the panel's edits applied, validated like any preset."""
    base = api.load_style(preset_file(settings.preset))
    edited = copy.deepcopy(base)
    for path, prop in STYLE_KEYS.items():
        _set(edited, path, _prop_value(settings, prop))
    return api.load_style(preset_file(settings.preset), style_overrides(edited, base) or None)


def load_settings_from_preset(settings) -> None:
    """Show a preset's values in the panel. A bad preset is reported on the panel (and stderr)."""
    try:
        style = api.load_style(preset_file(settings.preset))
    except InputError as exc:
        settings.last_error = str(exc)
        print(f"error: {exc}", file=sys.stderr)
        return
    settings.last_error = ""
    for path, prop in STYLE_KEYS.items():
        value = _get(style, path)
        setattr(settings, prop, hex_to_rgb(value) if prop in COLOUR_PROPS else value)


# ------------------------------------------------------------------ structure and scene
def structure_of(settings):
    if not settings.structure_path:
        raise InputError("Structure", "no structure chosen: import one (File › Import) or set its path")
    return api.load(bpy.path.abspath(settings.structure_path), settings.ligand or None,
                    bpy.path.abspath(settings.ligand_path) if settings.ligand_path else None)


def _source_key(settings) -> str:
    return json.dumps([settings.structure_path, settings.ligand_path, settings.ligand])


def _residues_key(residues) -> str:
    return "" if residues is None else json.dumps([list(r) for r in residues])


def close_scene(settings) -> None:
    """Remove the scene built for the previous structure, with everything it made."""
    from ..render.renderer import SceneRenderer

    scene = settings.built_scene
    settings.built_scene = None
    if scene is None:
        return
    for window in bpy.context.window_manager.windows:     # show the settings scene meanwhile
        if window.scene == scene:
            window.scene = settings.id_data
    try:
        SceneRenderer.attach(scene, None, None).close()
    except ValueError:             # edited by hand: remove what is left of it
        bpy.data.scenes.remove(scene)


def _look_through_camera(context, scene) -> None:
    window = getattr(context, "window", None)
    if window is None:
        return                      # background mode: no window to show it in
    window.scene = scene
    for area in window.screen.areas:
        if area.type == "VIEW_3D":
            area.spaces.active.region_3d.view_perspective = "CAMERA"


def pose_in_viewport(renderer, camera, mats, parts=PARTS) -> None:
    """Camera and models as the render would have them; the viewport hides what the render hides."""
    renderer.set_camera(camera)
    renderer.set_pose(mats, parts)
    for part, empty in renderer.parts.items():
        for child in empty.children:
            child.hide_viewport = part not in parts


def scene_renderer(context, settings, structure, style, residues=None):
    """The renderer of the scene that shows ``structure`` in ``style`` (with only ``residues`` of
    the protein, if given); built when the current one shows something else."""
    from ..render.renderer import SceneRenderer

    atoms = api.shown(structure, style, PARTS, residues)
    scene = settings.built_scene
    source = f"{_source_key(settings)}|{structure.id}"      # a previewed T5 sample shows another complex too
    if scene is not None and (scene.misigen.built_source, scene.misigen.built_style,
                              scene.misigen.built_residues) == (source, api.style_hash(style),
                                                                _residues_key(residues)):
        return SceneRenderer.attach(scene, atoms, style)
    close_scene(settings)
    renderer = SceneRenderer(atoms, style, device(settings))
    built = renderer.scene.misigen
    built.owner = settings.id_data
    built.built_source, built.built_style = source, api.style_hash(style)
    built.built_residues = _residues_key(residues)
    settings.built_scene = renderer.scene
    _look_through_camera(context, renderer.scene)
    return renderer


def import_structure(context, settings) -> str:
    structure = structure_of(settings)
    style = current_style(settings)
    settings.sample_id = settings.question = settings.options = settings.answer = ""
    settings.n_images = 0
    renderer = scene_renderer(context, settings, structure, style)
    show_view(context, settings)
    return f"{structure.id}: {renderer.shown.n_atoms} atoms shown, device {renderer.device}"


def show_view(context, settings):
    """Pose models and camera for the panel's view and transform, as the ``render`` command does."""
    structure, style = structure_of(settings), current_style(settings)
    renderer = scene_renderer(context, settings, structure, style)
    _view, spec, mats = api.plan_views(renderer.shown, style, [settings.view or "front"],
                                       settings.transform or None, labels=style["labels"]["enabled"])[0]
    pose_in_viewport(renderer, spec.camera, mats)
    return renderer, spec, mats


def render_view(context, settings) -> Path:
    from .preferences import output_dir
    renderer, spec, mats = show_view(context, settings)
    png, _seconds = api.render_annotated(renderer, renderer.shown, spec, mats, output_dir(settings),
                                         view=settings.view, transform=settings.transform)
    return png


# ------------------------------------------------------------------ task preview
@functools.lru_cache(maxsize=8)
def _suite_tasks(path: str, stamp: int) -> tuple:
    return tuple(t.name for t in api.load_tasks(path))


def suite_tasks(suite: str) -> tuple:
    path = api.suite_path(suite or "misi_bench")
    return _suite_tasks(str(path), path.stat().st_mtime_ns if path.exists() else 0)


class _Keyed:
    """Hashable by ``key`` alone, carrying unhashable inputs into an lru_cache."""

    def __init__(self, key, value):
        self.key, self.value = key, value

    def __hash__(self):
        return hash(self.key)

    def __eq__(self, other):
        return isinstance(other, _Keyed) and self.key == other.key


def example_partners(structure) -> dict:
    """Complexes a previewed sample may pair with (T5's target): the bundled examples other than
    the one shown (a dataset run pairs within its own structure list instead)."""
    from ..core.structure.loader import discover
    out = {}
    for source in discover([api.examples_dir()]):
        if source.id != structure.id:
            try:
                out[source.id] = api.load(source.protein if source.ligand is None else source.protein.parent)
            except InputError:
                continue
    return out


@functools.lru_cache(maxsize=8)
def _planned(keyed: _Keyed):
    suite, task_name, structure, style, split, seed = keyed.value
    partners = api.partner_catalog([structure, *example_partners(structure).values()], split)
    return api.plan_task(api.load_task(task_name, suite), structure, style, split, seed, partners)


def planned_sample(settings):
    """(structure, style, sample) of the panel's task, split, seed and sample index."""
    structure, style = structure_of(settings), current_style(settings)
    suite = settings.suite or "misi_bench"
    key = (str(api.suite_path(suite)), settings.task, _source_key(settings), id(structure),
           api.style_hash(style), settings.split, settings.seed)
    samples, failures = _planned(_Keyed(key, (suite, settings.task, structure, style, settings.split,
                                              settings.seed)))
    if not samples:
        why = failures[0]["why"] if failures else "the spec asks for none"
        raise InputError(settings.structure_path, f"{settings.task}: no {settings.split} sample for "
                                                  f"{structure.id} ({why})")
    if settings.sample_index >= len(samples):
        raise ValueError(f"{settings.task} has {len(samples)} {settings.split} sample(s) for {structure.id}; "
                         f"sample {settings.sample_index} does not exist")
    return structure, style, samples[settings.sample_index]


def _ops_text(spec) -> str:
    parts = []
    for part, ops in spec.description()["ops"].items():
        text = ", ".join(f"{o['op']} {o['axis']} {o['value']:g}" for o in ops)
        parts.append(text if part == "all" else f"{part}: {text}")
    return "; ".join(parts) or "no transformation"


def preview_sample(context, settings) -> str:
    """Set up the sample's start state (its first image) and show its question, options, answer."""
    _structure, _style, sample = planned_sample(settings)
    specs = sample.render_specs()
    settings.sample_id, settings.question, settings.answer = sample.id, sample.question, sample.answer
    keys = [s.key() for s in specs]
    settings.options = "\n".join(
        f"{'ABCD'[k]}. " + (f"image {keys.index(o.key()) + 1}" if isinstance(o, api.RenderSpec) else str(o))
        for k, o in enumerate(sample.options or []))
    settings.n_images = len(specs)
    settings.image_index = 0
    show_sample_image(context, settings)
    return f"{sample.id}: {len(specs)} images; answer {sample.answer}"


def show_sample_image(context, settings, step: int = 0) -> str:
    """Pose camera and models for image ``image_index + step`` of the previewed sample."""
    structure, _style, sample = planned_sample(settings)
    specs = sample.render_specs()
    settings.image_index = (settings.image_index + step) % len(specs)
    spec = specs[settings.image_index]
    if spec.structure_id != structure.id:          # T5: the target complex is another one
        structure = example_partners(structure)[spec.structure_id]
    renderer = scene_renderer(context, settings, structure, spec.style, spec.residues)
    _atoms, mats = api.pose(structure, spec)
    pose_in_viewport(renderer, spec.camera, mats, spec.parts)
    n_given = len(sample.images)
    which = f"option {'ABCD'[settings.image_index - n_given]}" if settings.image_index >= n_given else "given"
    shows = "+".join(spec.parts) if spec.residues is None else \
        "ligand + residue " + ", ".join(f"{c}{n}{i}".strip() for c, n, i in spec.residues)
    settings.image_caption = f"image {settings.image_index + 1}/{len(specs)} ({which}): {shows}, {_ops_text(spec)}"
    return settings.image_caption


def render_sample(settings) -> dict:
    from .preferences import output_dir
    structure, _style, sample = planned_sample(settings)
    return api.render_sample(structure, sample, output_dir(settings), device(settings),
                             others=example_partners(structure))


def save_current_preset(settings) -> Path:
    style = current_style(settings)
    return api.save_preset(settings.new_preset_name, style, presets_dir(),
                           f"Saved from the misigen panel (based on {settings.preset}).")
