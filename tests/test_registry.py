"""The task registry is the only place a task exists (issue 17)."""
import ast
import re
from pathlib import Path

import pytest

from misigen.core.tasks import REGISTRY, TaskType
from misigen.core.tasks.catalog import BUILTIN_MODULES
from misigen.core.tasks.registry import Registry

PACKAGE = Path(__file__).resolve().parents[1] / "blender_addon" / "misigen"


def test_no_module_outside_core_tasks_names_a_task():
    """No task name as a string literal in core/ (outside core/tasks/), pipeline/, render/ or ui/."""
    names = "|".join(map(re.escape, REGISTRY.names()))
    pattern = re.compile(rf"""["']({names})["']""")
    hits = []
    for folder in ("core", "pipeline", "render", "ui"):
        for path in (PACKAGE / folder).rglob("*.py"):
            if PACKAGE / "core" / "tasks" in path.parents:
                continue
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if pattern.search(line):
                    hits.append(f"{path.relative_to(PACKAGE)}:{n}: {line.strip()}")
    assert hits == []


def test_task_modules_export_their_types_and_register_nothing_on_import():
    reg = Registry(BUILTIN_MODULES)
    assert REGISTRY.names()[:len(reg.names())] == reg.names()      # (other tests may add user tasks after)
    assert all(isinstance(t, TaskType) for m in BUILTIN_MODULES for t in m.TASK_TYPES)
    # the catalog imports the task modules and the registry; none of them imports the catalog back
    # (nor what imports it: scoring, spec), so the registry is built without a circle
    for path in [PACKAGE / "core" / "tasks" / "registry.py"] + [Path(m.__file__) for m in BUILTIN_MODULES]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                mods = [getattr(node, "module", None) or ""] + [a.name for a in node.names]
                assert not any(m.split(".")[-1] in ("catalog", "scoring", "spec") for m in mods), (path, mods)
    with pytest.raises(ValueError, match="registered twice"):
        reg.add(BUILTIN_MODULES[0].TASK_TYPES[0])


def test_every_task_type_has_its_rules():
    """Each type names an answer kind the registry knows and the rules the commands ask for."""
    for name in REGISTRY.names():
        t = REGISTRY[name]
        kind = REGISTRY.kinds[t.answer_kind]
        assert t.rederive is not None or t.answer_kind in ("letter",), name     # validate replays it
        assert t.audit is not None or kind.audit is not None, name
        assert t.random_answer is not None or kind.random is not None, name
    paper = {n for n in REGISTRY.names() if REGISTRY[n].paper_average}
    assert len(paper) == len(REGISTRY.names()) - 2          # MiSI-Bench's Avg. leaves out T5 and T6
