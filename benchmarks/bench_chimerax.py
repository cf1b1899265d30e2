"""Compare misigen's H-bond finder with the reference itself: ChimeraX `hbonds` (relax 0.4 A / 20 deg).

    python benchmarks/bench_chimerax.py --chimerax-python VENV/bin/python [DIR ...] \\
        [--definition chimerax|misigen] [--markdown] [--details]

MiSI-Bench's ground truth came from ChimeraX's `hbonds`; misigen's ``chimerax`` definition
reproduces it (docs/INTERACTIONS.md), its ``misigen`` definition departs from it on purpose. This
script runs the real one. ChimeraX is NOT a misigen dependency: its Python package (a yanked PyPI
wheel, ChimeraX 0.1.71, early 2024, CPython 3.11 only, LGPL 2.1; its hbonds code is identical to
the ChimeraX sources the criteria sheet was read from) goes in a separate venv used only here:

    python3.11 -m venv /tmp/cxvenv && /tmp/cxvenv/bin/pip install --no-deps chimerax==0.1.71 \\
        && /tmp/cxvenv/bin/pip install numpy==1.26.4 tinyarray sortedcontainers appdirs msgpack \\
           lz4 psutil filelock pillow packaging PyOpenGL

The wheel's top-level ``import chimerax`` is broken (it imports every bundle) and it lacks
``chimerax.core.nogui``; the worker (``--chimerax-worker``, run under that python) makes the
package a bare namespace and supplies a three-method stand-in UI, touching nothing on disk.

Entries: what misigen's own discovery finds in the DIRs (default: shared/data/complexes/pdb and
shared/data/complexes/paired): PDB files ``<id>.pdb`` (PLIP's plip/test/pdb holds the literature
set) and PDBbind-style folders (protein PDB + ligand SDF). Entries of
benchmarks/literature_hbonds.yaml use its ligand (``RES:CHAIN:NUM``) and count the paper's
residues; others use misigen's automatic choice. ChimeraX opens the same PDB file (its own altloc
choice, typing and hydrogen inference); for a PDBbind-style folder it opens a temporary PDB file
(outside the repository) holding the protein file's records plus the SDF ligand as one HETATM
residue with misigen's atom names and CONECT records for its bonds, so both tools type the same
ligand atoms from the same connectivity. Bonds between the ligand residues and any non-water atom
are compared with misigen's as (chain, residue, protein atom, ligand atom) pairs, direction
ignored. ``--details`` names, per differing pair, the first reason class that applies: shared
proton (a misigen-definition rule), altloc
(an atom's coordinates differ), typing (an atom's type differs), metal rule (a metal within 4 A),
hydrogen placement (a donor's H positions differ), angle at the limit (misigen's verdict flips
with the slop moved by 0.05 A / 2 deg), else other.
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
NEAR = 6.0          # A: residues this close to the ligand have their atoms reported by the worker


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
    import numpy as np
    from chimerax.atomic import settings as atomic_settings
    from chimerax.core.session import Session
    from chimerax.hbonds.hbond import find_hbonds
    from chimerax.hbonds.hydpos import hyd_positions
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
        # atoms near the ligand: type, coordinates, H positions (for --details)
        lig_xyz = np.array([a.coord for a in st.atoms if is_lig(a)])
        atoms = {}
        for a in st.atoms:                      # hyd_positions reads the coordinate find_hbonds caches
            a._hb_coord = a.scene_coord
        for r in st.residues:
            xyz = r.atoms.coords
            if not len(lig_xyz) or ((xyz[:, None, :] - lig_xyz[None]) ** 2).sum(-1).min() > NEAR ** 2:
                continue
            for a in r.atoms:
                key = f"{r.chain_id}|{r.number}|{a.name}|{int(is_lig(a))}"
                hp = [list(map(float, h)) for h in hyd_positions(a)] if a.element.name in "NOS" else []
                atoms[key] = [a.idatm_type, list(map(float, a.coord)), hp]
        out[job["id"]] = {"hbonds": rows, "atoms": atoms}
        session.models.close(models)
    print(json.dumps(out))
    return 0


# ------------------------------------------------------------------ the ligand file as a HETATM residue
def combined_pdb(structure, protein_path: Path, out_path: Path) -> tuple[str, int, str]:
    """Write the protein file's records plus the structure's ligand as one HETATM residue (misigen's
    names, CONECT for its bonds) to ``out_path``; returns the ligand's (chain, number, name)."""
    import numpy as np
    s = structure
    lines = Path(protein_path).read_text().splitlines()
    atoms = [ln for ln in lines if ln.startswith(("ATOM", "HETATM", "TER"))]
    conect = [ln for ln in lines if ln.startswith("CONECT")]
    serials = [int(ln[6:11]) for ln in atoms if ln.startswith(("ATOM", "HETATM")) and ln[6:11].strip().isdigit()]
    chains = {ln[21] for ln in atoms if ln.startswith(("ATOM", "HETATM"))}
    chain = next(c for c in "LXYZWV" + "ABCDEFGHIJKMNOPQRSTU" if c not in chains)
    rows = np.nonzero(s.ligand)[0].tolist()
    resname = str(s.resname[rows[0]])[:3]
    first = max(serials, default=0) + 1
    serial = {r: first + k for k, r in enumerate(rows)}
    out = list(atoms)
    for r in rows:
        name = str(s.name[r])
        name = f" {name:<3}" if len(name) < 4 and len(str(s.element[r])) == 1 else f"{name:<4}"
        x, y, z = s.coords[r]
        out.append(f"HETATM{serial[r]:5d} {name} {resname:>3} {chain}{1:4d}    "
                   f"{x:8.3f}{y:8.3f}{z:8.3f}  1.00  0.00          {str(s.element[r]).upper():>2}")
    nb: dict = {}
    for i, j in s.bonds.tolist():
        if i in serial and j in serial:
            nb.setdefault(i, []).append(j)
            nb.setdefault(j, []).append(i)
    for r in rows:
        others = sorted(serial[j] for j in nb.get(r, []))
        for k in range(0, len(others), 4):
            out.append(f"CONECT{serial[r]:5d}" + "".join(f"{o:5d}" for o in others[k:k + 4]))
    out += conect + ["END"]
    out_path.write_text("\n".join(out) + "\n")
    return chain, 1, resname


