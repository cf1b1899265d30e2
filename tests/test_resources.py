"""Data travels with the package: bundled presets/specs/examples, user presets on top, the wheel
build that copies them in, and a non-editable install that runs ``demo`` from anywhere."""
import importlib.util
import json
import os
import subprocess
import sys
import tomllib
import zipfile

import pytest
import yaml

from conftest import ROOT
from misigen.core import resources
from misigen.core.errors import InputError


def test_a_checkout_reads_its_top_level_folders():
    assert resources.scenes_dir() == ROOT / "scenes"
    assert resources.task_specs_dir() == ROOT / "task_specs"
    assert (resources.examples_dir() / "1hvi.pdb").is_file()
    assert resources.suite_path() == ROOT / "task_specs" / "misi_bench.yaml"
    assert resources.suite_path("zooming") == ROOT / "task_specs" / "zooming.yaml"
    assert set(resources.bundled_presets()) >= {"misi_bench", "draft", "publication"}


def test_user_presets_add_to_the_bundled_ones_but_cannot_replace_them(tmp_path, monkeypatch):
    from misigen.core.look.style import load_style
    monkeypatch.setenv("MISIGEN_PRESETS", str(tmp_path))
    (tmp_path / "mine.yaml").write_text("atom_scale: 0.5\n")
    (tmp_path / "draft.yaml").write_text("atom_scale: 0.9\n")        # shadows nothing
    assert resources.preset_path("mine") == tmp_path / "mine.yaml"
    assert resources.preset_path("draft") == ROOT / "scenes" / "draft.yaml"
    assert load_style("mine")["atom_scale"] == 0.5
    assert load_style("draft")["atom_scale"] == load_style("misi_bench")["atom_scale"]
    with pytest.raises(InputError, match=r"--scene nope: no such preset; known: .*mine"):
        load_style("nope")


def test_user_presets_folder_defaults_to_the_config_folder(monkeypatch, tmp_path):
    monkeypatch.delenv("MISIGEN_PRESETS", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    if not sys.platform.startswith("win"):
        assert resources.user_presets_dir() == tmp_path / "misigen" / "presets"


def test_saved_preset_holds_only_the_differences_and_reloads(tmp_path):
    from misigen.core.look.presets import save_preset
    from misigen.core.look.style import load_style
    style = load_style("draft", {"atom_scale": 0.3, "colors": {"ligand_carbon": "#00FF00"}})
    path = save_preset("my look!", style, tmp_path)
    assert path == tmp_path / "my_look.yaml"
    data = yaml.safe_load(path.read_text())
    assert data["atom_scale"] == 0.3 and data["colors"] == {"ligand_carbon": "#00FF00"}
    assert data["lighting"]["fill_strength"] == 0.8 and "bond_radius" not in data    # draft's own keys kept
    assert load_style(path) == {**style, "name": "my_look", "description": data["description"]}
    with pytest.raises(InputError, match="bundled preset"):
        save_preset("misi_bench", style, tmp_path)
    with pytest.raises(InputError, match="preset name is empty"):
        save_preset("!!", style, tmp_path)


def test_versions_and_wheel_list_agree_with_pyproject():
    import misigen
    from misigen.pipeline.extension import BLENDER_WHEELS
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    manifest = tomllib.loads((ROOT / "blender_addon" / "misigen" / "blender_manifest.toml").read_text())
    assert project["version"] == misigen.__version__ == manifest["version"]
    assert ".".join(map(str, misigen.bl_info["version"])) == misigen.__version__   # legacy add-on path
    deps = [d.split("#")[0].strip() for d in project["dependencies"] if not d.startswith("numpy")]
    assert sorted(d.lower() for d in deps) == sorted(d.lower() for d in BLENDER_WHEELS)


def test_manifest_gets_platforms_and_wheels_in_its_top_table(tmp_path):
    from pathlib import Path

    from misigen.pipeline.extension import manifest_text
    src = ROOT / "blender_addon" / "misigen" / "blender_manifest.toml"
    text = manifest_text(src, ["linux-x64"], [Path("w/a-1-py3-none-any.whl")])
    data = tomllib.loads(text)
    assert data["platforms"] == ["linux-x64"] and data["wheels"] == ["./wheels/a-1-py3-none-any.whl"]
    assert data["permissions"]["files"] and "wheels" not in data["build"]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """The wheel a non-editable ``pip install .`` would build (from a copy: the tree stays clean)."""
    import shutil
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy(ROOT / name, src / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "_bundled")
    for name in ("blender_addon", "scenes", "task_specs"):
        shutil.copytree(ROOT / name, src / name, ignore=ignore)
    dist = tmp_path_factory.mktemp("dist")
    res = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(src)],
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    (path,) = dist.glob("misigen-*.whl")
    return path


