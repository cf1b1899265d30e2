"""Compare misigen's H-bond finder with the reference itself: ChimeraX `hbonds` (relax 0.4 A / 20 deg).

    python benchmarks/bench_chimerax.py --chimerax-python VENV/bin/python [DIR ...] [--markdown]

MiSI-Bench's ground truth came from ChimeraX's `hbonds`; misigen reimplements that definition
(docs/HBOND_CRITERIA.md). This script runs the real one. ChimeraX is NOT a misigen dependency:
its Python package (a yanked PyPI wheel, ChimeraX 0.1.71, early 2024, CPython 3.11 only, LGPL
2.1; its hbonds code is identical to the ChimeraX sources the criteria sheet was read from) goes
in a separate venv used only here:

    python3.11 -m venv /tmp/cxvenv && /tmp/cxvenv/bin/pip install --no-deps chimerax==0.1.71 \\
        && /tmp/cxvenv/bin/pip install numpy==1.26.4 tinyarray sortedcontainers appdirs msgpack \\
           lz4 psutil filelock pillow packaging PyOpenGL

The wheel's top-level ``import chimerax`` is broken (it imports every bundle) and it lacks
``chimerax.core.nogui``; the worker (``--chimerax-worker``, run under that python) makes the
package a bare namespace and supplies a three-method stand-in UI, touching nothing on disk.

Entries: every PDB file ``<id>.pdb`` in the DIRs (default: shared/data/complexes/pdb; PLIP's
plip/test/pdb holds the literature set). Entries of benchmarks/literature_hbonds.yaml use its
ligand (``RES:CHAIN:NUM``) and count the paper's residues; others use misigen's automatic choice.
ChimeraX opens the same file (its own altloc choice, typing and hydrogen inference) and its
bonds between the ligand residues and any non-water atom are compared with misigen's as
(chain, residue, protein atom, ligand atom) pairs, direction ignored.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------ ChimeraX side (runs under its python)
def _bootstrap_chimerax():
    import importlib.util
    import types
    spec = importlib.util.find_spec("chimerax")
    pkg = types.ModuleType("chimerax")          # skip the wheel's __init__ (it imports every bundle)
    pkg.__path__ = list(spec.submodule_search_locations)
    sys.modules["chimerax"] = pkg

    class UI:                                   # the wheel has no chimerax.core.nogui
        is_gui = False
        has_graphics = False

        def __init__(self, session):
            self.session = session

        def thread_safe(self, func, *args, **kw):
            func(*args, **kw)

        def is_main_thread(self):
            return True
    import chimerax.core
    nogui = types.ModuleType("chimerax.core.nogui")
    nogui.UI = UI
    sys.modules["chimerax.core.nogui"] = nogui
    chimerax.core.nogui = nogui


def chimerax_worker(jobs_path: str) -> int:
    import types
    _bootstrap_chimerax()
    from chimerax.atomic import settings as atomic_settings
    from chimerax.core.session import Session
    from chimerax.hbonds.hbond import find_hbonds
    from chimerax.pdb.pdb import open_pdb
    session = Session("misigen-bench", minimal=False, silent=True)
    # str(atom) in warnings reads this setting; a stand-in avoids writing a settings file
    atomic_settings.settings = types.SimpleNamespace(atomspec_contents="simple")
    out = {}
    for job in json.loads(Path(jobs_path).read_text()):
        with open(job["pdb"], "rb") as f:
            models, _ = open_pdb(session, f, job["pdb"])
        st = models[0]
        lig = {(c, int(n), r) for c, n, r in job["ligand"]}

        def is_lig(a):
            return (a.residue.chain_id, a.residue.number, a.residue.name) in lig
        rows = []
        for d, a in find_hbonds(session, [st], dist_slop=0.4, angle_slop=20.0, status=False):
            if is_lig(d) == is_lig(a) or "HOH" in (d.residue.name, a.residue.name):
                continue
            p, l_ = (a, d) if is_lig(d) else (d, a)
            rows.append([p.residue.chain_id, int(p.residue.number), p.residue.name, p.name, l_.name,
                         l_.residue.name, "ligand" if is_lig(d) else "protein"])
        out[job["id"]] = {"hbonds": rows,
                          "ligand_altlocs": sorted({a.alt_loc for a in st.atoms if is_lig(a) and a.alt_loc != " "})}
        session.models.close(models)
    print(json.dumps(out))
    return 0


# ------------------------------------------------------------------ misigen side
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="*", type=Path)
    ap.add_argument("--chimerax-python", help="python of a venv with the chimerax wheel")
    ap.add_argument("--chimerax-worker", help=argparse.SUPPRESS)
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--geometry", action="store_true", help="misigen types HETATM ligands from geometry only")
    ap.add_argument("--details", action="store_true", help="list the pairs only one side reports")
    args = ap.parse_args(argv)
    if args.chimerax_worker:
        return chimerax_worker(args.chimerax_worker)
    if not args.chimerax_python:
        ap.error("--chimerax-python is required (see the docstring for the venv)")
    if args.geometry:
        os.environ["MISIGEN_LIGAND_CHEMISTRY"] = "geometry"
    sys.path.insert(0, str(ROOT / "blender_addon"))
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_literature_hbonds import residue_matches  # noqa: E402  (one rule for "residue A25")
    import rdkit.Chem  # noqa: F401  (before anything else that links Boost.Python)
    import numpy as np
    import yaml
    from misigen.core.errors import InputError
    from misigen.core.interactions import find_interactions
    from misigen.core.loader import StructureSource, load_structure

    dirs = args.dirs or [Path(os.environ.get("MISIGEN_COMPLEXES", "/work/shared/data/complexes")) / "pdb"]
    lit = yaml.safe_load((ROOT / "benchmarks" / "literature_hbonds.yaml").read_text())["entries"]
    files = {}
    for d in dirs:
        for p in sorted(d.glob("*.pdb")):
            files.setdefault(p.stem, p)
    order = [e for e in lit if e in files] + sorted(e for e in files if e not in lit)
    jobs, mis, skipped = [], {}, []
    for e in order:
        try:
            s = load_structure(StructureSource(e, files[e]), lit[e]["ligand"] if e in lit else None)
        except InputError as exc:
            skipped.append(f"{e}: {exc.problem}")
            continue
        rows = np.nonzero(s.ligand)[0]
        jobs.append({"id": e, "pdb": str(files[e]),
                     "ligand": sorted({(str(s.chain[i]), int(s.resseq[i]), str(s.resname[i])) for i in rows})})
        mis[e] = {"ligand": s.meta.get("ligand_id", ""),
                  "hbonds": [(i.chain, i.resseq, i.resname, i.protein_atom, i.ligand_atom.split(".")[-1], i.donor)
                             for i in find_interactions(s, kinds=("hbond",))]}
    with tempfile.TemporaryDirectory() as tmp:
        jp = Path(tmp) / "jobs.json"
        jp.write_text(json.dumps(jobs))
        r = subprocess.run([args.chimerax_python, str(Path(__file__).resolve()), "--chimerax-worker", str(jp)],
                           capture_output=True, text=True)
    if r.returncode != 0 or not r.stdout.strip():
        print(r.stderr[-3000:], file=sys.stderr)
        return 1
    cx = json.loads(r.stdout.strip().splitlines()[-1])

    head = ["entry", "ligand", "ChimeraX", "misigen", "both", "pairs J", "lit. ChimeraX", "lit. misigen"]
    table, details = [], []
    tot = {"cx": 0, "mis": 0, "both": 0, "lit_n": 0, "lit_cx": 0, "lit_mis": 0}
    for e in [j["id"] for j in jobs]:
        pc = {(c, n, pa, la) for c, n, rn, pa, la, lres, dn in cx[e]["hbonds"]}
        pm = {(c, n, pa, la) for c, n, rn, pa, la, dn in mis[e]["hbonds"]}
        both = pc & pm
        tot["cx"] += len(pc)
        tot["mis"] += len(pm)
        tot["both"] += len(both)
        union = len(pc | pm)
        lc = lm = "-"
        if e in lit:
            core = [str(x) for x in lit[e]["residues"]]
            hc = [x for x in core if any(residue_matches(x, c, n) for c, n, *_ in pc)]
            hm = [x for x in core if any(residue_matches(x, c, n) for c, n, *_ in pm)]
            tot["lit_n"] += len(core)
            tot["lit_cx"] += len(hc)
            tot["lit_mis"] += len(hm)
            lc, lm = f"{len(hc)}/{len(core)}", f"{len(hm)}/{len(core)}"
        table.append([e, mis[e]["ligand"], str(len(pc)), str(len(pm)), str(len(both)),
                      f"{len(both) / union:.2f}" if union else "-", lc, lm])
        for x in sorted(pc - pm):
            details.append(f"{e} only ChimeraX: {x}")
        for x in sorted(pm - pc):
            details.append(f"{e} only misigen : {x}")
    if args.markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for row in table:
            print("| " + " | ".join(row) + " |")
    else:
        w = [max(len(h), *(len(r[k]) for r in table)) for k, h in enumerate(head)]
        print("  ".join(h.ljust(x) for h, x in zip(head, w)))
        for row in table:
            print("  ".join(c.ljust(x) for c, x in zip(row, w)))
    print(f"\nH-bond pairs: ChimeraX {tot['cx']}, misigen {tot['mis']}, both {tot['both']}; "
          f"{100.0 * tot['both'] / max(tot['cx'], 1):.1f}% of ChimeraX's found by misigen, "
          f"{100.0 * tot['both'] / max(tot['mis'], 1):.1f}% of misigen's found by ChimeraX")
    if tot["lit_n"]:
        print(f"literature residues: ChimeraX {tot['lit_cx']}/{tot['lit_n']} = "
              f"{100.0 * tot['lit_cx'] / tot['lit_n']:.1f}%, misigen {tot['lit_mis']}/{tot['lit_n']} = "
              f"{100.0 * tot['lit_mis'] / tot['lit_n']:.1f}%")
    for line in skipped:
        print(f"skipped {line}")
    if args.details:
        print()
        print("\n".join(details))
    return 0


if __name__ == "__main__":
    sys.exit(main())
