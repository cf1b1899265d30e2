"""misigen's public API: the functions the CLI, the Blender operators and notebooks all call.

    from misigen import api
    complex_ = api.load("scenes/examples/wagner_brd4")           # a core Structure
    style = api.load_style("draft", {"render": {"resolution": [256, 256]}})
    shown = api.shown(complex_, style)                           # the atoms a render shows
    with api.open_renderer(shown, style) as renderer:            # one Blender scene (needs bpy)
        for view, spec, mats in api.plan_views(shown, style, ["front", "left"], "move x 3"):
            api.render_annotated(renderer, shown, spec, mats, "out")   # PNG + sidecar JSON

    task = api.load_task("rotation")                             # from the bundled suite
    samples, failures = api.plan_task(task, complex_, style)     # QA samples, nothing rendered
    api.render_sample(complex_, samples[0], "out")               # its images + sidecars + record
    api.generate(api.RunConfig(["scenes/examples"], "out", scene="draft", tasks=["rotation"]))

This module only re-exports (as BlenderProc's API does): each name is a stable alias of a
function in ``core`` or ``pipeline``, whose other internals may change. Only ``open_renderer``,
``render_*`` and ``generate(render=True)`` need ``bpy``, and they import it when called.
"""
from __future__ import annotations

from .core.errors import InputError
from .core.structure.loader import load
from .core.structure.readers import ReadOptions
from .core.look.presets import save_preset
from .core.resources import examples_dir, preset_names, preset_path, suite_path, user_presets_dir
from .core.scene.scene_plan import RenderSpec, pose, scene_atoms
from .core.scene.scene_plan import shown_structure as shown
from .core.structure.model import Structure
from .core.look.style import load_style, style_hash
from .pipeline.generate import demo, generate
from .pipeline.planning import load_task, load_tasks, partner_catalog, plan_task, record
from .pipeline.rendering import open_renderer, render_annotated, render_sample
from .pipeline.run_config import RunConfig
from .pipeline.validate import validate_dataset as validate
from .pipeline.views import plan_views

__all__ = ["InputError", "ReadOptions", "Structure", "RenderSpec", "load", "load_style", "shown", "plan_views", "load_tasks",
           "load_task", "plan_task", "partner_catalog", "pose", "scene_atoms", "open_renderer", "render_annotated",
           "render_sample", "record", "RunConfig", "generate", "demo", "validate", "save_preset", "preset_names",
           "preset_path", "suite_path", "examples_dir", "user_presets_dir", "style_hash"]