@pytest.mark.slow      # builds a wheel with pip
def test_wheel_carries_presets_specs_prompts_and_examples(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for folder in ("scenes", "task_specs"):
        for f in (ROOT / folder).rglob("*"):
            if f.is_file() and "__pycache__" not in f.parts:
                assert f"misigen/_bundled/{f.relative_to(ROOT).as_posix()}" in names
    assert "misigen/blender_manifest.toml" in names and "misigen/core/data/elements.yaml" in names
    assert "misigen/core/tasks/translation/levels.yaml" in names          # the calibrated difficulty levels


@pytest.mark.slow      # builds a wheel with pip and runs demo from it
def test_non_editable_install_runs_demo_from_anywhere(wheel, tmp_path):
    target = tmp_path / "site"
    res = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target),
                          str(wheel)], capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    env = {**os.environ, "PYTHONPATH": str(target)}
    code = ("import sys\ntry:\n    import rdkit.Chem\nexcept ImportError:\n    pass\n"   # before bpy 4.2
            "import misigen\nfrom misigen.pipeline.cli import main\nprint(misigen.__file__)\n"
            "sys.exit(main(sys.argv[1:]))")
    # With bpy it renders (draft look, small) and validates the dataset; without, it plans only.
    render = ["--scene", "draft", "--resolution", "256", "256"] if importlib.util.find_spec("bpy") \
        else ["--plan-only"]
    run = subprocess.run([sys.executable, "-c", code, "demo", "--out", "demo", "--tasks", "translation,docking",
                          *render], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.splitlines()[0].startswith(str(target))        # the installed copy, not the checkout
    records = [json.loads(line) for line in (tmp_path / "demo" / "annotations.jsonl").read_text().splitlines()]
    assert {r["task"] for r in records} == {"translation", "docking"}
    manifest = json.loads((tmp_path / "demo" / "manifest.json").read_text())
    assert manifest["suite"].startswith(str(target)) and set(manifest["inputs"]) == {"1hvi", "wagner_brd4"}
    if "--plan-only" not in render:
        assert manifest["counts"]["images"] == len(list((tmp_path / "demo" / "images").glob("*.png"))) > 0


def test_a_preset_extends_another_and_each_value_is_blamed_on_its_file(tmp_path):
    """``extends:`` layers presets (publication is the soft look, converged); a bad value is blamed on
    the file that set it, and presets that extend each other in a circle are one clear error."""
    from misigen.core.look.style import load_style
    soft, publication = load_style("soft"), load_style("publication")
    assert publication["lighting"] == soft["lighting"] and publication["depth_cue"] == soft["depth_cue"]
    assert publication["render"]["samples"] == 32 and soft["render"]["samples"] == 2
    assert load_style("misi_bench")["lighting"]["model"] == "direct" and soft["lighting"]["model"] == "path"
    base = tmp_path / "base.yaml"
    base.write_text("lighting:\n  model: flat\n")
    child = tmp_path / "child.yaml"
    child.write_text(f"extends: {base}\natom_scale: 0.3\n")
    with pytest.raises(InputError) as exc:
        load_style(child)
    assert exc.value.path == str(base) and "lighting.model must be one of direct, path" in exc.value.problem
    base.write_text(f"extends: {child}\n")
    with pytest.raises(InputError, match="in a circle"):
        load_style(child)


@pytest.mark.parametrize("override, message", [
    ({"lighting": {"key_direction": [0.0, 0.0, 0.0]}}, "lighting.key_direction must not be the zero vector"),
    ({"depth_cue": {"start": 0.9, "end": 0.5}}, "depth_cue.start (0.9) must be below depth_cue.end (0.5)"),
    ({"lighting": {"ambient": -1.0}}, "lighting.ambient must be in [0.0, 1000.0], got -1.0"),
    ({"lighting": {"reflectivity": {"specular": "shiny"}}}, "lighting.reflectivity.specular: expected float"),
])
def test_lighting_and_depth_cue_settings_are_checked(override, message):
    from misigen.core.look.style import load_style
    with pytest.raises(InputError) as exc:
        load_style("misi_bench", override)
    assert message in exc.value.problem


def test_depth_cue_ramp_spans_the_back_half_of_the_bounding_sphere():
    """ChimeraX's ramp: from the depth of the shown atoms' bounding-box centre to the back of their
    (1 % padded) bounding sphere; a point keeps all its colour in front, none past the end."""
    import numpy as np
    from misigen.core.scene.shading import depth_cue_factor, depth_cue_range
    xyz = np.array([[0.0, 0.0, -50.0], [6.0, 8.0, -50.0], [0.0, 0.0, -70.0]])     # camera frame, looking down -Z
    radii = np.zeros(3)
    start, end = depth_cue_range(xyz, radii, {"enabled": True, "start": 0.5, "end": 1.0})
    half_diagonal = 0.5 * np.linalg.norm([6.0, 8.0, 20.0])
    assert start == pytest.approx(60.0) and end == pytest.approx(60.0 + 1.01 * half_diagonal, abs=1e-3)
    assert depth_cue_range(xyz, radii, {"enabled": False, "start": 0.5, "end": 1.0}) is None
    keep = depth_cue_factor([55.0, 60.0, (start + end) / 2, end, end + 5], (start, end))
    assert keep.tolist() == pytest.approx([1.0, 1.0, 0.5, 0.0, 0.0])
