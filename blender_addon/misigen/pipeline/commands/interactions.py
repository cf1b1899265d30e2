"""``interactions``: print a structure's protein–ligand interactions as a table (or JSON)."""
from __future__ import annotations

import sys
import time

from ...core.errors import InputError
from ..exit_codes import EXIT_OK, EXIT_USAGE
from .args import add_keep_args, add_reading_args, keep_from_args, unreadable, with_reading


def add_parser(sub) -> None:
    from ...core.chemistry.interactions.hbond_limits import relaxation   # the defaults live in hbond_criteria.yaml

    p = sub.add_parser("interactions", help="print protein–ligand interactions as a table")
    p.add_argument("structures", nargs="+", metavar="STRUCTURE",
                   help="structure files or PDBbind folders (searched as --structures is)")
    p.add_argument("--ligand", help="RES:CHAIN:NUM[+RES:CHAIN:NUM] of a HETATM ligand (PDB/mmCIF input)")
    p.add_argument("--kinds", default="hbond", help="comma-separated: hbond,salt_bridge,…, or 'all' (default: hbond)")
    p.add_argument("--no-relax", action="store_true", help="strict criteria (ChimeraX's relax off: no slops)")
    relax = relaxation()
    p.add_argument("--dist-slop", type=float, help=f"H-bond distance slop, Å (default: {relax['distance']:g})")
    p.add_argument("--angle-slop", type=float, help=f"H-bond angle slop, degrees (default: {relax['angle']:g})")
    p.add_argument("--json", action="store_true", help="one JSON object per structure instead of a table")
    add_keep_args(p)
    add_reading_args(p)


def run(args) -> int:
    import json

    from ...core.chemistry.ligand import prefetch_templates
    from ...core.chemistry.interactions import INTERACTION_KINDS, find_interactions, format_table
    from ...core.structure.loader import discover_inputs, load_structure
    from .. import summaries

    discovery = discover_inputs(args.structures)
    sources = with_reading(discovery.sources, args)
    status = EXIT_OK
    for u in unreadable(discovery):            # said, and the other structures go on
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
