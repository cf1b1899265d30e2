"""The ``build-extension`` command: a Blender 4.2+ extension zip that installs anywhere.

The zip holds the package, its data (``_bundled/scenes``, ``_bundled/task_specs``), the
manifest and the wheels Blender's Python lacks, for Python 3.11 (Blender 4.2 … 5.0). Wheels
come from the package index through ``pip download`` (or an offline folder with ``--wheels``);
the zip itself is made and then checked by Blender's own extension tool (``blender_ext.py
build`` / ``validate``, shipped with Blender and with the PyPI ``bpy``).
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

from ..core.errors import InputError
from ..core.resources import BUNDLED, BUNDLED_FOLDERS, bundled_dir, package_root

MANIFEST = "blender_manifest.toml"
# What Blender's Python lacks (it ships numpy); = pyproject's dependencies without numpy.
BLENDER_WHEELS = ("biopython>=1.83", "rdkit>=2024.3", "PyYAML>=6.0", "tqdm>=4.66", "pillow>=10", "biotite>=1.0")
# What the bundled wheels need at import beyond Blender's own numpy (wheels are fetched without their
# dependencies, so that a platform lacking one is named): biotite reads the CCD with msgpack and
# networkx; its other requirements (requests, biotraj, packaging) are only used by parts misigen
# does not import.
DEPENDENCY_WHEELS = ("msgpack>=1.0", "networkx>=2.0")
PYTHON = "3.11"       # Blender 4.2 … 5.0
# Blender platform → the wheel platform tags pip may pick for it. Blender 4.2 needs glibc 2.28
# on Linux and macOS 11.2, so no wheel tagged newer than those is accepted.
PLATFORMS = {
    "linux-x64": ("manylinux_2_28_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64"),
    "linux-arm64": ("manylinux_2_28_aarch64", "manylinux_2_17_aarch64", "manylinux2014_aarch64"),
    "macos-arm64": ("macosx_11_0_arm64",),
    "macos-x64": ("macosx_11_0_x86_64",),
    "windows-x64": ("win_amd64",),
    "windows-arm64": ("win_arm64",),
}
COPY_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", "*.blend1", ".*", BUNDLED, MANIFEST)


def log(msg: str) -> None:
    """Progress goes to stderr: stdout's last line is the zip path, for scripts to read."""
    print(msg, file=sys.stderr, flush=True)


def this_platform() -> str:
    import platform
    system = {"darwin": "macos"}.get(platform.system().lower(), platform.system().lower())
    machine = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64"}.get(platform.machine().lower(),
                                                                          platform.machine().lower())
    return f"{system}-{machine}"


def blender_ext_tool() -> Path:
    """Blender's extension command-line tool (``blender --command extension`` runs the same file)."""
    try:
        import bpy
    except ImportError:
        raise InputError("build-extension", "needs Blender's extension tool: install the PyPI bpy "
                         "(pip install -e .[standalone]) or run under Blender") from None
    scripts = Path(bpy.utils.system_resource("SCRIPTS"))
    tool = scripts / "addons_core" / "bl_pkg" / "cli" / "blender_ext.py"
    if not tool.is_file():
        raise InputError(tool, "Blender's extension tool is missing from this Blender")
    return tool


def wheel_name_version(path: Path) -> tuple[str, str]:
    name, version = path.name.split("-")[:2]
    return re.sub(r"[-_.]+", "-", name).lower(), version


def _pip_download(cmd: list, here: Path, req: str) -> tuple[Path | None, str]:
    here.mkdir(parents=True)
    res = subprocess.run(cmd + ["--dest", str(here), req], capture_output=True, text=True)
    found = sorted(here.glob("*.whl"))
    if res.returncode == 0 and len(found) == 1:
        return found[0], ""
    return None, res.stderr.strip().splitlines()[-1] if res.stderr.strip() else "pip found nothing"


