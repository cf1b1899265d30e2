"""misigen's public API: the functions the CLI, the Blender operators and notebooks all call.

    from misigen import api
    complex_ = api.load("scenes/examples/wagner_brd4")           # a core Structure
    style = api.load_style("draft", {"render": {"resolution": [256, 256]}})
    shown = api.shown(complex_, style)                           # the atoms a render shows
    with api.open_renderer(shown, style) as renderer:            # one Blender scene (needs bpy)
        for view, spec, mats in api.plan_views(shown, style, ["front", "left"], "move x 3"):
            api.render_annotated(renderer, shown, spec, mats, "out")   # PNG + sidecar JSON

    task = api.load_task("rotation")                             # from the bundled suite
    samples, failures = api.plan_task(task, complex_, style)     # QA samples, nothing rendered
    api.render_sample(complex_, samples[0], "out")               # its images + sidecars + record
    api.generate(["scenes/examples"], "out", scene="draft", tasks=["rotation"])

Everything here is a thin, stable name over the implementation modules (``core``, ``render``,
``pipeline``), whose internals may change. Only ``open_renderer``, ``render_*`` and
``generate(render=True)`` need ``bpy``.
"""
from __future__ import annotations

import functools
from pathlib import Path

from .core.errors import InputError
from .core.loader import StructureSource, discover, load_structure, safe_id
from .core.presets import save_preset
from .core.resources import examples_dir, preset_names, preset_path, suite_path, user_presets_dir
from .core.scene_plan import RenderSpec, shown_structure
from .core.structure import Structure
from .core.style import load_style, style_hash
from .pipeline.render_job import plan_views, render_annotated

__all__ = ["InputError", "Structure", "RenderSpec", "load", "load_style", "shown", "plan_views", "load_tasks",
           "load_task", "plan_task", "partner_catalog", "pose", "scene_atoms", "open_renderer", "render_annotated",
           "render_sample", "record", "generate", "demo", "validate", "save_preset", "preset_names",
           "preset_path", "suite_path", "examples_dir", "user_presets_dir", "style_hash"]


# ------------------------------------------------------------------ structures and styles
def _source(path: str | Path, ligand_file: str | Path | None) -> StructureSource:
    if ligand_file:
        protein, lig = Path(path), Path(ligand_file)
        for p in (protein, lig):
            if not p.is_file():
                raise InputError(p, "no such file")
        return StructureSource(safe_id(lig.stem.removesuffix("_ligand")), protein, lig)
    found = discover([path])
    if len(found) != 1:
        raise InputError(path, f"expected one structure, found {len(found)}"
                         + (f": {', '.join(s.id for s in found[:5])}" if found else ""))
    return found[0]


@functools.lru_cache(maxsize=4)
def _load_cached(source: StructureSource, ligand: str | None, stamp: tuple) -> Structure:
    return load_structure(source, ligand)


def load(path: str | Path, ligand: str | None = None, ligand_file: str | Path | None = None) -> Structure:
    """One protein–ligand complex: a PDB/mmCIF file (ligand = its HETATM group, or ``ligand``
    as RES:CHAIN:NUM), a PDBbind-style folder, or a protein file plus ``ligand_file`` (SDF/MOL2).
    Loading is memoised on the files' modification times (the GUI reloads often)."""
    source = _source(path, ligand_file)
    stamp = tuple(p.stat().st_mtime_ns for p in (source.protein, source.ligand) if p)
    return _load_cached(source, ligand or None, stamp)


def shown(structure: Structure, style: dict, parts=("protein", "ligand"), residues=None) -> Structure:
    """The atoms a render shows (the pocket, no hydrogens or waters, as the style says)."""
    return shown_structure(structure, style, parts, residues)


# ------------------------------------------------------------------ tasks
def load_tasks(suite: str | Path = "misi_bench") -> list:
    """The task specs of a suite: a bundled name (``misi_bench``) or a YAML path."""
    from .core.tasks import load_suite
    return load_suite(suite_path(suite))


def load_task(name: str, suite: str | Path = "misi_bench"):
    tasks = load_tasks(suite)
    for task in tasks:
        if task.name == name:
            return task
    raise InputError(suite_path(suite), f"no task {name!r}; the suite has {', '.join(t.name for t in tasks)}")


def plan_task(task, structure: Structure, style: dict, split: str = "test", seed: int = 0, partners=None):
    """All QA samples of one task for one structure (and failure records), exactly as ``generate``.
    ``partners``: the other complexes a task may pair with (T5), see ``partner_catalog``."""
    from .core.tasks import plan_samples
    return plan_samples(task, structure, style, split, seed, partners)