# ------------------------------------------------------------------ misigen side
def _pairs(found, donor=None):
    return {(i.chain, i.resseq, i.protein_atom, i.ligand_atom.split(".")[-1]) for i in found
            if i.kind == "hbond" and (donor is None or i.donor == donor)}


def _reason(pair, only, s, T, cx_atoms, at_limit, metal_rows, shared=()) -> str:
    """The first reason class that explains one differing pair (see the docstring)."""
    import numpy as np
    if pair in shared:
        from misigen.core.chemistry.interactions.hbond_limits import shared_proton_limit
        return f"shared proton (a misigen-definition rule: two acid O closer than {shared_proton_limit().distance} A)"
    from misigen.core.chemistry.interactions.hydrogens import deposited_rotor, hydrogen_positions
    c, n, pa, la = pair
    prot = [i for i in np.nonzero((s.chain == c) & (s.resseq == n) & (s.name == pa) & ~s.ligand)[0]]
    lig = [i for i in np.nonzero(s.ligand)[0] if str(s.name[i]).split(".")[-1] == la]
    cxp, cxl = cx_atoms.get(f"{c}|{n}|{pa}|0"), next((v for k, v in cx_atoms.items()
                                                     if k.endswith(f"|{la}|1")), None)
    if not prot or not lig or cxp is None or cxl is None:
        return "other (atom not matched between the tools)"
    p, l_ = prot[0], lig[0]
    for i, cx in ((p, cxp), (l_, cxl)):
        if np.linalg.norm(s.coords[i] - np.array(cx[1])) > 0.05:
            return f"altloc ({s.name[i]} at another position)"
    for i, cx in ((p, cxp), (l_, cxl)):
        if T.types[i] != cx[0]:
            return f"typing ({s.name[i]}: misigen {T.types[i] or '-'}, ChimeraX {cx[0]})"
    if metal_rows is not None and len(metal_rows):
        for i in (p, l_):
            if np.linalg.norm(s.coords[metal_rows] - s.coords[i], axis=1).min() <= 4.0:
                return f"metal rule ({s.name[i]} within 4 A of a metal)"
    for i, cx in ((p, cxp), (l_, cxl)):
        mine = hydrogen_positions(T, i) if str(s.element[i]) in "NOS" else np.zeros((0, 3))
        theirs = np.array(cx[2]).reshape(-1, 3)
        if len(mine) != len(theirs) or (len(mine) and np.abs(
                np.sort(mine, axis=0) - np.sort(theirs, axis=0)).max() > 0.05):
            why = ", deposited rotor H not used (misigen definition)" if deposited_rotor(T, i) else ""
            return f"hydrogen placement ({s.name[i]}: misigen {len(mine)} H, ChimeraX {len(theirs)}{why})"
    if at_limit:
        return "angle at the limit"
    return "other"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="*", type=Path)
    ap.add_argument("--chimerax-python", help="python of a venv with the chimerax wheel")
    ap.add_argument("--chimerax-worker", help=argparse.SUPPRESS)
    ap.add_argument("--definition", default="chimerax", help="misigen's H-bond definition (chimerax|misigen)")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--details", action="store_true", help="list the pairs only one side reports, with a reason")
    args = ap.parse_args(argv)
    if args.chimerax_worker:
        return chimerax_worker(args.chimerax_worker)
    if not args.chimerax_python:
        ap.error("--chimerax-python is required (see the docstring for the venv)")
    sys.path.insert(0, str(ROOT / "blender_addon"))
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_literature_hbonds import residue_matches  # noqa: E402  (one rule for "residue A25")
    import rdkit.Chem  # noqa: F401  (before anything else that links Boost.Python)
    import numpy as np
    import yaml
    from misigen.core.errors import InputError
    from misigen.core.chemistry.interactions import find_interactions
    from misigen.core.chemistry.interactions.atom_typing import type_structure
    from misigen.core.structure.loader import discover, load_structure

    base = Path(os.environ.get("MISIGEN_COMPLEXES", "/work/shared/data/complexes"))
    dirs = args.dirs or [base / "pdb", base / "paired"]
    lit = yaml.safe_load((ROOT / "benchmarks" / "literature_hbonds.yaml").read_text())["entries"]
    sources = {}
    for d in dirs:
        for src in discover([d]):
            sources.setdefault(src.id, src)
    order = [e for e in lit if e in sources] + sorted(e for e in sources if e not in lit)
    jobs, mis, skipped = [], {}, []
    tmp = tempfile.TemporaryDirectory(prefix="misigen-bench-cx-")
    for e in order:
        src = sources[e]
        try:
            s = load_structure(src, lit[e]["ligand"] if e in lit else None)
        except InputError as exc:
            skipped.append(f"{e}: {exc.problem}")
            continue
        if src.ligand is not None:
            pdb = Path(tmp.name) / f"{e}.pdb"
            ligand = [combined_pdb(s, src.protein, pdb)]
        else:
            pdb = src.protein
            rows = np.nonzero(s.ligand)[0]
            ligand = sorted({(str(s.chain[i]), int(s.resseq[i]), str(s.resname[i])) for i in rows})
        jobs.append({"id": e, "pdb": str(pdb), "ligand": ligand})
        found = find_interactions(s, kinds=("hbond",), definition=args.definition)
        looser = find_interactions(s, kinds=("hbond",), definition=args.definition, dist_slop=0.45, angle_slop=22.0)
        tighter = find_interactions(s, kinds=("hbond",), definition=args.definition, dist_slop=0.35, angle_slop=18.0)
        mis[e] = {"ligand": s.meta.get("ligand_id", src.ligand.name if src.ligand else ""),
                  "set": "paired" if src.ligand is not None else "pdb", "s": s,
                  "pairs": _pairs(found), "shared": _pairs(found, "shared"), "looser": _pairs(looser), "tighter": _pairs(tighter)}
    jp = Path(tmp.name) / "jobs.json"
    jp.write_text(json.dumps(jobs))
    r = subprocess.run([args.chimerax_python, str(Path(__file__).resolve()), "--chimerax-worker", str(jp)],
                       capture_output=True, text=True)
    tmp.cleanup()
    if r.returncode != 0 or not r.stdout.strip():
        print(r.stderr[-3000:], file=sys.stderr)
        return 1
    cx = json.loads(r.stdout.strip().splitlines()[-1])

    head = ["entry", "ligand", "ChimeraX", "misigen", "both", "pairs J", "lit. ChimeraX", "lit. misigen"]
    table, details = [], []
    zero = {"cx": 0, "mis": 0, "both": 0}
    tot = {"cx": 0, "mis": 0, "both": 0, "lit_n": 0, "lit_cx": 0, "lit_mis": 0}
    per_set: dict = {}
    for e in [j["id"] for j in jobs]:
        # Both sides on the dataset's partner set: protein residues (waters, buffers and
        # other ligand copies are never partners); ChimeraX's bonds to those are counted apart.
        s_e = mis[e]["s"]
        protein = {(str(s_e.chain[i]), int(s_e.resseq[i])) for i in np.nonzero(s_e.pocket_candidates())[0]}
        pc_all = {(c, n, pa, la) for c, n, rn, pa, la, lres, dn in cx[e]["hbonds"]}
        pc = {x for x in pc_all if (str(x[0]), int(x[1])) in protein}
        tot["non_protein"] = tot.get("non_protein", 0) + len(pc_all - pc)
        pm = mis[e]["pairs"]
        both = pc & pm
        ps = per_set.setdefault(mis[e]["set"], dict(zero))
        for t in (tot, ps):
            t["cx"] += len(pc)
            t["mis"] += len(pm)
            t["both"] += len(both)
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
        if args.details and pc ^ pm:
            s = mis[e]["s"]
            T = type_structure(s, definition=args.definition)
            metals = np.nonzero(T.metal & ~s.is_water)[0]
            for x in sorted(pc - pm):
                why = _reason(x, "cx", s, T, cx[e]["atoms"], x in mis[e]["looser"], metals)
                details.append(f"{e} only ChimeraX: {x}  [{why}]")
            for x in sorted(pm - pc):
                why = _reason(x, "mis", s, T, cx[e]["atoms"], x not in mis[e]["tighter"], metals, mis[e]["shared"])
                details.append(f"{e} only misigen : {x}  [{why}]")
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

    def line(t):
        return (f"ChimeraX {t['cx']}, misigen {t['mis']}, both {t['both']}; "
                f"{100.0 * t['both'] / max(t['cx'], 1):.1f}% of ChimeraX's found by misigen, "
                f"{100.0 * t['both'] / max(t['mis'], 1):.1f}% of misigen's found by ChimeraX")
    print(f"\ndefinition: {args.definition}")
    for name, t in sorted(per_set.items()):
        print(f"set {name}: {line(t)}")
    if tot["lit_n"]:
        print(f"literature residues: ChimeraX {tot['lit_cx']}/{tot['lit_n']} = "
              f"{100.0 * tot['lit_cx'] / tot['lit_n']:.1f}%, misigen {tot['lit_mis']}/{tot['lit_n']} = "
              f"{100.0 * tot['lit_mis'] / tot['lit_n']:.1f}%")
    for ln in skipped:
        print(f"skipped {ln}")
    print(f"left out of both sides: {tot.get('non_protein', 0)} ChimeraX pairs to waters, buffers, metals or other "
          f"ligand copies (not protein partners: docs/INTERACTIONS.md section 6)")
    if args.details:
        print()
        print("\n".join(details))
    print(f"H-bond pairs: {line(tot)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
