"""Compare misigen's interaction finder with PLIP, an independent profiler, complex by complex.

    python benchmarks/bench_plip.py --plip-python VENV/bin/python [DIR ...] [--markdown]

PLIP (Salentin et al. 2015; Adasme et al. 2021) is NOT a misigen dependency: install it in a
separate venv used only here, e.g.

    python3 -m venv /tmp/plipvenv && /tmp/plipvenv/bin/pip install openbabel-wheel lxml numpy \\
        && /tmp/plipvenv/bin/pip install --no-deps plip

DIRs default to shared/data/complexes/{paired,pdb}. Each complex is written once as a PDB
(protein + the ligand misigen chose, as HETATM with misigen's atom names and CONECT records),
PLIP profiles the same ligand in that file (``--plip-worker`` mode, run under the PLIP
python), and the two H-bond sets are compared as (chain, residue, protein atom, ligand atom)
pairs, direction ignored, and as residue sets; salt bridges and pi-stacking as residue sets.
The definitions differ on purpose (ChimeraX/Mills-Dean angles vs PLIP's D-A <= 4.1 A,
D-H-A >= 100 deg, one bond per donor, salt bridges taking precedence), so agreement is the
point of interest, not identity.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------ PLIP side (runs under PLIP's python)
def plip_worker(jobs_path: str) -> int:
    from plip.basic import config
    from plip.structure.preparation import PDBComplex

    config.NOFIX = True      # keep the file as written (no PDB "fixing" step)
    out = {}
    for job in json.loads(Path(jobs_path).read_text()):
        mol = PDBComplex()
        mol.load_pdb(job["pdb"])
        res = {"hbond": [], "salt_bridge": [], "pi_stacking": [], "error": None}
        target = job["bsid"]
        ligs = [l_ for l_ in mol.ligands if ":".join([l_.hetid, l_.chain, str(l_.position)]) == target]
        if not ligs:
            res["error"] = f"PLIP found no ligand {target}: " + ", ".join(
                ":".join([l_.hetid, l_.chain, str(l_.position)]) for l_ in mol.ligands)
            out[job["id"]] = res
            continue
        mol.characterize_complex(ligs[0])
        s = mol.interaction_sets[target]
        for h in s.hbonds_pdon + s.hbonds_ldon:
            # atoms by coordinates: PLIP's own indices are not the file's serial numbers
            p_at, l_at = (h.d, h.a) if h.protisdon else (h.a, h.d)
            res["hbond"].append([h.reschain, int(h.resnr), h.restype, list(p_at.coords), list(l_at.coords)])
        for b in s.saltbridge_lneg + s.saltbridge_pneg:
            res["salt_bridge"].append([b.reschain, int(b.resnr), b.restype])
        for p in s.pistacking:
            res["pi_stacking"].append([p.reschain, int(p.resnr), p.restype])
        out[job["id"]] = res
    print(json.dumps(out))
    return 0


# ------------------------------------------------------------------ misigen side
def complex_pdb(structure, source, path: Path) -> str:
    """Write protein + ligand (HETATM, misigen names, CONECT) to ``path``; return PLIP's binding-site id."""
    from misigen.core.structure.readers import check_text_file

    s = structure
    prot_lines = [l for l in check_text_file(source.protein).splitlines()
                  if l.startswith(("ATOM", "HETATM")) and not _is_ligand_line(l, s)]
    serial = max([int(l[6:11]) for l in prot_lines if l[6:11].strip().isdigit()] or [0]) + 1
    lig_rows = [i for i in range(s.n_atoms) if s.ligand[i]]
    first = lig_rows[0]
    resname, chain, resseq = str(s.resname[first])[:3], str(s.chain[first]) or "L", int(s.resseq[first])
    out, local = [], {}
    for k, i in enumerate(lig_rows):
        name = str(s.name[i])
        el = str(s.element[i])
        rn, ch, rs = str(s.resname[i])[:3], str(s.chain[i]) or "L", int(s.resseq[i])
        nm = name if len(name) >= 4 else f" {name:<3}"
        out.append(f"HETATM{serial + k:5d} {nm[:4]:<4} {rn:>3} {ch[:1]}{rs:4d}    "
                   f"{s.coords[i][0]:8.3f}{s.coords[i][1]:8.3f}{s.coords[i][2]:8.3f}  1.00  0.00          {el:>2}")
        local[i] = serial + k
    conect = []
    for a, b in s.bonds.tolist():
        if a in local and b in local:
            conect.append(f"CONECT{local[a]:5d}{local[b]:5d}")
            conect.append(f"CONECT{local[b]:5d}{local[a]:5d}")
    path.write_text("\n".join(prot_lines + out + conect + ["END"]) + "\n")
    return f"{resname}:{chain[:1]}:{resseq}"


def _is_ligand_line(line, s) -> bool:
    """HETATM lines of the ligand residues misigen chose (they are re-written with its names)."""
    ids = set(s.meta.get("ligand_residues", []))
    if not line.startswith("HETATM") or not ids:
        return False
    try:
        key = f"{line[17:20].strip()}:{line[21].strip()}:{int(line[22:26])}{line[26].strip()}"
    except ValueError:
        return False
    return key in ids


