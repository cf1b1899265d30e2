"""Print the protein–ligand interactions of a structure as a table.

    python -m misigen.core.interactions.cli PATH [--ligand RES:CHAIN:NUM[+RES:CHAIN:NUM]]
        [--kinds hbond,salt_bridge] [--no-relax] [--json]
"""
from __future__ import annotations

import argparse
import json
import sys
import time


def main(argv=None) -> int:
    from ..errors import InputError
    from ..loader import discover, load_structure
    from . import INTERACTION_KINDS, find_interactions, format_table

    ap = argparse.ArgumentParser(prog="interactions", description=__doc__.splitlines()[0])
    ap.add_argument("path", nargs="+", help="PDBbind-like folder(s) or PDB/mmCIF file(s)")
    ap.add_argument("--ligand", help="RES[:CHAIN[:NUM]] of a HETATM ligand; several joined with +")
    ap.add_argument("--kinds", default="hbond",
                    help=f"comma-separated, or 'all': {','.join(INTERACTION_KINDS)}")
    ap.add_argument("--no-relax", action="store_true", help="H-bond slops 0 (precise Mills & Dean limits)")
    ap.add_argument("--dist-slop", type=float, default=0.4)
    ap.add_argument("--angle-slop", type=float, default=20.0)
    ap.add_argument("--json", action="store_true", help="one JSON object per structure instead of a table")
    args = ap.parse_args(argv)
    kinds = INTERACTION_KINDS if args.kinds == "all" else tuple(k.strip() for k in args.kinds.split(",") if k.strip())
    status = 0
    try:
        sources = discover(args.path)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    from ..het_ligand import prefetch_templates
    prefetch_templates(sources)
    for src in sources:
        try:
            structure = load_structure(src, ligand=args.ligand)
            t0 = time.perf_counter()
            found = find_interactions(structure, kinds=kinds, relax=not args.no_relax,
                                      dist_slop=args.dist_slop, angle_slop=args.angle_slop)
            dt = time.perf_counter() - t0
        except (InputError, ValueError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            status = 1
            continue
        if args.json:
            print(json.dumps({"id": src.id, "interactions": [i.as_dict() for i in found]}))
        else:
            lig = structure.ligand
            name = structure.meta.get("ligand_id") or str(structure.resname[lig][0])
            print(f"# {src.id}: ligand {name} ({int(lig.sum())} atoms), "
                  f"kinds {','.join(kinds)}, {dt * 1000:.0f} ms")
            print(format_table(found))
            print()
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
