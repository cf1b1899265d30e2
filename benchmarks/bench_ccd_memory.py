"""Memory and time a worker pays for CCD ligand chemistry (prints numbers; Linux /proc only).

    python benchmarks/bench_ccd_memory.py [PDB_DIR]

Each measurement runs in a fresh process: resident memory (VmRSS) and its peak (VmHWM)
after importing misigen's core, after the first structure whose ligand needed the CCD,
after every PDB entry of PDB_DIR (default shared/data/complexes/pdb), and, for comparison,
after one call of Biotite's own ``biotite.structure.info.residue`` (which keeps the whole
decoded dictionary).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PROBE = r"""
import json, sys, time, glob
sys.path.insert(0, {addon!r})
def mem():
    st = open('/proc/self/status').read()
    get = lambda k: int(st.split(k + ':')[1].split()[0]) / 1024
    return round(get('VmRSS'), 1), round(get('VmHWM'), 1)
import rdkit.Chem
from misigen.core.chemistry import ccd
from misigen.core.structure.loader import discover, load_structure
out = {{'core imported': mem()}}
mode = {mode!r}
if mode == 'misigen':
    files = sorted(glob.glob({pdb_dir!r} + '/*.pdb'))
    t = time.perf_counter(); n = 0
    for k, f in enumerate(files):
        try:
            s = load_structure(discover([f])[0])
        except Exception:
            continue
        n += 1
        if n == 1:
            out['first HETATM structure (%s)' % s.id] = mem()
            out['seconds, first structure'] = round(time.perf_counter() - t, 2)
    out['all %d structures' % n] = mem()
    out['seconds, all'] = round(time.perf_counter() - t, 2)
    out['dictionary passes'] = ccd.dictionary_passes()
    t = time.perf_counter(); ccd.components(['ATP', 'NAD', 'HEM', 'FAD', 'SAM', 'COA'])
    out['seconds, one more pass (6 new components)'] = round(time.perf_counter() - t, 2)
    t = time.perf_counter(); ccd.components(['ATP', 'NAD'])
    out['seconds, cached components'] = round(time.perf_counter() - t, 6)
    out['after the extra pass'] = mem()
else:
    import biotite.structure.info as info
    t = time.perf_counter(); info.residue('ATP')
    out['biotite info.residue(ATP)'] = mem()
    out['seconds, biotite first call'] = round(time.perf_counter() - t, 2)
print(json.dumps(out))
"""


def main() -> int:
    pdb_dir = sys.argv[1] if len(sys.argv) > 1 else str(
        Path(os.environ.get("MISIGEN_COMPLEXES", "/work/shared/data/complexes")) / "pdb")
    print("RSS / peak RSS in MB (fresh process per column)")
    for mode in ("misigen", "biotite"):
        code = PROBE.format(addon=str(ROOT / "blender_addon"), mode=mode, pdb_dir=pdb_dir)
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        if run.returncode != 0:
            print(run.stderr[-2000:])
            return 1
        for k, v in json.loads(run.stdout.strip().splitlines()[-1]).items():
            print(f"  {mode:8s} {k:45s} {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
