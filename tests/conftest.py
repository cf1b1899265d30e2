import os
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "blender_addon"))

from misigen.core.structure.preload import preload_rdkit  # noqa: E402  (no bpy in core)

preload_rdkit()     # before any bpy import (PyPI bpy 4.2 and RDKit share Boost.Python)

EXAMPLES = ROOT / "scenes" / "examples"


def _find_complexes():
    """The shared real complexes: $MISIGEN_COMPLEXES, or shared/data/complexes beside a parent."""
    env = os.environ.get("MISIGEN_COMPLEXES")
    if env:
        return pathlib.Path(env)
    for parent in [ROOT, *ROOT.parents]:
        cand = parent / "shared" / "data" / "complexes"
        if cand.is_dir():
            return cand
    cand = pathlib.Path("/work/shared/data/complexes")
    return cand if cand.is_dir() else None


COMPLEXES = _find_complexes()


@pytest.fixture(scope="session")
def complexes():
    if COMPLEXES is None:
        pytest.skip("real complexes not found: set MISIGEN_COMPLEXES to shared/data/complexes")
    return COMPLEXES


@pytest.fixture(scope="session")
def examples():
    return EXAMPLES


@pytest.fixture(scope="session")
def brd4(examples):
    from misigen.core.structure.loader import discover, load_structure
    return load_structure(discover([examples / "wagner_brd4"])[0])


@pytest.fixture(scope="session")
def hivp(examples):
    from misigen.core.structure.loader import discover, load_structure
    return load_structure(discover([examples / "1hvi.pdb"])[0])


@pytest.fixture(scope="session")
def style():
    from misigen.core.look.style import load_style
    return load_style("misi_bench")


@pytest.fixture(scope="session")
def fast_style():
    """The style of every test that generates: the reference look at 256², 1 sample, no denoiser.
    Planning checks are in pixels (look-alike options, readable labels): 256² keeps them meaningful.
    Shared by the whole session: copy it before changing it."""
    from misigen.core.look.style import load_style
    return load_style("misi_bench", {"render": {"resolution": [256, 256], "samples": 1, "denoise": False}})


@pytest.fixture(scope="session")
def cli():
    """Run ``python run_blender.py ARGS…`` as a user would; returns the CompletedProcess."""
    import subprocess

    def run(*args, timeout=600):
        return subprocess.run([sys.executable, str(ROOT / "run_blender.py"), *map(str, args)],
                              capture_output=True, text=True, timeout=timeout)
    return run
