"""``merge``: join shard folders into one dataset, or rebuild one folder's dataset files from its parts."""
from __future__ import annotations

from pathlib import Path

from ...core.errors import InputError
from ..exit_codes import EXIT_PARTIAL, dataset_exit_code


def add_parser(sub) -> None:
    p = sub.add_parser("merge", help="join shard folders into one dataset, or rebuild one folder's files")
    p.add_argument("shards", nargs="+", type=Path, metavar="SHARD_OUT",
                   help="shard output folders; one folder alone without --out is rebuilt in place")
    p.add_argument("--out", type=Path, help="the merged dataset folder (needed for several shard folders)")
    p.add_argument("--move", action="store_true",
                   help="move images out of the shard folders (default: hard-link, else copy)")


def run(args) -> int:
    from ...core.tasks.spec import load_dataset_modules
    from .. import summaries
    from ..records import load_manifest
    from ..shards import merge_folders, rebuild_folder

    missing = [p for p in args.shards if not Path(p).is_dir()]
    if missing:
        raise InputError(missing[0], "no such folder")
    first = Path(args.shards[0])
    load_dataset_modules(load_manifest(first), first)     # a plugin suite's tasks, for the answer distribution
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
