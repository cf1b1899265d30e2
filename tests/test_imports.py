"""Import structure of the package: no circles (lazy, function-level imports included) and a
``core`` that imports without Blender's ``bpy``.

The graph is read from the source with ``ast``, so an import inside a function counts as much as
one at the top: a lazy import hides a circle from Python, not from the reader.
"""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "blender_addon" / "misigen"


def _modules() -> dict[str, Path]:
    """Dotted name (``misigen.core.structure.loader``; a package is its ``__init__``) → file."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = ("misigen",) + path.relative_to(PACKAGE).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _resolve(module: str, is_package: bool, level: int, name: str | None) -> str:
    """The absolute module of ``from <level dots><name> import …`` written in ``module``."""
    if level == 0:
        return name or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def import_graph() -> dict[str, set[str]]:
    """module → the package modules it imports anywhere in its file.

    ``from P import n`` is an edge to ``P.n`` when ``n`` is a module, else to ``P`` itself.
    Entering a package (running a parent ``__init__``) is not counted as an edge: a package that
    re-exports its modules would otherwise be a circle with each of them.
    """
    modules = _modules()
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for mod, path in modules.items():
        is_package = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(mod, is_package, node.level, node.module)
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    targets.append(sub if sub in modules else base)
            for target in targets:
                while target and target not in modules:       # import a.b.c of a non-module name
                    target = target.rpartition(".")[0]
                if target.startswith("misigen") and target in modules and target != mod:
                    graph[mod].add(target)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import circle as [a, b, …, a], or [] if there is none."""
    state: dict[str, int] = {}          # 1: on the current path, 2: finished
    stack: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return []

    for start in sorted(graph):
        if start not in state:
            found = visit(start)
            if found:
                return found
    return []


def test_the_walk_sees_lazy_imports():
    graph = import_graph()
    # pipeline/exit_codes.py imports render.device inside a function only: the walk must still see it.
    assert "misigen.render.device" in graph["misigen.pipeline.exit_codes"]
    assert "misigen.core.structure.loader" in graph["misigen.api"]


def test_find_cycle_finds_one():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a"}}) == []


def test_no_import_circle_in_the_package():
    graph, circles = import_graph(), []
    while cycle := find_cycle(graph):          # every circle, not just the first: cut one edge of each
        circles.append(" -> ".join(m.removeprefix("misigen.") for m in cycle))
        graph[cycle[-2]].discard(cycle[-1])
    assert not circles, "import circles:\n" + "\n".join(circles)


def test_layers_point_one_way():
    """core imports nothing of render/pipeline/ui; render nothing of pipeline/ui."""
    bad = []
    for mod, targets in import_graph().items():
        layer = mod.split(".")[1] if mod.count(".") else ""
        for t in targets:
            t_layer = t.split(".")[1] if t.count(".") else "api"
            if (layer == "core" and t_layer != "core") or \
                    (layer == "render" and t_layer not in ("core", "render")):
                bad.append(f"{mod} -> {t}")
    assert not bad, bad


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
    core = sorted(m for m in _modules() if m == "misigen.core" or m.startswith("misigen.core."))
    done = _import_without_bpy(core)
    assert done.returncode == 0, done.stderr[-3000:]
    assert len(core) > 40


def test_what_a_planning_process_runs_imports_without_bpy():
    """A planning process starts without Blender: what it plans with and the drawing it finishes
    images with (labels onto the raw render) must not need bpy."""
    done = _import_without_bpy(["misigen.pipeline.planners", "misigen.render.overlay"])
    assert done.returncode == 0, done.stderr[-3000:]
