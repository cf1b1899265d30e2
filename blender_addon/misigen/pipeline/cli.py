"""Command line of misigen (the same under ``python`` and ``blender -b -P run_blender.py --``).

Exit codes: 0 all good; 1 nothing generated / rendered, or ``validate`` found defects;
2 bad arguments, bad spec or preset, a device that cannot be had, Blender missing;
3 the dataset was written but some inputs, structures or samples failed (failures.jsonl);
4 the dataset was written and validated but its audit failed (a blind guesser beats chance; audit.json);
130 interrupted (Ctrl-C): finished work is kept, the same command resumes.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from ..core.errors import InputError
from ..core.failures import Failure
from ..core.loader import discover_inputs
from ..core.resources import demo_structures, suite_path
from ..core.style import RESOLUTION_RANGE, load_style
from ..version import __version__
from . import summaries
from .dataset_cli import add_dataset_commands
from .output import OutputError, append_jsonl, write_json_atomic

EXIT_OK, EXIT_NOTHING, EXIT_USAGE, EXIT_PARTIAL, EXIT_AUDIT, EXIT_INTERRUPTED = 0, 1, 2, 3, 4, 130
BPY_MISSING = ("misigen: this command renders and needs Blender's Python module bpy, which this Python "
               "lacks: install it with  pip install -e \".[standalone]\"  (PyPI bpy, Python 3.11) or run  "
               "blender -b -P run_blender.py -- <command> …")


# ------------------------------------------------------------------ argument types
def _whole(minimum: int, maximum: int | None = None):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
        if value < minimum or (maximum is not None and value > maximum):
            bound = f"between {minimum} and {maximum}" if maximum is not None else f"at least {minimum}"
            raise argparse.ArgumentTypeError(f"must be {bound}, got {value}")
        return value
    return parse


def _fraction(minimum: float, strict: bool = False):
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
        if value < minimum or (strict and value == minimum) or value != value:
            raise argparse.ArgumentTypeError(f"must be {'more than' if strict else 'at least'} {minimum}, got {text}")
        return value
    return parse


def _altloc(text: str) -> str:
    from ..core.readers import ReadOptions
    try:
        return ReadOptions(altloc=text).altloc
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _reading_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("reading PDB/mmCIF files")
    g.add_argument("--model", type=_whole(1), default=1, metavar="N",
                   help="read the N-th model of each file (NMR ensembles have many; default: 1, the first)")
    g.add_argument("--altloc", type=_altloc, default="occupancy", metavar="RULE",
                   help="alternate locations, per residue: occupancy (highest mean occupancy, then lowest "
                        "B-factor: ChimeraX's choice), first (the first letter), or a letter such as B "
                        "(that location where a residue has it, else occupancy) (default: occupancy)")


def reading_from_args(args):
    from ..core.readers import ReadOptions
    return ReadOptions(model=args.model, altloc=args.altloc)


def with_reading(sources, args) -> list:
    from dataclasses import replace
    reading = reading_from_args(args)
    return [replace(s, reading=reading) for s in sources]


def _device(text: str) -> str:
    from ..render.device import parse_device   # no bpy needed to check a name
    try:
        return parse_device(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


# ------------------------------------------------------------------ parser
def _style_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("style and rendering")
    g.add_argument("--scene", default="misi_bench", help="style preset: a bundled or user preset name, or a "
                                                         "YAML path (default: misi_bench)")
    g.add_argument("--resolution", nargs=2, type=_whole(*RESOLUTION_RANGE), metavar=("W", "H"),
                   help="image size in pixels (default: the preset's)")
    g.add_argument("--samples", type=_whole(1, 65536), metavar="K",
                   help="Cycles samples per pixel (default: the preset's)")
    g.add_argument("--device", default="auto", type=_device, metavar="DEVICE",
                   help="auto (first GPU backend found, else CPU) | cpu | gpu | OPTIX | CUDA | HIP | ONEAPI | "
                        "METAL; a device that cannot be had is an error before any work (default: auto)")
    g.add_argument("--projection", choices=("perspective", "orthographic"),
                   help="camera projection (default: the preset's, perspective)")
    g.add_argument("--no-labels", action="store_true", help="draw no labels")
    g.add_argument("--whole-protein", action="store_true", help="show the whole protein, not the pocket")
    _keep_args(g)


def _keep_args(g) -> None:
    g.add_argument("--keep-metals", action="store_true",
                   help="metal ions count as pocket residues and interaction partners (default: protein only)")
    g.add_argument("--keep-cofactors", action="store_true",
                   help="cofactors (HETATM groups neither the ligand, a copy of it, nor on the exclusion list "
                        "of core/data/het_groups.yaml) count as pocket residues and partners (default: protein only)")


def keep_from_args(args) -> tuple:
    return tuple(k for k in ("metals", "cofactors") if getattr(args, f"keep_{k}", False))


def style_from_args(args) -> dict:
    over: dict = {}
    if args.resolution:
        over.setdefault("render", {})["resolution"] = list(args.resolution)
    if args.samples is not None:
        over.setdefault("render", {})["samples"] = args.samples
    if args.projection:
        over.setdefault("camera", {})["projection"] = args.projection
    if args.whole_protein:
        over.setdefault("selection", {})["pocket_cutoff"] = 0.0
    for k in keep_from_args(args):
        over.setdefault("selection", {})[k] = True
    return load_style(args.scene, over or None)


def _generate_args(p: argparse.ArgumentParser, demo: bool = False) -> None:
    p.add_argument("--suite", type=suite_path, default=suite_path(),
                   help="a suite name (misi_bench: MiSI-Bench's nine tasks; misi_plus: with hard negatives and "
                        "interaction kinds) or a suite YAML path (default: misi_bench)")
    p.add_argument("--split", default="test" if demo else "auto", choices=("auto", "train", "test"),
                   help="auto: deterministic by structure (490/3993 to test, as MiSI-Bench)"
                        + (" (default: test)" if demo else " (default: auto)"))
    p.add_argument("--tasks", help="comma-separated task names (default: the whole suite)")
    p.add_argument("--limit", type=_whole(1), metavar="N", help="use only the first N structures (sorted by id)")
    p.add_argument("--seed", type=_whole(0), default=0, help="root seed of every random choice (default: 0)")
    p.add_argument("--shard", metavar="i/N", help="this process does structures k with k %% N == i "
                                                  "(default: SLURM_ARRAY_TASK_ID/COUNT, JOB_COMPLETION_INDEX, "
                                                  "SGE_TASK_ID or MISIGEN_SHARD_INDEX with MISIGEN_SHARD_COUNT)")
    p.add_argument("--plan-only", action="store_true", help="plan and write annotations, render nothing")
    p.add_argument("--level", metavar="LEVEL[,LEVEL]",
                   help="keep only questions of these difficulty levels (easy, medium, hard; every task, as "
                        "the specs' levels key); the others are left out before rendering")
    p.add_argument("--ligand", help="RES:CHAIN:NUM[+RES:CHAIN:NUM] of the HETATM ligand of every PDB/mmCIF "
                                    "input (default: the largest drug-like HETATM group)")
    p.add_argument("--ligands", type=Path, help="YAML or CSV file: structure id -> RES:CHAIN:NUM[+...] "
                                                "(overrides --ligand for the ids it names)")
    p.add_argument("--no-audit", action="store_true", help="skip the blind-baseline audit at the end")
    p.add_argument("--dry-run", action="store_true",
                   help="print the plan (QA and distinct images per task and split) and a time estimate "
                        "from a short calibration render; write no dataset")
    p.add_argument("--no-validate", action="store_true", help="skip validating the dataset at the end")
    p.add_argument("--no-progress", action="store_true", help="no progress bar (the summary is still printed)")
    g = p.add_argument_group("executors")
    g.add_argument("--executor", choices=("local", "ray"), default="local",
                   help="local: worker processes on this machine; ray: Ray tasks (default: local)")
    g.add_argument("--workers", type=_whole(1, 256), metavar="N",
                   help="local rendering processes (default: one per GPU found, else 1 — Cycles already "
                        "uses every CPU core)")
    g.add_argument("--planners", type=lambda t: t if t == "auto" else _whole(0, 256)(t), default="auto",
                   metavar="N|auto",
                   help="planning processes per rendering process (0: one helper thread of it). auto: a "
                        "helper thread when rendering on the CPU (Cycles uses every core) or with --plan-only, "
                        "each worker's share of the cores less one on a GPU (default: auto)")
    g.add_argument("--structures-per-worker", type=_whole(1), metavar="N",
                   help="a worker process renders at most N structures, then is replaced, so memory stays "
                        "flat (default: 25)")
    g.add_argument("--ray-address", metavar="ADDR",
                   help="an existing Ray cluster (e.g. ray://head:10001 or auto); default: start a local one")
    g.add_argument("--ray-gpus-per-task", type=_fraction(0.0), metavar="G",
                   help="GPUs reserved per Ray task, fractions allowed (default: 1 if the cluster has GPUs, else 0)")
    g.add_argument("--ray-cpus-per-task", type=_fraction(0.0, strict=True), metavar="C",
                   help="CPUs reserved per Ray task (default: 1 with GPUs, else half of the smallest node)")
    g.add_argument("--ray-retries", type=_whole(0), default=2, metavar="N",
                   help="times a Ray task whose worker died is retried (default: 2)")
    g.add_argument("--ray-transfer", choices=("auto", "disk", "driver"), default="auto",
                   help="disk: workers write to --out (shared disk); driver: they return files and this "
                        "process writes them; auto: disk where a worker sees --out, else driver (default: auto)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="run_blender.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("render", help="render views of structures, each with a sidecar annotation")
    p.add_argument("--structures", nargs="+", required=True, help="files or folders (PDBbind layout)")
    p.add_argument("--out", required=True, type=Path, help="output folder")
    p.add_argument("--views", default="front", help="comma-separated: front,left,right,top,bottom,back "
                                                    "(default: front)")
    p.add_argument("--transform", help="applied after the view, e.g. 'move x 3, roll y 15'")
    p.add_argument("--ligand", help="RES:CHAIN:NUM of the HETATM ligand (PDB input)")
    _reading_args(p)
    _style_args(p)
    p.set_defaults(func=cmd_render)

    p = sub.add_parser("generate", help="generate a benchmark dataset from task specs")
    p.add_argument("--structures", nargs="+", required=True,
                   help="files or folders, searched recursively: PDBbind layouts, PDB/mmCIF files (.gz too)")
    p.add_argument("--out", required=True, type=Path, help="output folder (a run resumes into it)")
    _generate_args(p)
    _reading_args(p)
    _style_args(p)
    p.set_defaults(func=cmd_generate)

    p = sub.add_parser("demo", help="generate a small demo dataset from the bundled examples")
    p.add_argument("--out", type=Path, default=Path("demo_out"), help="output folder (default: demo_out)")
    _generate_args(p, demo=True)
    _reading_args(p)
    _style_args(p)
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("validate", help="check a dataset folder against its manifest and the contract")
    p.add_argument("out", type=Path, help="dataset folder")
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("audit", help="blind baselines: can questions be answered without their reasoning?")
    p.add_argument("out", type=Path, help="a dataset folder written by generate")
    p.set_defaults(func=cmd_audit)

    p = sub.add_parser("merge", help="join shard folders into one dataset, or rebuild one folder's files")
    p.add_argument("shards", nargs="+", type=Path, metavar="SHARD_OUT",
                   help="shard output folders; one folder alone without --out is rebuilt in place")
    p.add_argument("--out", type=Path, help="the merged dataset folder (needed for several shard folders)")
    p.add_argument("--move", action="store_true",
                   help="move images out of the shard folders (default: hard-link, else copy)")
    p.set_defaults(func=cmd_merge)

    p = sub.add_parser("interactions", help="print protein–ligand interactions as a table")
    p.add_argument("structures", nargs="+", metavar="STRUCTURE",
                   help="structure files or PDBbind folders (searched as --structures is)")
    p.add_argument("--ligand", help="RES:CHAIN:NUM[+RES:CHAIN:NUM] of a HETATM ligand (PDB/mmCIF input)")
    p.add_argument("--kinds", default="hbond", help="comma-separated: hbond,salt_bridge,…, or 'all' (default: hbond)")
    p.add_argument("--no-relax", action="store_true", help="strict criteria (ChimeraX's relax off: no slops)")
    p.add_argument("--dist-slop", type=float, default=0.4, help="H-bond distance slop, Å (default: 0.4)")
    p.add_argument("--angle-slop", type=float, default=20.0, help="H-bond angle slop, degrees (default: 20)")
    p.add_argument("--json", action="store_true", help="one JSON object per structure instead of a table")
    _keep_args(p)
    _reading_args(p)
    p.set_defaults(func=cmd_interactions)

    p = sub.add_parser("build-extension", help="build the Blender extension zip (prints its path last)")
    p.add_argument("--out", required=True, type=Path, help="folder for the zip")
    p.add_argument("--platforms", help="comma-separated Blender platforms, or 'all' (default: this one)")
    p.add_argument("--wheels", type=Path, help="take wheels from this folder instead of the package index")
    p.set_defaults(func=cmd_build_extension)

    add_dataset_commands(sub)
    p = sub.add_parser("install-deps", help="pip-install misigen's dependencies into Blender's own Python "
                                            "(see: run_blender.py install-deps --help)")
    p.set_defaults(func=cmd_install_deps)
    return parser


# ------------------------------------------------------------------ commands
def _probe_device(args) -> str:
    """One clear error before any work if the device cannot be had; says when auto falls back."""
    from ..render.device import probe_device

    choice = probe_device(args.device)
    print(f"device: {choice.describe()}" + (f" ({choice.note})" if choice.note else ""), file=sys.stderr)
    return choice.describe()


def render_views(text: str, transform: str | None) -> list[str]:
    """``--views`` as names, and ``--transform`` parsed: bad ones are bad arguments, before any loading."""
    from ..core import geometry
    from ..core.op_grammar import parse_ops

    views = [v.strip() for v in text.split(",") if v.strip()]
    if not views:
        raise InputError("--views", f"give at least one of {', '.join(geometry.canonical_views())}")
    for view in views:
        try:
            geometry.view_ops(view)
        except ValueError as exc:
            raise InputError("--views", str(exc)) from None
    if transform is not None:
        if not transform.strip():
            raise InputError("--transform", "is empty; leave it out or give e.g. 'move x 3, roll y 15'")
        try:
            parse_ops(transform)
        except ValueError as exc:
            raise InputError("--transform", str(exc)) from None
    return views


def _unreadable(discovery) -> list:
    """The inputs that could not be read (permissions, I/O errors), each said in one line."""
    return [u for u in discovery.unused if u.unreadable]


def cmd_render(args) -> int:
    from .folder_lock import make_output_folder

    views = render_views(args.views, args.transform)
    style = style_from_args(args)
    discovery = discover_inputs(args.structures)
    sources = with_reading(discovery.sources, args)
    make_output_folder(Path(args.out), create=False)   # a bad --out is one line before any work
    _probe_device(args)
    from ..render.renderer import blender_version
    from .views import render_structure_views

    out = Path(args.out)
    make_output_folder(out)
    failures = 0
    for u in _unreadable(discovery):           # recorded, and the others are rendered
        failures += 1
        print(f"failed: {u.path}: {u.why}", file=sys.stderr)
        append_jsonl(out / "failures.jsonl", Failure(None, u.why, where=str(u.path), kind="unreadable").as_dict())
    summaries_ = []
    for source in sources:
        try:
            summary = render_structure_views(source, style, out, views, args.transform,
                                             getattr(args, "ligand", None), args.device,
                                             labels=not args.no_labels)
        except (InputError, ValueError) as exc:
            failures += 1
            print(f"failed: {source.id}: {exc}", file=sys.stderr)
            append_jsonl(out / "failures.jsonl", Failure(source.id, str(exc), where=str(source.protein)).as_dict())
            continue
        summaries_.append(summary)
        summaries.print_render_summary(summary)
    write_json_atomic(out / "manifest.json", {
        "tool": "misigen", "version": __version__, "blender": blender_version(),
        "device": sorted({s["device"] for s in summaries_}), "command": "render",
        "views": views, "transform": args.transform or "", "reading": reading_from_args(args).as_dict(),
        "structures": summaries_,
        "failures": failures, "written": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }, indent=1)
    print(f"wrote {sum(len(s['images']) for s in summaries_)} images to {out}/images "
          f"({failures} structure(s) failed)")
    if not summaries_:
        return EXIT_NOTHING
    return EXIT_PARTIAL if failures else EXIT_OK


def cmd_interactions(args) -> int:
    import json

    from ..core.het_ligand import prefetch_templates
    from ..core.interactions import INTERACTION_KINDS, find_interactions, format_table
    from ..core.loader import load_structure

    discovery = discover_inputs(args.structures)
    sources = with_reading(discovery.sources, args)
    status = EXIT_OK
    for u in _unreadable(discovery):           # said, and the other structures go on
        print(f"error: {u.path}: {u.why}", file=sys.stderr)
        status = EXIT_USAGE
    if not sources:
        if status != EXIT_OK:
            return status
        raise InputError(args.structures[0], "no structure found")
    kinds = INTERACTION_KINDS if args.kinds == "all" else \
        tuple(k.strip() for k in args.kinds.split(",") if k.strip())
    prefetch_templates(sources)
    for source in sources:
        try:
            s = load_structure(source, args.ligand)
            t0 = time.perf_counter()
            found = find_interactions(s, kinds=kinds, relax=not args.no_relax, dist_slop=args.dist_slop,
                                      angle_slop=args.angle_slop, keep=keep_from_args(args))
            ms = (time.perf_counter() - t0) * 1000
        except (InputError, ValueError) as exc:   # bad input: said, and the other structures go on
            print(f"error: {exc}", file=sys.stderr)
            status = EXIT_USAGE
            continue
        if args.json:
            print(json.dumps({"id": source.id, "interactions": [i.as_dict() for i in found]}))
            continue
        print(f"# {source.id}: ligand {summaries.ligand_title(s)}, kinds {','.join(kinds)}, {ms:.0f} ms")
        print(format_table(found))
        print()
    return status


def _executor_options(args, gpus: int) -> dict:
    workers = args.workers or max(1, gpus)
    ray = {}
    if args.executor == "ray":
        ray = {"address": args.ray_address, "gpus_per_task": args.ray_gpus_per_task,
               "cpus_per_task": args.ray_cpus_per_task, "retries": args.ray_retries,
               "transfer": args.ray_transfer}
    return {"executor": args.executor, "workers": workers, "gpus": gpus,
            "per_worker": args.structures_per_worker, "ray_options": ray, "planners": args.planners}


def dataset_exit_code(manifest: dict) -> int:
    """3 if the dataset records failed inputs, structures or samples. Non-structure files, samples a
    complex cannot supply (category "unavailable": a spec count is a maximum), questions left out
    by ``--level`` (category "level") and rejected samples within the suite's ``rejection_budget``
    (per task, a fraction of the samples asked for) do not count; 4 (before 3) if the audit failed."""
    if manifest.get("audit") and not manifest["audit"]["ok"]:
        return EXIT_AUDIT
    counts = manifest["counts"]
    by_category = counts.get("failures_by_category", {})
    failures = counts["failures"] - sum(1 for u in manifest.get("inputs_not_used", [])
                                        if u.get("kind") == "not_a_structure") \
        - by_category.get("unavailable", 0) - by_category.get("level", 0)
    budget = float(manifest.get("rejection_budget", 0.0))
    asked = counts.get("samples_asked_by_task", {})
    failures -= sum(n for task, n in counts.get("rejected_by_task", {}).items() if n <= budget * asked.get(task, 0))
    return EXIT_PARTIAL if failures > 0 else EXIT_OK


def cmd_demo(args) -> int:
    return cmd_generate(args, [str(p) for p in demo_structures()])


def _levels(text: str | None) -> tuple:
    if not text:
        return ()
    levels = tuple(x.strip() for x in text.split(",") if x.strip())
    bad = [x for x in levels if x not in ("easy", "medium", "hard")]
    if bad:
        raise InputError("--level", f"unknown level(s) {', '.join(bad)}; levels are easy, medium, hard")
    return levels


def cmd_generate(args, structures=None) -> int:
    """``generate`` (and ``demo``, which passes the bundled ``structures``)."""
    from .generate import Interrupted, generate
    from .shards import parse_shard
    from .validate import validate_dataset

    structures = structures or args.structures
    style = style_from_args(args)
    if args.no_labels:
        style["labels"]["enabled"] = False
    tasks = [t.strip() for t in args.tasks.split(",") if t.strip()] if args.tasks else None
    shard = parse_shard(args.shard)
    render = not args.plan_only
    gpus = 0
    from .folder_lock import make_output_folder
    make_output_folder(Path(args.out), create=False)   # a bad --out is one line before any work
    if render and args.executor == "local":
        from ..render.device import count_gpus
        _probe_device(args)
        gpus = count_gpus(args.device)
    options = _executor_options(args, gpus)
    ligands = None
    if args.ligands:
        from ..core.het_ligand import read_ligand_map
        ligands = read_ligand_map(args.ligands)
    if args.ligand:
        from ..core.het_ligand import parse_selectors
        parse_selectors(args.ligand)
    if args.dry_run:
        from .dry_run import dry_run
        dry_run(args.suite, structures, Path(args.out), style, args.split, tasks, args.limit, args.seed,
                args.device, shard, render, workers=options["workers"], gpus=gpus)
        return EXIT_OK
    try:
        manifest = generate(structures, args.out, args.suite, style=style, split=args.split, tasks=tasks,
                            limit=args.limit, seed=args.seed, device=args.device, shard=shard, render=render,
                            progress=not args.no_progress, ligands=ligands, ligand=args.ligand,
                            audit=not args.no_audit, levels=_levels(args.level), reading=reading_from_args(args),
                            **options)
    except Interrupted as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_INTERRUPTED
    summaries.print_unused_inputs(manifest)
    summaries.print_generate_summary(manifest, Path(args.out))
    run = manifest["this_run"]
    if run["units"] == 0 and not manifest["inputs"]:
        print("error: no structures found in --structures", file=sys.stderr)
        return EXIT_NOTHING
    if run["units"] == 0:
        print(f"nothing to do: shard {manifest['shard']} has no structures", file=sys.stderr)
        return EXIT_OK
    if manifest["counts"]["records"] == 0:
        print("error: nothing was generated (0 QA records); see failures.jsonl", file=sys.stderr)
        return EXIT_NOTHING
    if "audit" in manifest:
        summaries.print_audit_line(manifest["audit"], args.out)
    if render and not args.no_validate:
        problems = validate_dataset(Path(args.out))
        if problems:
            print(f"validate: {len(problems)} problem(s), first: {problems[0]}", file=sys.stderr)
            return EXIT_NOTHING
    code = dataset_exit_code(manifest)
    if code == EXIT_PARTIAL:
        print(f"some inputs or samples failed: see {Path(args.out) / 'failures.jsonl'} (exit {code})",
              file=sys.stderr)
    if code == EXIT_AUDIT:
        print(f"the audit failed: a blind guesser beats chance, see {Path(args.out) / 'audit.json'} (exit {code})",
              file=sys.stderr)
    return code


def cmd_validate(args) -> int:
    from .validate import validate_dataset

    if not Path(args.out).is_dir():
        raise InputError(args.out, "no such folder")
    notes: list = []
    problems = validate_dataset(args.out, notes)
    for p in problems:
        print(p)
    for n in notes:
        print(f"note: {n}")
    print(f"{args.out}: {'OK' if not problems else f'{len(problems)} problem(s)'}")
    return EXIT_NOTHING if problems else EXIT_OK


def cmd_merge(args) -> int:
    from .shards import merge_folders, rebuild_folder

    missing = [p for p in args.shards if not Path(p).is_dir()]
    if missing:
        raise InputError(missing[0], "no such folder")
    if args.out is None:
        if len(args.shards) > 1:
            raise InputError("--out", "needed to merge several shard folders")
        manifest = rebuild_folder(Path(args.shards[0]))
        out = Path(args.shards[0])
    else:
        manifest = merge_folders([Path(p) for p in args.shards], Path(args.out), move=args.move)
        out = Path(args.out)
    summaries.print_merge_summary(manifest, len(args.shards), out)
    if manifest.get("structures_missing"):
        return EXIT_PARTIAL
    return dataset_exit_code(manifest)


def cmd_build_extension(args) -> int:
    from .extension import PLATFORMS, build_extension

    platforms = None
    if args.platforms:
        platforms = list(PLATFORMS) if args.platforms == "all" else \
            [p.strip() for p in args.platforms.split(",") if p.strip()]
    print(build_extension(args.out, platforms, args.wheels))
    return EXIT_OK


def cmd_audit(args) -> int:
    from .audit import cmd_audit as run_audit
    return run_audit(args)


def cmd_install_deps(_args) -> int:
    print("install-deps runs before misigen itself: blender -b -P run_blender.py -- install-deps", file=sys.stderr)
    return EXIT_USAGE


def main(argv=None) -> int:
    from ..render.device import DeviceError

    args = build_parser().parse_args(argv)
    from . import signals
    signals.install()                 # Ctrl-C and SIGTERM stop every command, during a render too
    signals.set_hint(f"interrupted: {args.command} stopped; run the same command again")
    try:
        return args.func(args)
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.split(".")[0] == "bpy":
            print(BPY_MISSING, file=sys.stderr)
            return EXIT_USAGE
        raise
    except (InputError, ValueError, DeviceError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"interrupted: {args.command} stopped; run the same command again", file=sys.stderr)
        return EXIT_INTERRUPTED
    except OutputError as exc:        # mid-run: what was finished is whole (atomic writes), the rest is not there
        print(f"error: {exc}; finished work is kept: fix the folder (space, permissions) and run the same "
              "command again", file=sys.stderr)
        return EXIT_NOTHING


if __name__ == "__main__":
    sys.exit(main())
