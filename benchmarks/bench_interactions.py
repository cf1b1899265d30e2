"""Per-complex interaction counts and timings on shared/data/complexes.

    python benchmarks/bench_interactions.py [COMPLEXES_DIR]

H-bonds by the library's default definition (``chimerax``, docs/INTERACTIONS.md section 1a).
"""
import collections
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "blender_addon"))

from misigen.core.errors import InputError  # noqa: E402
from misigen.core.chemistry.interactions import INTERACTION_KINDS, find_interactions  # noqa: E402
from misigen.core.structure.loader import discover, load_structure  # noqa: E402


def main(argv):
    root = pathlib.Path(argv[0] if argv else "/work/shared/data/complexes")
    print(f"{'complex':20s} {'atoms':>6s} {'pocket':>6s} {'hb':>3s} {'p->l':>4s} {'l->p':>4s} "
          f"{'hbond kinds (acceptor rule / donor rule)':48s} {'others':40s} {'t_hb ms':>7s} {'t_all ms':>8s}")
    for src in discover([root / "paired", root / "pdb"]):
        try:
            s = load_structure(src)
        except InputError as exc:
            print(f"{src.id:20s} skipped: {exc.problem[:60]}")
            continue
        find_interactions(s)  # warm caches (YAML, RDKit import)
        t0 = time.perf_counter()
        hb = find_interactions(s)
        t1 = time.perf_counter()
        allk = find_interactions(s, kinds=INTERACTION_KINDS)
        t2 = time.perf_counter()
        from misigen.core.chemistry.interactions.atom_typing import type_structure
        pocket = int(type_structure(s).active.sum())
        rules = collections.Counter(rule_name(i.criterion) for i in hb)
        others = collections.Counter(i.kind for i in allk if i.kind != "hbond")
        print(f"{src.id:20s} {s.n_atoms:6d} {pocket:6d} {len(hb):3d} "
              f"{sum(i.donor == 'protein' for i in hb):4d} {sum(i.donor == 'ligand' for i in hb):4d} "
              f"{' '.join(f'{k}x{v}' for k, v in sorted(rules.items())):48s} "
              f"{' '.join(f'{k}:{v}' for k, v in sorted(others.items())):40s} "
              f"{(t1 - t0) * 1000:7.0f} {(t2 - t1) * 1000:8.0f}")


def rule_name(criterion: str) -> str:
    """'donor #6 / acceptor #3 …' → '#6/#3'; other criteria (e.g. a shared proton) by their first word."""
    sides = criterion.split(" / ")
    if len(sides) >= 2 and len(sides[0].split()) > 1 and len(sides[1].split()) > 1:
        return f"{sides[0].split()[1]}/{sides[1].split()[1]}"
    return criterion.split()[0] if criterion.split() else "?"


if __name__ == "__main__":
    main(sys.argv[1:])
