"""Byte-identity fixture: sha256 of ``annotations.jsonl`` for every suite on bundled inputs.

Recorded hashes, so that moving code cannot change a record unnoticed. ``tests/test_byte_identity.py`` regenerates each case and compares.

Deliberate behaviour changes (new options, prompts, programs …) change these hashes. Re-bless
them knowingly, and say so in the commit message:

    .venv/bin/python tests/data/byte_identity.py --bless          # all cases
    .venv/bin/python tests/data/byte_identity.py --bless CASE …   # some cases
    .venv/bin/python tests/data/byte_identity.py                  # check only (prints diffs)
"""
from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = Path(__file__).with_name("byte_identity.json")
EXAMPLES = ROOT / "scenes" / "examples"
SHARED = ("1acj.pdb", "2pvb.pdb", "3ems.pdb")     # from shared/data/complexes/pdb (skipped when absent)

# name → (suite, inputs ("examples" or "shared"), split); plan-only, 256², the default scene
CASES = {
    "misi_bench-examples-test": ("misi_bench", "examples", "test"),
    "misi_bench-examples-train": ("misi_bench", "examples", "train"),
    "misi_plus-examples-test": ("misi_plus", "examples", "test"),
    "misi_plus-shared-auto": ("misi_plus", "shared", "auto"),
}


def inputs_for(kind: str, tmp: Path, complexes: Path | None) -> Path | None:
    if kind == "examples":
        return EXAMPLES
    if complexes is None or not all((complexes / "pdb" / n).is_file() for n in SHARED):
        return None
    folder = tmp / "shared_inputs"
    folder.mkdir(exist_ok=True)
    for n in SHARED:
        link = folder / n
        if not link.exists():
            link.symlink_to(complexes / "pdb" / n)
    return folder


def command(case: str, structures: Path, out: Path) -> list[str]:
    suite, _kind, split = CASES[case]
    return [sys.executable, str(ROOT / "run_blender.py"), "generate", "--structures", str(structures),
            "--out", str(out), "--suite", suite, "--split", split, "--plan-only", "--resolution", "256", "256",
            "--seed", "0", "--no-audit", "--no-validate", "--no-progress"]


def digest(case: str, tmp: Path, complexes: Path | None) -> dict | None:
    """{"sha256", "records"} of the case's annotations.jsonl, or None when its inputs are absent."""
    structures = inputs_for(CASES[case][1], tmp, complexes)
    if structures is None:
        return None
    out = tmp / case
    res = subprocess.run(command(case, structures, out), capture_output=True, text=True, timeout=900)
    if res.returncode not in (0, 3):          # 3: some samples failed (recorded), still a dataset
        raise RuntimeError(f"{case}: generate exited {res.returncode}\n{res.stderr[-2000:]}")
    data = (out / "annotations.jsonl").read_bytes()
    return {"sha256": hashlib.sha256(data).hexdigest(), "records": data.count(b"\n")}


def _complexes() -> Path | None:
    sys.path.insert(0, str(ROOT / "tests"))
    from conftest import COMPLEXES
    return COMPLEXES


def main(argv: list[str]) -> int:
    bless = "--bless" in argv
    names = [a for a in argv if not a.startswith("--")] or list(CASES)
    fixture = json.loads(FIXTURE.read_text()) if FIXTURE.is_file() else {}
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for case in names:
            got = digest(case, Path(tmp), _complexes())
            if got is None:
                print(f"{case}: inputs absent, skipped")
                continue
            want = fixture.get(case)
            same = want == got
            print(f"{case}: {got['records']} records {got['sha256'][:16]} {'same' if same else 'DIFFERS'}"
                  + ("" if same or want is None else f" (fixture: {want['records']} records {want['sha256'][:16]})"))
            bad += not same
            if bless:
                fixture[case] = got
    if bless:
        FIXTURE.write_text(json.dumps(dict(sorted(fixture.items())), indent=1) + "\n")
        print(f"wrote {FIXTURE}")
        return 0
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
