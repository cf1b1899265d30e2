"""Where misigen's data lives: bundled presets, task specs, prompts, examples; the user's presets.

The top-level ``scenes/`` and ``task_specs/`` folders travel with the package: a wheel or a
Blender extension carries copies in ``misigen/_bundled/`` (made at build time, see
``setup.py`` and ``pipeline/extension.py``); a source checkout (editable install, the legacy
add-on, tests) reads the repository's own folders. Nothing here goes "three folders up" by
hand anywhere else. User presets (``MISIGEN_PRESETS``, else ``~/.config/misigen/presets``)
add to the bundled ones; the bundled names are reserved, so ``misi_bench`` always means the
reference look whatever a user folder holds.
"""
from __future__ import annotations

import importlib.resources
import os
import sys
from pathlib import Path

from .errors import InputError

DEMO_STRUCTURES = ("wagner_brd4", "1hvi.pdb")   # in examples_dir()
BUNDLED = "_bundled"                       # the package folder that holds the copies
BUNDLED_FOLDERS = ("scenes", "task_specs")  # top-level folders copied into it
PRESETS_ENV = "MISIGEN_PRESETS"
PRESET_SUFFIXES = (".yaml", ".yml")
DEFAULT_SUITE = "misi_bench"


def package_root() -> Path:
    """The misigen package folder, found through the import system (works as ``misigen`` or as a
    Blender extension ``bl_ext.<repo>.misigen``)."""
    root = importlib.resources.files(__package__.rpartition(".")[0])
    if not isinstance(root, Path):
        raise InputError(str(root), "misigen must be installed as files on disk, not inside a zip")
    return root


def bundled_dir(folder: str) -> Path:
    """``folder`` (``scenes`` or ``task_specs``) as shipped: the package copy, else the checkout's."""
    inside = package_root() / BUNDLED / folder
    if inside.is_dir():
        return inside
    checkout = package_root().parents[1] / folder      # <repo>/blender_addon/misigen → <repo>/<folder>
    # When neither exists the packaged path is returned, so the error names where data should be.
    return checkout if checkout.is_dir() else inside


def scenes_dir() -> Path:
    return bundled_dir("scenes")


def task_specs_dir() -> Path:
    return bundled_dir("task_specs")


def examples_dir() -> Path:
    """The small example structures the ``demo`` command runs on."""
    return scenes_dir() / "examples"


def demo_structures() -> list[Path]:
    """The inputs of ``demo``: the example complexes (not the folder's notices, which are no inputs)."""
    return [examples_dir() / name for name in DEMO_STRUCTURES]


def user_config_dir() -> Path:
    """``%APPDATA%/misigen`` on Windows, else ``$XDG_CONFIG_HOME/misigen`` (``~/.config/misigen``)."""
    if sys.platform.startswith("win") and os.environ.get("APPDATA"):
        return Path(os.environ["APPDATA"]) / "misigen"
    base = os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config"
    return Path(base) / "misigen"


def user_presets_dir() -> Path:
    """Where the GUI saves presets and ``--scene NAME`` looks after the bundled ones (not created)."""
    env = os.environ.get(PRESETS_ENV)
    return Path(env).expanduser() if env else user_config_dir() / "presets"


def _yaml_files(folder: Path) -> dict[str, Path]:
    try:
        if not folder.is_dir():
            return {}
        return {p.stem: p for p in sorted(folder.iterdir()) if p.suffix in PRESET_SUFFIXES and p.is_file()}
    except OSError:             # a presets folder this user may not read (another user's HOME) has none
        return {}


def bundled_presets() -> dict[str, Path]:
    return _yaml_files(scenes_dir())


def user_presets(folder: Path | None = None) -> dict[str, Path]:
    """The user's presets (those named like a bundled one are left out: bundled names are reserved)."""
    bundled = bundled_presets()
    return {k: v for k, v in _yaml_files(folder or user_presets_dir()).items() if k not in bundled}


def preset_names(extra_dir: Path | None = None) -> dict[str, Path]:
    """Every preset a name can pick: bundled, then the user folder, then ``extra_dir`` (the GUI's)."""
    out = dict(bundled_presets())
    out.update(user_presets())
    if extra_dir is not None:
        out.update({k: v for k, v in user_presets(Path(extra_dir)).items() if k not in out})
    return out


def is_path_like(value: str | Path) -> bool:
    p = Path(value)
    return p.suffix in PRESET_SUFFIXES or len(p.parts) > 1 or p.exists()


def preset_path(name_or_path: str | Path) -> Path:
    """A preset name (bundled or user) or a YAML path → the file; an unknown name is an InputError."""
    if is_path_like(name_or_path):
        return Path(name_or_path)
    known = preset_names()
    if str(name_or_path) not in known:
        raise InputError(f"--scene {name_or_path}", "no such preset; known: " + ", ".join(sorted(known))
                         + f" (user presets: {user_presets_dir()})")
    return known[str(name_or_path)]


def suite_path(name_or_path: str | Path = DEFAULT_SUITE) -> Path:
    """A suite name in the bundled ``task_specs/`` (e.g. ``misi_bench``) or a YAML path."""
    if is_path_like(name_or_path):
        return Path(name_or_path)
    return task_specs_dir() / f"{name_or_path}.yaml"
