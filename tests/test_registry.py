"""The task registry is the only place a task exists: one folder per task (``core/tasks/<task>/``).

Where a task's name may be written:
- Python: only in its own folder (a string in code, docstrings aside); there also the keys of its
  own spec schema, which may be words that name another task (docking's ``rotation:``).
- Data files of the package (``core/data/**``) and the style presets (``scenes/``): nowhere, as a
  key or a value: a per-task rule belongs to the task's registry entry.
- Prompt templates (``task_specs/prompts/``): no ``[section]`` or ``{field}`` named for a task and no
  multi-word task name (``residue_ligand_interaction``); one-word names (rotation, docking) are
  English words of the prose.
- Task specs and suites (``task_specs/*.yaml``, ``examples/``): they name their tasks; that is what they are.
"""
import ast
import re
from pathlib import Path

import pytest
import yaml

from misigen.core.tasks import REGISTRY, TaskType
from misigen.core.tasks.catalog import BUILTIN_MODULES
from misigen.core.tasks.registry import Registry
from misigen.core.tasks.schema import Map

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "blender_addon" / "misigen"
TASKS = PACKAGE / "core" / "tasks"


def _docstrings(tree) -> set:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def _code_strings(path: Path) -> list[tuple[int, str]]:
    """(line, text) of every string constant in a module's code (not its docstrings)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _docstrings(tree)
    return [(n.lineno, n.value) for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in skip]


def _schema_keys(schema: dict) -> set:
    keys = set()
    for key, (sub, _default) in schema.items():
        keys.add(key)
        if isinstance(sub, Map):
            keys |= _schema_keys(sub.fields)
    return keys


def _folder_of(path: Path) -> str | None:
    """The task whose folder holds ``path`` (None: a module no task owns)."""
    if TASKS in path.parents:
        first = path.relative_to(TASKS).parts[0]
        return first if first in REGISTRY else None
    return None


def test_no_module_outside_a_task_folder_names_a_task():
    names = set(REGISTRY.names())
    own = {n: {n} | _schema_keys(REGISTRY[n].schema) for n in names}
    hits = []
    for path in PACKAGE.rglob("*.py"):
        allowed = own.get(_folder_of(path), set())
        for line, text in _code_strings(path):
            if text in names and text not in allowed:
                hits.append(f"{path.relative_to(PACKAGE)}:{line}: {text!r}")
    assert hits == []


def test_the_scan_finds_a_task_named_outside_its_folder(tmp_path):
    """The scans above read what they should: a stray name in code, a YAML key, a template field."""
    probe = tmp_path / "probe.py"
    probe.write_text('"""docking in a docstring is prose."""\nRULES = {"docking": 1}\n')
    assert [t for _, t in _code_strings(probe)] == ["docking"]
    assert "docking" in _yaml_words({"tasks": {"docking": ["x"]}})
    assert _template_hits("[rotation]\nRoll {zooming} ...", "x.txt") == ["x.txt: [rotation]", "x.txt: {zooming}"]


def _yaml_words(data) -> set:
    if isinstance(data, dict):
        return set().union(*[{k} | _yaml_words(v) for k, v in data.items()], set())
    if isinstance(data, list):
        return set().union(*[_yaml_words(v) for v in data], set())
    return {data} if isinstance(data, str) else set()


def test_no_data_file_names_a_task():
    names = set(REGISTRY.names())
    hits = []
    for path in sorted((PACKAGE / "core" / "data").rglob("*.yaml")) + sorted((ROOT / "scenes").glob("*.yaml")):
        words = _yaml_words(yaml.safe_load(path.read_text(encoding="utf-8")))
        hits += [f"{path.relative_to(ROOT)}: {w}" for w in sorted(words & names)]
    assert hits == []


def _template_hits(text: str, where: str) -> list[str]:
    names = set(REGISTRY.names())
    out = [f"{where}: [{m}]" for m in re.findall(r"^\s*\[([a-z0-9_]+)\]", text, re.M) if m in names]
    out += [f"{where}: {{{m}}}" for m in re.findall(r"\{([a-z0-9_]+)\}", text) if m in names]
    out += [f"{where}: {n}" for n in sorted(names) if "_" in n and re.search(rf"\b{n}\b", text)]
    return out


def test_no_prompt_template_names_a_task():
    hits = []
    for path in sorted((ROOT / "task_specs" / "prompts").glob("*.txt")):
        hits += _template_hits(path.read_text(encoding="utf-8"), path.name)
    assert hits == []


def test_task_folders_export_their_types_and_register_nothing_on_import():
    reg = Registry(BUILTIN_MODULES)
    assert REGISTRY.names()[:len(reg.names())] == reg.names()      # (other tests may add user tasks after)
    assert all(isinstance(t, TaskType) for m in BUILTIN_MODULES for t in m.TASK_TYPES)
    # one folder per task, named for it: the catalog lists each once
    assert sorted(Path(m.__file__).parent.name for m in BUILTIN_MODULES) == sorted(reg.names())
    # the catalog imports the task folders and the registry; none of them imports the catalog back
    # (nor what imports it: scoring, spec), so the registry is built without a circle
    paths = [TASKS / "registry.py"] + sorted(TASKS.glob("shared/*.py"))
    paths += [p for m in BUILTIN_MODULES for p in sorted(Path(m.__file__).parent.glob("*.py"))]
    for path in paths:
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
    builtin = [t for m in BUILTIN_MODULES for t in m.TASK_TYPES]
    assert all(t.program is not None and t.rationale is not None and t.level_features for t in builtin)
    assert {t.name for t in builtin if not t.paper_average} == {"translation_rotation", "rotation_rotation"}
    assert TaskType("x", object, {}, frozenset(), "letter").paper_average is False     # a plugin's default


@pytest.fixture(scope="module")
def planned(brd4, hivp, style):
    """Every task of both bundled suites planned on the bundled examples (test split)."""
    from misigen.core.tasks import PartnerCatalog, load_suite, plan_samples
    by_id = {brd4.id: brd4, hivp.id: hivp}
    partners = PartnerCatalog({k: "test" for k in by_id}, lambda i: by_id[i])
    out = []
    for suite in ("misi_bench", "misi_plus"):
        for task in load_suite(ROOT / "task_specs" / f"{suite}.yaml").tasks:
            for s in by_id.values():
                out += plan_samples(task, s, style, "test", 0, partners)[0]
    return out


def test_each_program_type_reads_and_writes_its_programs_unchanged(planned):
    """``from_dict`` then ``as_dict`` gives a planned program back key for key, in order (the keys the
    planner loop adds after the task's own are left to it)."""
    added = ("task", "task_type", "rejected_attempts")
    seen = set()
    for s in planned:
        t = REGISTRY.of(s.task, s.program)
        own = {k: v for k, v in s.program.items() if k not in added}
        again = t.program.from_dict(s.program).as_dict()
        assert list(again) == list(own) and again == own, s.id
        seen.add((t.name, tuple(own)))
    assert {name for name, _ in seen} == {t.name for m in BUILTIN_MODULES for t in m.TASK_TYPES}
    assert len({keys for name, keys in seen if name == "pocket_ligand_interaction"}) == 2   # H-bonds and another kind
