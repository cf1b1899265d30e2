"""Command line of misigen (the same under ``python`` and ``blender -b -P run_blender.py --``)."""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from ..core.errors import InputError
from ..core.loader import discover
from ..core.resources import examples_dir, suite_path
from ..core.style import load_style
from .dataset_cli import COMMANDS as DATASET_COMMANDS, add_dataset_commands, run_dataset_command
from .output import append_jsonl, write_json_atomic


def _style_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--scene", default="misi_bench", help="style preset: a bundled or user preset name, or a YAML path")
    p.add_argument("--resolution", nargs=2, type=int, metavar=("W", "H"), help="image size in pixels")
    p.add_argument("--samples", type=int, help="Cycles samples per pixel")
    p.add_argument("--device", default="auto", help="auto | cpu | gpu | OPTIX | CUDA | HIP | ONEAPI | METAL")
    p.add_argument("--projection", choices=("perspective", "orthographic"))
    p.add_argument("--no-labels", action="store_true", help="draw no labels")
    p.add_argument("--whole-protein", action="store_true", help="show the whole protein, not the pocket")


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
    return load_style(args.scene, over or None)


def _generate_args(p: argparse.ArgumentParser, demo: bool = False) -> None:
    p.add_argument("--split", default="test" if demo else "auto", choices=("auto", "train", "test"),
                   help="auto: deterministic by structure (490/3993 to test, as MiSI-Bench)")
    p.add_argument("--tasks", help="comma-separated task names (default: the whole suite)")
    p.add_argument("--limit", type=int, help="use only the first N structures (sorted by id)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--shard", help="i/N: this process does structures k with k %% N == i "
                                   "(default: SLURM_ARRAY_TASK_ID/COUNT or MISIGEN_SHARD_INDEX/COUNT)")
    p.add_argument("--plan-only", action="store_true", help="plan and write annotations, render nothing")
    p.add_argument("--ligand", help="RES:CHAIN:NUM[+RES:CHAIN:NUM] of the HETATM ligand of every PDB/mmCIF "
                                    "input (default: the largest drug-like HETATM group)")
    p.add_argument("--ligands", type=Path, help="YAML or CSV file: structure id -> RES:CHAIN:NUM[+...] "
                                                "(overrides --ligand for the ids it names)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="run_blender.py", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("render", help="render views of structures, each with a sidecar annotation")
    p.add_argument("--structures", nargs="+", required=True, help="files or folders (PDBbind layout)")
    p.add_argument("--out", required=True, type=Path)
    p.add_argument("--views", default="front", help="comma-separated: front,left,right,top,bottom,back")
    p.add_argument("--transform", help="applied after the view, e.g. 'move x 3, roll y 15'")
    p.add_argument("--ligand", help="RES:CHAIN:NUM of the HETATM ligand (PDB input)")
    _style_args(p)

    p = sub.add_parser("generate", help="generate a benchmark dataset from task specs")
    p.add_argument("--suite", type=suite_path, default=suite_path(), help="a suite name in task_specs/ or a YAML path")
    p.add_argument("--structures", nargs="+", required=True, help="files or folders (PDBbind layout)")
    p.add_argument("--out", required=True, type=Path)
    _generate_args(p)
    _style_args(p)

    p = sub.add_parser("demo", help="generate a small demo dataset from the bundled examples")
    p.add_argument("--out", type=Path, default=Path("demo_out"))
    p.add_argument("--suite", type=suite_path, default=suite_path(), help="a suite name in task_specs/ or a YAML path")
    _generate_args(p, demo=True)
    _style_args(p)

    p = sub.add_parser("validate", help="check a dataset folder against the contract")
    p.add_argument("out", type=Path)

    p = sub.add_parser("audit", help="blind baselines: can questions be answered without their reasoning?")
    p.add_argument("out", type=Path, help="a dataset folder written by generate")

    p = sub.add_parser("merge", help="rebuild annotations.jsonl and manifest.json after sharded runs")
    p.add_argument("out", type=Path)

    p = sub.add_parser("interactions", help="print protein–ligand interactions as a table")
    p.add_argument("structure")
    p.add_argument("--ligand", help="RES:CHAIN:NUM[+RES:CHAIN:NUM] of a HETATM ligand")
    p.add_argument("--kinds", default="hbond")
    p.add_argument("--no-relax", action="store_true")

    p = sub.add_parser("build-extension", help="build the Blender extension zip (prints its path last)")
    p.add_argument("--out", required=True, type=Path)
    p.add_argument("--platforms", help="comma-separated Blender platforms, or 'all' (default: this one)")
    p.add_argument("--wheels", type=Path, help="take wheels from this folder instead of the package index")
    add_dataset_commands(sub)
    return parser


def cmd_render(args, structures, views) -> int:
    from ..render.renderer import blender_version
    from .render_job import render_structure_views

    style = style_from_args(args)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    failures = 0
    summaries = []
    try:
        sources = discover(structures)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for source in sources:
        try:
            summary = render_structure_views(source, style, out, views, args.transform,
                                             getattr(args, "ligand", None), args.device,
                                             labels=not args.no_labels)
        except (InputError, ValueError) as exc:
            failures += 1
            print(f"failed: {source.id}: {exc}", file=sys.stderr)
            append_jsonl(out / "failures.jsonl", {"structure": source.id, "where": str(source.protein),
                                                  "why": str(exc)})
            continue
        summaries.append(summary)
        times = ", ".join(f"{im['view']} {im['seconds']:.2f}s" for im in summary["images"])
        print(f"{summary['structure']}: {summary['atoms_shown']} atoms, device {summary['device']}, "
              f"load {summary['load_seconds']:.2f}s, scene {summary['build_seconds']:.2f}s, {times}")
    from .. import __version__
    write_json_atomic(out / "manifest.json", {
        "tool": "misigen", "version": __version__, "blender": blender_version(),
        "device": sorted({s["device"] for s in summaries}), "command": "render",
        "views": views, "transform": args.transform or "", "structures": summaries,
        "failures": failures, "written": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }, indent=1)
    print(f"wrote {sum(len(s['images']) for s in summaries)} images to {out}/images "
          f"({failures} structure(s) failed)")
    return 0 if summaries else 1


def cmd_interactions(args) -> int:
    from ..core.interactions import find_interactions, format_table
    from ..core.loader import load_structure

    try:
        source = discover([args.structure])[0]
        s = load_structure(source, args.ligand)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    kinds = tuple(k.strip() for k in args.kinds.split(",") if k.strip())
    found = find_interactions(s, kinds=kinds, relax=not args.no_relax)
    print(f"# {source.id}: ligand {ligand_title(s)}")
    print(format_table(found))
    return 0


def ligand_title(s) -> str:
    """``GDP:Z:1151+7MG:Z:1152 (52 atoms)``: the ligand as one, composite or not."""
    lig = s.ligand
    name = s.meta.get("ligand_id") or f"{s.resname[lig][0]} (from {Path(str(s.meta.get('ligand_source', ''))).name})"
    return f"{name} ({int(lig.sum())} atoms, chemistry: {s.meta.get('ligand_chemistry', 'file')})"


def cmd_generate(args, structures) -> int:
    from .. import api
    from .shards import parse_shard
    from .validate import validate_dataset

    style = style_from_args(args)
    if args.no_labels:
        style["labels"]["enabled"] = False
    tasks = [t.strip() for t in args.tasks.split(",")] if args.tasks else None
    shard = parse_shard(args.shard)
    ligands = None
    if getattr(args, "ligands", None):
        from ..core.het_ligand import read_ligand_map
        ligands = read_ligand_map(args.ligands)
    if getattr(args, "ligand", None):
        from ..core.het_ligand import parse_selectors
        parse_selectors(args.ligand)
    t0 = time.perf_counter()
    manifest = api.generate(structures, args.out, args.suite, style=style, split=args.split, tasks=tasks,
                            limit=args.limit, seed=args.seed, device=args.device, shard=shard,
                            render=not args.plan_only, progress=True, ligands=ligands,
                            ligand=getattr(args, "ligand", None))
    c = manifest["counts"]
    print(f"{c['records']} QA records, {c['images']} images ({c['images_per_qa']} per QA), "
          f"{c['failures']} failures; device {', '.join(manifest['device']) or '-'}; "
          f"{time.perf_counter() - t0:.1f}s -> {args.out}")
    for key, n in c["per_task_split"].items():
        print(f"  {key}: {n}")
    if "audit" in manifest:
        a = manifest["audit"]
        print(f"audit: {'OK' if a['ok'] else 'FAIL'} ({len(a['flagged'])} guesser(s) above chance, "
              f"{len(a['known'])} known, {a['repeated_images']} record(s) with repeated images; "
              f"details: {Path(args.out) / 'audit.json'})")
    if not args.plan_only:
        problems = validate_dataset(Path(args.out))
        if problems:
            print(f"validate: {len(problems)} problem(s), first: {problems[0]}", file=sys.stderr)
            return 1
    return 0


def cmd_validate(args) -> int:
    from .validate import validate_dataset

    problems = validate_dataset(args.out)
    for p in problems:
        print(p)
    print(f"{args.out}: {'OK' if not problems else f'{len(problems)} problem(s)'}")
    return 1 if problems else 0


def cmd_merge(args) -> int:
    from .generate import merge

    manifest_path = Path(args.out) / "manifest.json"
    meta = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    manifest = merge(Path(args.out), {k: v for k, v in meta.items()
                                      if k not in ("counts", "answer_distribution", "annotations_sha256")})
    print(f"merged {manifest['counts']['records']} records -> {args.out}")
    return 0


def cmd_build_extension(args) -> int:
    from .extension import PLATFORMS, build_extension

    platforms = None
    if args.platforms:
        platforms = list(PLATFORMS) if args.platforms == "all" else \
            [p.strip() for p in args.platforms.split(",") if p.strip()]
    print(build_extension(args.out, platforms, args.wheels))
    return 0


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "render":
            views = [v.strip() for v in args.views.split(",") if v.strip()]
            return cmd_render(args, args.structures, views)
        if args.command == "generate":
            return cmd_generate(args, args.structures)
        if args.command == "demo":
            return cmd_generate(args, [str(examples_dir())])
        if args.command == "validate":
            return cmd_validate(args)
        if args.command == "merge":
            return cmd_merge(args)
        if args.command == "audit":
            from .audit import cmd_audit
            return cmd_audit(args)
        if args.command == "interactions":
            return cmd_interactions(args)
        if args.command == "build-extension":
            return cmd_build_extension(args)
        if args.command in DATASET_COMMANDS:
            return run_dataset_command(args)
    except (InputError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 2


if __name__ == "__main__":
    sys.exit(main())
