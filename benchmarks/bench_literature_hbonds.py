"""How many literature-known H-bond residues the finder recovers on PDB entries (prints a table).

    python benchmarks/bench_literature_hbonds.py [PDB_DIR ...] [--definition chimerax|misigen] [--geometry] [--markdown]

Entries and residues: benchmarks/literature_hbonds.yaml (with their sources). Each entry is
looked up as <id>.pdb in the given folders (default: shared/data/complexes/pdb; a checkout of
PLIP's plip/test/pdb holds all of them); missing entries are listed and skipped. The only
ligand hint is RES:CHAIN:NUM. A residue counts as recovered when the finder reports any H-bond
(either direction) between it and the ligand, by the named H-bond definition (default: the
library's, ``chimerax``). ``--geometry`` types HETATM ligands from geometry
alone (misigen's simplified version of the reference's typing) for comparison; the reference
itself is run by bench_chimerax.py.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "blender_addon"))
import rdkit.Chem  # noqa: E402,F401  (before anything else that links Boost.Python)


def residue_matches(want, chain, resseq) -> bool:
    text = str(want)
    if text[:1].isalpha():
        return chain == text[0] and resseq == int(text[1:])
    return resseq == int(text)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="*", type=Path)
    ap.add_argument("--definition", default=None, help="H-bond definition (chimerax|misigen)")
    ap.add_argument("--geometry", action="store_true", help="HETATM ligands typed from geometry only")
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = ap.parse_args(argv)
    if args.geometry:
        os.environ["MISIGEN_LIGAND_CHEMISTRY"] = "geometry"
    from misigen.core.chemistry.interactions import find_interactions
    from misigen.core.structure.loader import StructureSource, load_structure

    dirs = args.dirs or [Path(os.environ.get("MISIGEN_COMPLEXES", "/work/shared/data/complexes")) / "pdb"]
    table = yaml.safe_load((ROOT / "benchmarks" / "literature_hbonds.yaml").read_text())["entries"]
    rows, missing = [], []
    tot = {"core": [0, 0], "all": [0, 0]}
    for entry, spec in table.items():
        path = next((d / f"{entry}.pdb" for d in dirs if (d / f"{entry}.pdb").is_file()), None)
        if path is None:
            missing.append(entry)
            continue
        s = load_structure(StructureSource(entry, path), spec["ligand"])
        found = {(i.chain, i.resseq) for i in find_interactions(s, kinds=("hbond",), definition=args.definition)}
        core = [str(r) for r in spec["residues"]]
        also = [str(r) for r in spec.get("paper_also", [])]
        hit = {r for r in core + also if any(residue_matches(r, c, n) for c, n in found)}
        tot["core"][0] += sum(r in hit for r in core)
        tot["core"][1] += len(core)
        tot["all"][0] += len(hit)
        tot["all"][1] += len(core) + len(also)
        rows.append([entry, s.meta.get("ligand_id", spec["ligand"]), s.meta.get("ligand_chemistry", ""),
                     f"{sum(r in hit for r in core)}/{len(core)}",
                     f"{sum(r in hit for r in also)}/{len(also)}" if also else "-",
                     " ".join(r for r in core + also if r not in hit) or "-"])
    head = ["entry", "ligand", "chemistry", "recovered", "paper also", "missed"]
    rows = [[r[0], r[1], "CCD" if r[2].startswith("wwPDB") else r[2], *r[3:]] for r in rows]
    if args.markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for r in rows:
            print("| " + " | ".join(r) + " |")
    else:
        w = [max(len(h), *(len(r[k]) for r in rows)) if rows else len(h) for k, h in enumerate(head)]
        print("  ".join(h.ljust(x) for h, x in zip(head, w)))
        for r in rows:
            print("  ".join(c.ljust(x) for c, x in zip(r, w)))
    for key, label in (("core", "residues asserted from the papers"), ("all", "including 'paper also'")):
        got, n = tot[key]
        print(f"{label}: {got}/{n} = {100.0 * got / max(n, 1):.1f}%")
    if missing:
        print(f"not found in {', '.join(map(str, dirs))}: {' '.join(missing)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