def download_wheels(platform: str, dest: Path, requirements, pins: dict, offline_dir: Path | None) -> list[Path]:
    """``pip download`` the requirements' wheels for one Blender platform (pip's own cache makes
    repeated builds cheap), one at a time so an error names the missing package. A platform
    takes the version pinned in ``pins`` (the first platform's) when it has a wheel of it, else
    the newest version in the requirement's range."""
    cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
           "--python-version", PYTHON, "--implementation", "cp", "--abi", "cp" + PYTHON.replace(".", ""),
           "--abi", "abi3", "--abi", "none"]
    for tag in PLATFORMS[platform]:
        cmd += ["--platform", tag]
    if offline_dir is not None:
        cmd += ["--no-index", "--find-links", str(offline_dir)]
    got = []
    for k, req in enumerate(requirements):
        name = re.sub(r"[-_.]+", "-", re.split(r"[<>=!~ ]", req)[0]).lower()
        wheel, why = None, ""
        if name in pins:
            wheel, why = _pip_download(cmd, dest / platform / f"{k}-pinned", f"{name}=={pins[name]}")
        if wheel is None:
            wheel, why = _pip_download(cmd, dest / platform / str(k), req)
            if wheel is not None and name in pins:
                log(f"{platform}: no {name} {pins[name]} wheel; bundling {wheel_name_version(wheel)[1]}")
        if wheel is None:
            raise InputError(f"{platform} wheels", f"no {req} wheel for Python {PYTHON} ({why})")
        got.append(wheel)
    return got


def manifest_text(source: Path, platforms, wheels) -> str:
    """The committed manifest with ``platforms`` and ``wheels`` added to its top-level table."""
    lines = source.read_text(encoding="utf-8").splitlines()
    first_table = next((i for i, line in enumerate(lines) if line.startswith("[")), len(lines))
    extra = ["platforms = [" + ", ".join(f'"{p}"' for p in platforms) + "]",
             "wheels = [", *[f'  "./wheels/{w.name}",' for w in wheels], "]", ""]
    return "\n".join(lines[:first_table] + extra + lines[first_table:]) + "\n"


def stage_package(stage: Path) -> None:
    """The package as an extension's source folder: code, then the data it would find in a checkout."""
    shutil.copytree(package_root(), stage, ignore=COPY_IGNORE)
    for folder in BUNDLED_FOLDERS:
        shutil.copytree(bundled_dir(folder), stage / BUNDLED / folder, ignore=COPY_IGNORE)


def run_tool(tool: Path, *args) -> str:
    res = subprocess.run([sys.executable, str(tool), *map(str, args)], capture_output=True, text=True)
    if res.returncode != 0:
        raise InputError(tool.name, f"{args[0]} failed: {(res.stdout + res.stderr).strip()}")
    return res.stdout.strip()


def build_extension(out: Path, platforms=None, offline_dir: Path | None = None) -> Path:
    """Build and validate the extension zip in ``out``; return its path."""
    tool = blender_ext_tool()
    import importlib.util
    if importlib.util.find_spec("pip") is None:
        raise InputError(sys.executable, "build-extension downloads wheels with pip, which this Python lacks "
                                         "(Blender: run install-deps first, or build with python run_blender.py)")
    platforms = list(platforms or [this_platform()])
    unknown = [p for p in platforms if p not in PLATFORMS]
    if unknown:
        raise InputError("--platforms", f"unknown platform(s) {', '.join(unknown)}; "
                                        f"known: {', '.join(PLATFORMS)}")
    manifest = tomllib.loads((package_root() / MANIFEST).read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory(prefix="misigen-ext-") as tmp:
        stage = Path(tmp) / manifest["id"]
        stage_package(stage)
        wheels: list[Path] = []
        kept: list[str] = []
        pins: dict[str, str] = {}
        for platform in platforms:
            try:
                got = download_wheels(platform, Path(tmp) / "downloads", BLENDER_WHEELS + DEPENDENCY_WHEELS, pins,
                                      offline_dir)
            except InputError as exc:
                log(f"left out {platform}: {exc.problem}")
                continue
            if not pins:    # the other platforms bundle the same versions where they can
                pins = dict(wheel_name_version(w) for w in got)
            kept.append(platform)
            wheels += [w for w in got if w.name not in {x.name for x in wheels}]
            log(f"{platform}: " + ", ".join(w.name for w in got))
        if not kept:
            raise InputError("--platforms", "no platform has every wheel misigen needs")
        (stage / "wheels").mkdir()
        for w in wheels:
            shutil.copy2(w, stage / "wheels" / w.name)
        (stage / MANIFEST).write_text(manifest_text(package_root() / MANIFEST, kept, wheels),
                                      encoding="utf-8")
        out.mkdir(parents=True, exist_ok=True)
        suffix = "-".join(p.replace("-", "_") for p in kept)
        zip_path = (out / f"{manifest['id']}-{manifest['version']}-{suffix}.zip").resolve()
        zip_path.unlink(missing_ok=True)
        log(run_tool(tool, "build", "--source-dir", stage, "--output-filepath", zip_path))
    log(run_tool(tool, "validate", zip_path))
    return zip_path
