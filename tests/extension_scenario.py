"""An artist's session with the built extension, run by tests/test_extension.py in a fresh process.

    python extension_scenario.py ZIP RESULT.json [--isolate-deps]

Blender's user folders must point into a temporary folder (BLENDER_USER_RESOURCES) and presets
into another (MISIGEN_PRESETS). Installs the zip with Blender's extension installer, enables
it, imports a complex through File › Import, previews one sample of three tasks, changes a
colour and a radius, saves a preset, runs the extension's own command line, disables and
removes it. Prints nothing it checks: it writes what it saw to RESULT.json for the test.
With --isolate-deps, Biopython, RDKit, PyYAML, tqdm and Pillow may only come from the
wheels the extension bundles (not from this Python's site-packages).
"""
import importlib
import importlib.machinery
import json
import site
import sys
from pathlib import Path

BUNDLED_DEPS = {"rdkit", "Bio", "yaml", "_yaml", "tqdm", "PIL"}
TASKS = ("translation", "residue_ligand_interaction", "docking")


class OnlyFromElsewhere:
    """Finds the bundled dependencies anywhere but this Python's own site-packages."""

    def __init__(self):
        self.hidden = {str(Path(p).resolve()) for p in site.getsitepackages()}

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in BUNDLED_DEPS:
            return None
        others = [p for p in sys.path if p and str(Path(p).resolve()) not in self.hidden]
        spec = importlib.machinery.PathFinder.find_spec(fullname, others)
        if spec is None:
            raise ModuleNotFoundError(f"{fullname} is not bundled with the extension", name=fullname)
        return spec


def main(zip_path: str, result_path: str, isolate: bool) -> None:
    if isolate:
        sys.meta_path.insert(0, OnlyFromElsewhere())
    else:
        import rdkit.Chem  # noqa: F401  (PyPI bpy 4.2: RDKit must be loaded before bpy)
    import bpy
    import addon_utils  # noqa: E402  (a module of bpy's scripts, importable once bpy is)

    seen: dict = {"blender": bpy.app.version_string}
    got = bpy.ops.extensions.package_install_files(filepath=zip_path, repo="user_default", enable_on_install=True)
    seen["install"] = sorted(got)
    module_name = "bl_ext.user_default.misigen"
    seen["enabled"] = module_name in {a.module for a in bpy.context.preferences.addons}
    ext = importlib.import_module(module_name)
    api = importlib.import_module(module_name + ".api")
    resources = importlib.import_module(module_name + ".core.resources")
    session = importlib.import_module(module_name + ".ui.session")
    seen["package"] = ext.__file__
    seen["deps"] = {name: getattr(importlib.import_module(name), "__file__", "")
                    for name in ("rdkit", "Bio", "yaml", "tqdm", "PIL")}
    seen["scenes_dir"] = str(resources.scenes_dir())
    seen["suite"] = str(api.suite_path())

    # File › Import, on the example that ships inside the extension.
    example = resources.examples_dir() / "wagner_brd4"
    seen["import"] = sorted(bpy.ops.misigen.import_pdbbind(directory=str(example), pocket_cutoff=8.0))
    settings = session.settings_of(bpy.context)
    settings.resolution, settings.samples, settings.denoise = (256, 256), 1, False
    seen["preview"] = {}
    for task in TASKS:
        settings.task, settings.sample_index = task, 0
        ok = sorted(bpy.ops.misigen.preview_sample())
        steps = [sorted(bpy.ops.misigen.preview_step(step=1)) for _ in range(settings.n_images)]
        seen["preview"][task] = {"ok": ok, "steps": steps, "n_images": settings.n_images,
                                 "back_to_first": settings.image_index == 0, "question": settings.question,
                                 "answer": settings.answer, "options": settings.options,
                                 "scene": settings.built_scene.name}

    # Add-on preferences: renders go to its output folder; presets to its presets folder.
    prefs = bpy.context.preferences.addons[module_name].preferences
    prefs.output_dir, prefs.device = str(Path(result_path).with_name("gui_out")), "cpu"
    seen["render_sample"] = sorted(bpy.ops.misigen.render_sample())     # the docking sample, 7 images
    seen["rendered"] = sorted(p.name for p in Path(prefs.output_dir).rglob("*.*"))
    prefs.presets_dir = str(Path(result_path).with_name("prefs_presets"))
    settings.new_preset_name = "artist_alt"
    seen["save_preset_prefs_folder"] = sorted(bpy.ops.misigen.save_preset())
    seen["preset_files_prefs_folder"] = sorted(p.name for p in Path(prefs.presets_dir).glob("*"))
    prefs.presets_dir = ""

    # The artist's look, saved as a preset the headless run can use by name.
    settings.ligand_carbon, settings.atom_scale = (0.0, 1.0, 0.0), 0.4
    settings.new_preset_name = "artist_green"
    seen["save_preset"] = sorted(bpy.ops.misigen.save_preset())
    seen["presets"] = sorted(api.preset_names())

    # The installed extension's own command line (what `blender -c misigen …` runs).
    cli = importlib.import_module(module_name + ".ui")
    out = Path(result_path).with_name("ext_demo")
    seen["demo_exit"] = cli._command_line(["demo", "--out", str(out), "--tasks", "translation", "--plan-only"])
    seen["demo_records"] = len((out / "annotations.jsonl").read_text().splitlines())

    seen["import_menu_entries_enabled"] = sum(getattr(f, "__module__", "").startswith(module_name)
                                              for f in bpy.types.TOPBAR_MT_file_import._dyn_ui_initialize())
    # Disable and remove.
    addon_utils.disable(module_name, default_set=True)
    got = bpy.ops.extensions.package_uninstall(repo_directory=str(Path(ext.__file__).parents[1]), pkg_id="misigen")
    seen["uninstall"] = sorted(got)
    seen["left_types"] = sorted(n for n in dir(bpy.types) if n.upper().startswith("MISIGEN"))
    seen["left_ops"] = sorted(dir(bpy.ops.misigen))
    seen["scene_property"] = hasattr(bpy.types.Scene, "misigen")
    seen["import_menu_entries"] = sum(getattr(f, "__module__", "").startswith(module_name)
                                      for f in bpy.types.TOPBAR_MT_file_import._dyn_ui_initialize())
    seen["folder_left"] = Path(ext.__file__).parent.exists()
    Path(result_path).write_text(json.dumps(seen, indent=1))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], "--isolate-deps" in sys.argv)
