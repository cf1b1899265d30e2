"""How many of the samples a complex can support does each task lose? A plan-only ``generate``
(no render) on a slice of a corpus, read back from its annotations and ``failures.jsonl`` (not a test).

    python benchmarks/bench_task_loss.py [--complexes /work/shared/data/posebusters] [--start 0]
                                         [--stop 60] [--seed 11] [--tasks interaction_location,…]
                                         [--suite misi_bench] [--keep DIR]

The slice is the corpus's sub-folders sorted by name, ``[start, stop)``; each complex gets the split
the default run gives it (``--split auto``). Per task:

- requested: the samples the spec asks for in each complex's split;
- unavailable: samples the complex cannot supply (no H-bond, fewer H-bonds than asked, …: the
  planner's ``count``), so not counted as supportable;
- supportable = made + rejected: samples the complex has the material for;
- loss = rejected / supportable, in all and in the worst complex; with the rejection reasons.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def plan(complexes: Path, start: int, stop: int, seed: int, tasks: str | None, suite: str, out: Path) -> None:
    picked = sorted(p for p in complexes.iterdir() if p.is_dir())[start:stop]
    corpus = out / "corpus"
    corpus.mkdir(parents=True)
    for p in picked:
        os.symlink(p.resolve(), corpus / p.name)
    cmd = [sys.executable, str(ROOT / "run_blender.py"), "generate", "--structures", str(corpus),
           "--out", str(out / "run"), "--seed", str(seed), "--suite", suite, "--plan-only", "--no-audit",
           "--no-validate", "--no-progress", "--workers", "1"]
    if tasks:
        cmd += ["--tasks", tasks]
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL)
    if done.returncode not in (0, 3):          # 3: more rejections than the suite's budget, still counted
        raise SystemExit(f"generate failed (exit {done.returncode})")


def tally(run: Path) -> dict:
    made: dict = defaultdict(Counter)
    for line in (run / "annotations.jsonl").read_text().splitlines():
        rec = json.loads(line)
        made[rec["task"]][rec["structure"]] += 1
    lost: dict = defaultdict(Counter)
    unavailable: Counter = Counter()
    reasons: dict = defaultdict(Counter)
    failures = run / "failures.jsonl"
    for line in (failures.read_text().splitlines() if failures.exists() else ()):
        f = json.loads(line)
        if f.get("category") == "unavailable":
            unavailable[f["task"]] += 1
        elif f.get("task"):
            lost[f["task"]][f["structure"]] += 1
            reasons[f["task"]][f["why"].split(" (rejected attempts")[0] + attempts(f["why"])] += 1
    out = {}
    for task in sorted(set(made) | set(lost) | set(unavailable)):
        n_made, n_lost = sum(made[task].values()), sum(lost[task].values())
        worst = max(((lost[task][s] / (lost[task][s] + made[task][s]), s) for s in lost[task]), default=(0.0, "-"))
        out[task] = {"unavailable": unavailable[task], "made": n_made, "rejected": n_lost,
                     "supportable": n_made + n_lost, "loss": n_lost / max(1, n_made + n_lost),
                     "complexes_losing": len(lost[task]), "worst": worst, "reasons": reasons[task].most_common()}
    return out


def attempts(why: str) -> str:
    """The kinds of rejected attempts, without their counts."""
    if "(rejected attempts: " not in why:
        return ""
    kinds = [part.rsplit(" ×", 1)[0] for part in why.split("(rejected attempts: ", 1)[1].rstrip(")").split("; ")]
    return " [" + "; ".join(kinds) + "]"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--complexes", type=Path, default=Path("/work/shared/data/posebusters"))
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--stop", type=int, default=60)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--tasks", default=None)
    ap.add_argument("--suite", default="misi_bench")
    ap.add_argument("--keep", type=Path, default=None, help="write the run here (default: a temporary folder)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = args.keep or Path(tmp)
        plan(args.complexes, args.start, args.stop, args.seed, args.tasks, args.suite, out)
        table = tally(out / "run")
    print(f"complexes [{args.start}, {args.stop}) of {args.complexes}, seed {args.seed}, suite {args.suite}")
    print(f"{'task':28s} {'unavail':>7s} {'made':>5s} {'rej':>4s} {'support':>7s} {'loss':>6s}  worst complex")
    for task, t in table.items():
        print(f"{task:28s} {t['unavailable']:7d} {t['made']:5d} {t['rejected']:4d} {t['supportable']:7d} "
              f"{100 * t['loss']:5.1f}%  {t['worst'][1]} {100 * t['worst'][0]:.0f}% "
              f"({t['complexes_losing']} complex(es) lose any)")
        for why, n in t["reasons"]:
            print(f"    {n:4d}  {why}")


if __name__ == "__main__":
    main()
