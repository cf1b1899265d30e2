"""Non-protein groups in pockets and as interaction partners, per shared complex.

    python benchmarks/bench_pocket.py [COMPLEXES_DIR]   (default: shared/data/complexes; or tests/data/excerpts)

For every complex: the ligand chosen, how many residues of the default pocket (misi_bench
style) are not protein (HETATM groups that are not peptide-linked: waters, ions, buffers,
other ligand copies, cofactors), and how many H-bonds / other interactions have such a group
as the protein-side partner — as the task planners see them (``Context``).
"""
import collections
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "blender_addon"))

from misigen.core.errors import InputError  # noqa: E402
from misigen.core.chemistry.interactions import INTERACTION_KINDS  # noqa: E402
from misigen.core.structure.loader import discover, load_structure  # noqa: E402
from misigen.core.look.style import load_style  # noqa: E402
from misigen.core.tasks.common import context_for  # noqa: E402


def non_protein(s) -> set:
    """Residue keys of HETATM residues without a peptide bond to a neighbour (not modified residues)."""
    keys = s.residue_keys()
    het = {k for k, h, lig in zip(keys, s.hetero.tolist(), s.ligand.tolist()) if h and not lig}
    linked = set()
    nb = s.neighbours()
    for i, k in enumerate(keys):
        if k in het and s.name[i] in ("N", "C"):
            if any(keys[j] != k and not s.hetero[j] for j in nb[i]):
                linked.add(k)
    return het - linked


def main(argv):
    root = pathlib.Path(argv[0] if argv else "/work/shared/data/complexes")
    style = load_style("misi_bench")
    total = collections.Counter()
    print(f"{'complex':22s} {'ligand':28s} {'pocket':>6s} {'non-prot':>8s} {'hb':>3s} {'hb non-prot':>11s} "
          f"{'other':>5s} {'other non-prot':>14s}  non-protein names")
    folders = [root / d for d in ("paired", "pdb") if (root / d).is_dir()] or [root]
    for src in discover(folders):
        try:
            s = load_structure(src)
        except InputError as exc:
            print(f"{src.id:22s} skipped: {exc.problem[:60]}")
            continue
        ctx = context_for(s, style)
        shown = ctx.shown()
        res = {k for k, lig in zip(shown.residue_keys(), shown.ligand.tolist()) if not lig}
        bad = non_protein(s)
        bad_pocket = res & bad
        hb = ctx.hbonds()
        hb_bad = [i for i in hb if (i.chain, int(i.resseq), i.icode, i.resname) in bad]
        other = [it for k in INTERACTION_KINDS if k != "hbond" for it in ctx.interactions(k)]
        other_bad = [i for i in other if (i.chain, int(i.resseq), i.icode, i.resname) in bad]
        lig = s.meta.get("ligand_id", "file")
        names = sorted({f"{k[3]}{k[1]}" for k in bad_pocket} | {f"{i.resname}{i.resseq}*" for i in hb_bad + other_bad})
        print(f"{src.id:22s} {lig[:28]:28s} {len(res):6d} {len(bad_pocket):8d} {len(hb):3d} {len(hb_bad):11d} "
              f"{len(other):5d} {len(other_bad):14d}  {' '.join(names)[:80]}")
        total.update(pocket=len(res), pocket_bad=len(bad_pocket), hb=len(hb), hb_bad=len(hb_bad),
                     other=len(other), other_bad=len(other_bad))
    print(f"{'total':22s} {'':28s} {total['pocket']:6d} {total['pocket_bad']:8d} {total['hb']:3d} "
          f"{total['hb_bad']:11d} {total['other']:5d} {total['other_bad']:14d}")


if __name__ == "__main__":
    main(sys.argv[1:])
