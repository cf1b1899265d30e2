"""The Blender extension: built by ``run_blender.py build-extension``, installed with Blender's own
installer into a temporary user folder, used as an artist would, then removed cleanly; the
preset it saved drives a headless ``generate --scene``."""
import importlib.metadata
import importlib.util
import json
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import numpy as np
import pytest

pytestmark = [pytest.mark.skipif(importlib.util.find_spec("bpy") is None,
                                 reason="building and installing the extension needs bpy"),
              pytest.mark.slow]      # builds the extension and runs run_blender.py in subprocesses
SCENARIO = Path(__file__).with_name("extension_scenario.py")


@pytest.fixture(scope="module")
def extension_zip(tmp_path_factory, cli):
    res = cli("build-extension", "--out", tmp_path_factory.mktemp("ext"))
    assert res.returncode == 0, res.stderr
    path = Path(res.stdout.strip().splitlines()[-1])        # the last line is the zip's path
    assert path.is_file() and path.suffix == ".zip"
    return path


def test_zip_holds_manifest_wheels_and_data(extension_zip):
    from misigen import __version__
    from misigen.pipeline.extension import BLENDER_WHEELS, DEPENDENCY_WHEELS, this_platform
    with zipfile.ZipFile(extension_zip) as z:
        names = set(z.namelist())
        manifest = tomllib.loads(z.read("blender_manifest.toml").decode())
    assert (manifest["id"], manifest["version"], manifest["type"]) == ("misigen", __version__, "add-on")
    assert manifest["blender_version_min"] == "4.2.0" and "files" in manifest["permissions"]
    assert manifest["license"] == ["SPDX:MIT"] and this_platform() in manifest["platforms"]
    wheels = {Path(w).name.split("-")[0].lower() for w in manifest["wheels"]}
    assert wheels == {req.split(">")[0].lower() for req in BLENDER_WHEELS + DEPENDENCY_WHEELS}
    assert all(w.removeprefix("./") in names for w in manifest["wheels"])
    for needed in ("__init__.py", "api.py", "_bundled/task_specs/misi_bench.yaml",
                   "_bundled/task_specs/prompts/docking.txt", "_bundled/scenes/misi_bench.yaml",
                   "_bundled/scenes/examples/1hvi.pdb", "_bundled/scenes/examples/SOURCES.md",
                   "core/structure/model.py", "core/chemistry/interactions/hbonds.py", "core/scene/scene_plan.py",
                   "core/look/style.py", "core/quality/levels.py", "core/data/interactions/hbond_criteria.yaml"):
        assert needed in names
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]


@pytest.mark.render
def test_artist_session_with_the_installed_extension(extension_zip, tmp_path, monkeypatch, cli, examples):
    from PIL import Image
    monkeypatch.setenv("BLENDER_USER_RESOURCES", str(tmp_path / "blender_user"))
    monkeypatch.setenv("MISIGEN_PRESETS", str(tmp_path / "presets"))
    # Under bpy 5 the extension must work with nothing but the wheels it bundles. The PyPI bpy 4.2
    # module must have RDKit loaded before itself (shared Boost.Python), so there it comes first.
    isolate = int(importlib.metadata.version("bpy").split(".")[0]) >= 5
    result = tmp_path / "seen.json"
    run = subprocess.run([sys.executable, str(SCENARIO), str(extension_zip), str(result)]
                         + (["--isolate-deps"] if isolate else []),
                         capture_output=True, text=True, timeout=900, cwd=tmp_path)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    seen = json.loads(result.read_text())
    user = tmp_path / "blender_user"
    assert seen["install"] == ["FINISHED"] and seen["enabled"]
    assert Path(seen["package"]).is_relative_to(user)              # installed into the temporary folder
    assert Path(seen["scenes_dir"]).is_relative_to(user) and Path(seen["suite"]).is_relative_to(user)
    if isolate:
        assert all(Path(f).is_relative_to(user) for f in seen["deps"].values()), seen["deps"]
    assert seen["import"] == ["FINISHED"]
    for task, p in seen["preview"].items():
        assert p["ok"] == ["FINISHED"] and p["steps"] == [["FINISHED"]] * p["n_images"], task
        assert p["back_to_first"] and p["question"].strip() and p["answer"], task
    assert seen["preview"]["docking"]["n_images"] == 7 and seen["preview"]["translation"]["n_images"] == 4
    assert seen["render_sample"] == ["FINISHED"]                 # into the preferences' output folder
    assert sum(n.endswith(".png") for n in seen["rendered"]) == 7
    assert sum(n.endswith(".json") for n in seen["rendered"]) == 7 + 1   # sidecars + the QA record
    assert seen["save_preset_prefs_folder"] == ["FINISHED"]
    assert seen["preset_files_prefs_folder"] == ["artist_alt.yaml"]
    assert seen["save_preset"] == ["FINISHED"] and "artist_green" in seen["presets"]
    assert not (tmp_path / "presets" / "artist_alt.yaml").exists()
    assert seen["demo_exit"] == 0 and seen["demo_records"] > 0
    assert seen["import_menu_entries_enabled"] == 1     # one menu function, three entries
    assert seen["uninstall"] == ["FINISHED"] and not seen["folder_left"]
    assert seen["left_types"] == [] and seen["left_ops"] == [] and not seen["scene_property"]
    assert seen["import_menu_entries"] == 0

    # The saved preset, by name, drives a headless run from the checkout: green ligand carbons,
    # radius 0.4 × van der Waals, in the render and in the sidecar.
    out = tmp_path / "headless"
    res = cli("generate", "--structures", examples / "wagner_brd4", "--out", out, "--scene", "artist_green",
              "--tasks", "translation", "--split", "test", "--no-labels")
    assert res.returncode == 0, res.stderr[-3000:]
    sides = [json.loads(p.read_text()) for p in sorted((out / "images").glob("*.json"))]
    assert sides and all(s["width"] == 256 for s in sides)      # the preset's resolution
    side = sides[0]
    carbons = [a for a in side["atoms"] if a["ligand"] and a["element"] == "C" and a["visible"]]
    assert carbons and all(a["radius"] == pytest.approx(1.7 * 0.4, abs=0.01) for a in carbons)
    pixels = np.asarray(Image.open(out / "images" / f"{side['key']}.png").convert("RGB"), dtype=int)
    rgb = np.array([pixels[int(a["pixel"][1]), int(a["pixel"][0])] for a in carbons])
    assert np.median(rgb[:, 1] - np.maximum(rgb[:, 0], rgb[:, 2])) > 40
