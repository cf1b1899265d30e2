"""``generate``: a benchmark dataset from task specs (``demo`` runs it on the bundled examples).

``config_from_args`` turns the options into the run's one ``RunConfig``; ``run_generation`` runs
it (or prints its plan, ``--dry-run``), then says what was written and picks the exit code.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ...core.resources import suite_path
from ..exit_codes import EXIT_AUDIT, EXIT_NOTHING, EXIT_OK, EXIT_PARTIAL, EXIT_INTERRUPTED, dataset_exit_code
from ..run_config import EXECUTORS, SPLIT_MODES, RunConfig
from .args import add_reading_args, add_style_args, fraction, probe_device, reading_from_args, style_from_args, whole


def add_parser(sub) -> None:
    p = sub.add_parser("generate", help="generate a benchmark dataset from task specs")
    p.add_argument("--structures", nargs="+", required=True,
                   help="files or folders, searched recursively: PDBbind layouts, PDB/mmCIF files (.gz too)")
    p.add_argument("--out", required=True, type=Path, help="output folder (a run resumes into it)")
    add_generate_args(p)
    add_reading_args(p)
    add_style_args(p)


def add_generate_args(p: argparse.ArgumentParser, demo: bool = False) -> None:
    """The options of ``generate`` and ``demo`` (``demo``: its split defaults to test)."""
    p.add_argument("--suite", type=suite_path, default=suite_path(),
                   help="a suite name (misi_bench: MiSI-Bench's nine tasks; misi_plus: with hard negatives and "
                        "interaction kinds) or a suite YAML path (default: misi_bench)")
    p.add_argument("--split", default="test" if demo else "auto", choices=SPLIT_MODES,
                   help="auto: deterministic by structure (490/3993 to test, as MiSI-Bench)"
                        + (" (default: test)" if demo else " (default: auto)"))
    p.add_argument("--tasks", help="comma-separated task names (default: the whole suite)")
    p.add_argument("--limit", type=whole(1), metavar="N", help="use only the first N structures (sorted by id)")
    p.add_argument("--seed", type=whole(0), default=0, help="root seed of every random choice (default: 0)")
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
    _executor_args(p)


def _executor_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("executors")
    g.add_argument("--executor", choices=EXECUTORS, default="local",
                   help="local: worker processes on this machine; ray: Ray tasks (default: local)")
    g.add_argument("--workers", type=whole(1, 256), metavar="N",
                   help="local rendering processes (default: one per GPU found, else 1 — Cycles already "
                        "uses every CPU core)")
    g.add_argument("--planners", type=lambda t: t if t == "auto" else whole(0, 256)(t), default="auto",
                   metavar="N|auto",
                   help="planning processes per rendering process (0: one helper thread of it). auto: a "
                        "helper thread when rendering on the CPU (Cycles uses every core) or with --plan-only, "
                        "each worker's share of the cores less one on a GPU (default: auto)")
    g.add_argument("--structures-per-worker", type=whole(1), metavar="N",
                   help="a worker process renders at most N structures, then is replaced, so memory stays "
                        "flat (default: 25)")
    g.add_argument("--ray-address", metavar="ADDR",
                   help="an existing Ray cluster (e.g. ray://head:10001 or auto); default: start a local one")
    g.add_argument("--ray-gpus-per-task", type=fraction(0.0), metavar="G",
                   help="GPUs reserved per Ray task, fractions allowed (default: 1 if the cluster has GPUs, else 0)")
    g.add_argument("--ray-cpus-per-task", type=fraction(0.0, strict=True), metavar="C",
                   help="CPUs reserved per Ray task (default: 1 with GPUs, else half of the smallest node)")
    g.add_argument("--ray-retries", type=whole(0), default=2, metavar="N",
                   help="times a Ray task whose worker died is retried (default: 2)")
    g.add_argument("--ray-transfer", choices=("auto", "disk", "driver"), default="auto",
                   help="disk: workers write to --out (shared disk); driver: they return files and this "
                        "process writes them; auto: disk where a worker sees --out, else driver (default: auto)")


def config_from_args(args, structures) -> RunConfig:
    """The run's settings from the options, in the order a user's mistakes are reported: style,
    shard, output folder, device (probed before any work when rendering here), ligands, the rest."""
    from ..folder_lock import make_output_folder
    from ..shards import parse_shard

    style = style_from_args(args)
    if args.no_labels:
        style["labels"]["enabled"] = False
    shard = parse_shard(args.shard)
    render = not args.plan_only
    make_output_folder(Path(args.out), create=False)   # a bad --out is one line before any work
    gpus = 0
    if render and args.executor == "local":
        from ...render.device import count_gpus
        probe_device(args)
        gpus = count_gpus(args.device)
    ligands = {}
    if args.ligands:
        from ...core.structure.ligand_map import read_ligand_map
        ligands = read_ligand_map(args.ligands)
    ray = {}
    if args.executor == "ray":
        ray = {"address": args.ray_address, "gpus_per_task": args.ray_gpus_per_task,
               "cpus_per_task": args.ray_cpus_per_task, "retries": args.ray_retries,
               "transfer": args.ray_transfer}
    return RunConfig(
        structures, args.out, suite=args.suite, style=style, split=args.split,
        tasks=[t.strip() for t in args.tasks.split(",") if t.strip()] if args.tasks else None,
        limit=args.limit, seed=args.seed, device=args.device, shard=shard, render=render,
        progress=not args.no_progress, audit=not args.no_audit, levels=args.level, ligands=ligands,
        ligand=args.ligand, reading=reading_from_args(args), executor=args.executor,
        workers=args.workers or max(1, gpus), gpus=gpus, per_worker=args.structures_per_worker, ray_options=ray,
        planners=args.planners)


def run(args) -> int:
    return run_generation(args, args.structures)


def run_generation(args, structures) -> int:
    """``generate`` (and ``demo``, which passes the bundled ``structures``)."""
    from ..generate import Interrupted, run_generate

    config = config_from_args(args, structures)
    if args.dry_run:
        from ..dry_run import dry_run
        dry_run(config)
        return EXIT_OK
    try:
        manifest = run_generate(config)
    except Interrupted as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_INTERRUPTED
    return _said_and_exit_code(manifest, config, validate=config.render and not args.no_validate)


def _said_and_exit_code(manifest: dict, config: RunConfig, validate: bool) -> int:
    """Print what the run wrote, validate the folder, and pick the exit code."""
    from .. import summaries
    from ..validate import validate_dataset

    out = config.out
    summaries.print_unused_inputs(manifest)
    summaries.print_generate_summary(manifest, out)
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
        summaries.print_audit_line(manifest["audit"], out)
    if validate:
        problems = validate_dataset(out)
        if problems:
            print(f"validate: {len(problems)} problem(s), first: {problems[0]}", file=sys.stderr)
            return EXIT_NOTHING
        print(f"validate: OK ({manifest['counts']['records']} records against the contract: files, answers "
              "re-derived, rationales replayed)")
    code = dataset_exit_code(manifest)
    if code == EXIT_PARTIAL:
        print(f"some inputs or samples failed: see {out / 'failures.jsonl'} (exit {code})", file=sys.stderr)
    if code == EXIT_AUDIT:
        print(f"the audit failed: a blind guesser beats chance, see {out / 'audit.json'} (exit {code})",
              file=sys.stderr)
    return code