def partner_catalog(structures: list, split: str = "test"):
    """A catalogue of already loaded complexes (all in ``split``) for tasks that pair complexes."""
    from .core.tasks import PartnerCatalog
    by_id = {s.id: s for s in structures}
    return PartnerCatalog({k: split for k in by_id}, by_id.__getitem__)


def sample_specs(sample) -> list[RenderSpec]:
    """A sample's renders in prompt order: its images, then its option images (if any)."""
    return list(sample.images) + [o for o in (sample.options or []) if isinstance(o, RenderSpec)]


def pose(structure: Structure, spec: RenderSpec) -> tuple[Structure, dict]:
    """The shown atoms of one planned render and the part matrices that pose them."""
    atoms = shown_structure(structure, spec.style, spec.parts, spec.residues)
    return atoms, spec.matrices(atoms)[0]


def scene_atoms(structure: Structure, spec: RenderSpec) -> Structure:
    """The atoms a scene must hold to render ``spec`` (both parts; a render hides what it omits)."""
    return shown_structure(structure, spec.style, ("protein", "ligand"), spec.residues)


# ------------------------------------------------------------------ rendering (bpy)
def open_renderer(shown_atoms: Structure, style: dict, device: str = "auto"):
    """A Blender scene of ``shown_atoms``; use as a context manager (the scene is removed on exit)."""
    from .render.renderer import SceneRenderer
    return SceneRenderer(shown_atoms, style, device)


def record(sample) -> dict:
    """The QA record of the dataset contract (image paths relative to the output folder)."""
    return sample.as_record()


def render_sample(structure: Structure, sample, out: str | Path, device: str = "auto",
                  others: dict | None = None) -> dict:
    """Render a sample's images and option images (each with its sidecar) into ``out/images``
    and write its record to ``out/samples/<id>.json``; images already there are kept.
    ``others``: id → Structure of the other complexes a sample shows (T5's partner)."""
    from .pipeline.generate import render_specs
    from .pipeline.output import inside, write_json_atomic

    out = Path(out)
    specs = {s.key(): s for s in sample_specs(sample)}
    done = render_specs({structure.id: structure, **(others or {})}, specs, out, device)
    n, seconds, device_used = done["images"], done["seconds"], done["device"]
    rec = record(sample)
    record_path = inside(out, f"samples/{sample.id}.json")
    record_path.parent.mkdir(parents=True, exist_ok=True)
    write_json_atomic(record_path, rec, indent=1)
    return {"record": record_path, "images": [out / p for p in rec["images"]], "rendered": n,
            "seconds": seconds, "device": device_used}


# ------------------------------------------------------------------ datasets
def generate(structures, out: str | Path, suite: str | Path = "misi_bench", scene: str | Path = "misi_bench",
             overrides: dict | None = None, style: dict | None = None, split: str = "auto", tasks=None,
             limit: int | None = None, seed: int = 0, device: str = "auto", shard=(0, 1), render: bool = True,
             progress: bool = False, ligands: dict | None = None, ligand: str | None = None,
             audit: bool = True, **executor) -> dict:
    """The ``generate`` command: plan, render and write a dataset (and audit it); returns its manifest.
    The style is preset ``scene`` with ``overrides``, unless a complete ``style`` is given.
    ``ligands``: structure id → ligand selector; ``ligand``: the selector for the others.
    ``executor``: ``executor="local"|"ray"``, ``workers``, ``gpus``, ``per_worker``, ``ray_options``."""
    from .pipeline.generate import run_generate
    paths = [structures] if isinstance(structures, (str, Path)) else list(structures)
    style = style if style is not None else load_style(scene, overrides)
    return run_generate(suite_path(suite), paths, Path(out), style, split, tasks, limit, seed, device, shard,
                        render=render, progress=progress, ligands=ligands, default_ligand=ligand, audit=audit,
                        **executor)


def demo(out: str | Path = "demo_out", **kw) -> dict:
    """``generate`` on the bundled example complexes (test split unless ``split`` is given)."""
    from .pipeline.cli import DEMO_STRUCTURES
    kw.setdefault("split", "test")
    return generate([examples_dir() / p for p in DEMO_STRUCTURES], out, **kw)


def validate(out: str | Path) -> list[str]:
    """Problems of a dataset folder against the contract (empty = valid)."""
    from .pipeline.validate import validate_dataset
    return validate_dataset(Path(out))
