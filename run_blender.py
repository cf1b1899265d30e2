"""misigen entry point, for both ways of running it with the same arguments:

    blender -b -P run_blender.py -- <command> [options]
    python run_blender.py <command> [options]        (with the PyPI ``bpy`` module)
"""
import os
import sys

MIN_BLENDER = (4, 2, 0)
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "blender_addon"))


from misigen.core.structure.preload import preload_rdkit  # noqa: E402  (core: no bpy; after the path is set)
from misigen.pipeline.exit_codes import EXIT_USAGE  # noqa: E402  (no dependencies)

preload_rdkit()


def _arguments() -> list:
    # Inside Blender, everything before "--" belongs to Blender itself.
    return sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else sys.argv[1:]


def _check_blender() -> None:
    try:
        import bpy
    except ImportError:
        return  # commands that need Blender say so themselves
    if tuple(bpy.app.version) < MIN_BLENDER:
        sys.stderr.write(f"misigen needs Blender {'.'.join(map(str, MIN_BLENDER))} or newer; "
                         f"this is Blender {bpy.app.version_string}.\n")
        sys.exit(EXIT_USAGE)


DEPENDENCIES = ["biopython>=1.83", "rdkit>=2024.3", "PyYAML>=6.0", "tqdm>=4.66", "pillow>=10", "biotite>=1.0"]
# import name -> what to tell a user whose Python lacks it
MODULE_HINT = {"numpy": "numpy", "Bio": "biopython", "rdkit": "rdkit", "yaml": "PyYAML", "tqdm": "tqdm",
               "PIL": "pillow", "biotite": "biotite"}
INSTALL_HINT = ("with the PyPI bpy:  pip install -e \".[standalone]\"   inside a Blender install:  "
                "blender -b -P run_blender.py -- install-deps")


def _install_deps(args) -> int:
    """Install misigen's dependencies into the Python running this script (e.g. Blender's)."""
    import argparse
    import subprocess

    parser = argparse.ArgumentParser(
        prog="blender -b -P run_blender.py -- install-deps",
        description="pip-install misigen's dependencies into the Python that runs this script "
                    f"({sys.executable}): {', '.join(DEPENDENCIES)}. Run it once per Blender install.")
    parser.add_argument("--dry-run", action="store_true", help="print the pip command, install nothing")
    opts = parser.parse_args(args)
    command = [sys.executable, "-m", "pip", "install", *DEPENDENCIES]
    if opts.dry_run:
        print(" ".join(command))
        return 0
    subprocess.call([sys.executable, "-m", "ensurepip", "--upgrade"])
    return subprocess.call(command)


def main() -> int:
    _check_blender()
    if _arguments()[:1] == ["install-deps"]:
        return _install_deps(_arguments()[1:])
    try:
        from misigen.pipeline.cli import main as cli_main
    except ModuleNotFoundError as exc:       # a Python without misigen's dependencies
        top = (exc.name or "").split(".")[0]
        if top not in MODULE_HINT:
            raise
        sys.stderr.write(f"misigen needs the Python package {MODULE_HINT[top]}, which this Python "
                         f"({sys.executable}) lacks; install the dependencies {INSTALL_HINT}\n")
        return EXIT_USAGE
    return cli_main(_arguments())


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    sys.exit(code)
