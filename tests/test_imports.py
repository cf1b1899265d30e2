"""Import structure of the package, where the import contracts cannot see it.

The contracts in ``pyproject.toml`` (``[tool.importlinter]``, checked by ``lint-imports`` in CI) keep
the layers pointing one way, ``core`` free of Blender's modules and sibling modules and folders free
of loops, imports inside functions included. Two things are left to this file: a circle that passes
through a package's own ``__init__`` (``tasks/__init__`` → ``catalog`` → ``from . import x``), which
is no loop between siblings, and whether the modules a process without Blender needs really import
there (the contracts read the source; an import made at run time by name only shows when it runs).
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "blender_addon" / "misigen"


def _modules() -> list[str]:
    """Every module of the package by its dotted name (a package is its ``__init__``)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = ("misigen",) + path.relative_to(PACKAGE).with_suffix("").parts
        found.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


def test_no_import_circle_in_the_package():
    """No module can reach itself through the modules it imports, a package's ``__init__`` included."""
    import grimp

    graph = grimp.build_graph("misigen", cache_dir=None)
    assert graph.modules == set(_modules())            # this checkout's package, every module of it
    # pipeline/exit_codes.py imports render.device inside a function only: the graph must see it.
    assert graph.direct_import_exists(importer="misigen.pipeline.exit_codes", imported="misigen.render.device")
    circles = [" -> ".join((a, *graph.find_shortest_chain(b, a)))
               for a in sorted(graph.modules) for b in sorted(graph.find_modules_directly_imported_by(a))
               if graph.chain_exists(b, a)]
    assert not circles, "import circles:\n" + "\n".join(circles)


def _import_without_bpy(modules: list) -> subprocess.CompletedProcess:
    """Import ``modules`` in a fresh interpreter where bpy (and Blender's other modules) cannot be imported."""
    code = (
        "import importlib, importlib.abc, sys\n"
        "class NoBpy(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'bpy' or name.startswith(('bpy.', 'bmesh', 'mathutils', 'gpu')):\n"
        "            raise ImportError(f'{name} is blocked: it must import without Blender')\n"
        "        return None\n"
        "sys.meta_path.insert(0, NoBpy())\n"
        f"sys.path.insert(0, {str(PACKAGE.parent)!r})\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "assert 'bpy' not in sys.modules\n"
        "print(len(sys.modules))\n"
    )
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)


def test_every_core_module_imports_without_bpy():
    """With bpy made unimportable, every core module imports (core is pure Python/numpy)."""
    core = [m for m in _modules() if m == "misigen.core" or m.startswith("misigen.core.")]
    done = _import_without_bpy(core)
    assert done.returncode == 0, done.stderr[-3000:]
    assert len(core) > 40


def test_what_a_planning_process_runs_imports_without_bpy():
    """A planning process starts without Blender: what it plans with and the drawing it finishes
    images with (labels onto the raw render) must not need bpy."""
    done = _import_without_bpy(["misigen.pipeline.planners", "misigen.render.overlay"])
    assert done.returncode == 0, done.stderr[-3000:]