def _name_at(s, xyz) -> str:
    """misigen's name of the atom at ``xyz`` (PLIP reports atoms by position)."""
    import numpy as np
    d = np.linalg.norm(s.coords - np.asarray(xyz, float), axis=1)
    k = int(np.argmin(d))
    return str(s.name[k]) if d[k] < 0.02 else "?"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="*", type=Path)
    ap.add_argument("--plip-python", help="python of a venv with PLIP installed")
    ap.add_argument("--plip-worker", help=argparse.SUPPRESS)
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args(argv)
    if args.plip_worker:
        return plip_worker(args.plip_worker)
    if not args.plip_python:
        ap.error("--plip-python is required (PLIP lives in its own venv)")
    sys.path.insert(0, str(ROOT / "blender_addon"))
    import rdkit.Chem  # noqa: F401
    import os

    from misigen.core.errors import InputError
    from misigen.core.chemistry.interactions import find_interactions
    from misigen.core.structure.loader import discover, load_structure

    base = Path(os.environ.get("MISIGEN_COMPLEXES", "/work/shared/data/complexes"))
    dirs = args.dirs or [base / "paired", base / "pdb"]
    sources = discover(dirs)
    ours, jobs, skipped, structures = {}, [], {}, {}
    tmp = Path(tempfile.mkdtemp(prefix="misigen_plip_"))
    for src in sources:
        try:
            s = load_structure(src)
        except InputError as exc:
            skipped[src.id] = exc.problem
            continue
        found = find_interactions(s, kinds=("hbond", "salt_bridge", "pi_stacking"))
        ours[src.id] = found
        structures[src.id] = s
        bsid = complex_pdb(s, src, tmp / f"{src.id}.pdb")
        jobs.append({"id": src.id, "pdb": str(tmp / f"{src.id}.pdb"), "bsid": bsid})
    (tmp / "jobs.json").write_text(json.dumps(jobs))
    run = subprocess.run([args.plip_python, __file__, "--plip-worker", str(tmp / "jobs.json")],
                         capture_output=True, text=True)
    if run.returncode != 0:
        print(run.stderr[-3000:], file=sys.stderr)
        return 1
    plip = json.loads(run.stdout.strip().splitlines()[-1])
    head = ["complex", "misigen", "PLIP", "both", "pairs J", "res misigen", "res PLIP", "res both",
            "res J", "salt br. (m/P/both)", "pi-stack (m/P/both)"]
    rows = []
    totals = {"pairs": [0, 0, 0], "res": [0, 0, 0]}
    for src_id, found in ours.items():
        p = plip[src_id]
        if p["error"]:
            rows.append([src_id] + ["-"] * (len(head) - 2) + [p["error"][:40]])
            continue
        mine = {(i.chain, i.resseq, i.protein_atom, i.ligand_atom) for i in found if i.kind == "hbond"}
        s = structures[src_id]
        theirs = {(c, n, _name_at(s, pa), _name_at(s, la)) for c, n, _r, pa, la in p["hbond"]}
        mres, pres = {k[:2] for k in mine}, {k[:2] for k in theirs}
        sb_m = {(i.chain, i.resseq) for i in found if i.kind == "salt_bridge"}
        sb_p = {(c, n) for c, n, _r in p["salt_bridge"]}
        pi_m = {(i.chain, i.resseq) for i in found if i.kind == "pi_stacking"}
        pi_p = {(c, n) for c, n, _r in p["pi_stacking"]}
        jac = lambda a, b: f"{len(a & b) / len(a | b):.2f}" if a | b else "-"  # noqa: E731
        for key, a, b in (("pairs", mine, theirs), ("res", mres, pres)):
            totals[key][0] += len(a)
            totals[key][1] += len(b)
            totals[key][2] += len(a & b)
        rows.append([src_id, str(len(mine)), str(len(theirs)), str(len(mine & theirs)), jac(mine, theirs),
                     str(len(mres)), str(len(pres)), str(len(mres & pres)), jac(mres, pres),
                     f"{len(sb_m)}/{len(sb_p)}/{len(sb_m & sb_p)}", f"{len(pi_m)}/{len(pi_p)}/{len(pi_m & pi_p)}"])
    if args.markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for r in rows:
            print("| " + " | ".join(r) + " |")
    else:
        w = [max(len(h), *(len(r[k]) if k < len(r) else 0 for r in rows)) for k, h in enumerate(head)]
        print("  ".join(h.ljust(x) for h, x in zip(head, w)))
        for r in rows:
            print("  ".join(c.ljust(x) for c, x in zip(r, w)))
    for key, label in (("pairs", "H-bond atom pairs"), ("res", "H-bond residues")):
        m, p_, both = totals[key]
        print(f"{label}: misigen {m}, PLIP {p_}, both {both}; {100 * both / max(p_, 1):.0f}% of PLIP's found by "
              f"misigen, {100 * both / max(m, 1):.0f}% of misigen's found by PLIP")
    for sid, why in skipped.items():
        print(f"skipped {sid}: {why}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
