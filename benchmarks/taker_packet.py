"""Question packets for human-style test-takers, and their scoring (docs/TAKERS.md). Not a test.

    python benchmarks/taker_packet.py make OUT --packet DIR --key KEY.json [--per-cell 2] [--seed 0]
    python benchmarks/taker_packet.py score OUT --key KEY.json --answers DIR/answers.jsonl [--json F]

``make`` draws, from a rendered dataset OUT, up to ``--per-cell`` questions per (task, difficulty
level) of the test split (deterministically from the seed), and writes for each one a folder
``DIR/qNNN/`` holding what a reader of the benchmark gets and nothing else: ``question.txt`` (the
prompt, and the option texts when the options are texts) and the images renamed to their place in
the prompt (``image_1.png`` …, option images ``option_A.png`` …). Sidecars, records, answers, ids,
tasks and levels stay out of the packet; they are written to ``KEY.json``, which the taker must
not see. ``DIR/answers.jsonl`` is where a taker writes one ``{"q": "q001", "answer": "..."}`` per
line.

``score`` maps the answers back to the records and scores them with misigen's own scoring (the
paper's composite and exact match), by task and level, and prints the tables.
"""
from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "blender_addon"))

LETTERS = "ABCD"


def read_records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "annotations.jsonl").read_text().splitlines() if line.strip()]


def draw(records: list[dict], per_cell: int, seed: int, split: str = "test") -> list[dict]:
    """Up to ``per_cell`` records per (task, level), in a shuffled order a taker cannot read tasks from."""
    cells = defaultdict(list)
    for r in records:
        if split == "all" or r["split"] == split:
            cells[(r["task"], (r["program"].get("difficulty") or {}).get("level", "none"))].append(r)
    rng = random.Random(seed)
    picked = []
    for key in sorted(cells):
        group = sorted(cells[key], key=lambda r: r["id"])
        rng.shuffle(group)
        picked += group[:per_cell]
    rng.shuffle(picked)
    return picked


def write_question(out: Path, rec: dict, folder: Path) -> None:
    folder.mkdir(parents=True)
    for k, image in enumerate(rec["images"], 1):
        shutil.copyfile(out / image, folder / f"image_{k}.png")
    text = rec["question"]
    if rec.get("options"):
        if all(str(o).startswith("images/") for o in rec["options"]):
            for letter, image in zip(LETTERS, rec["options"]):
                shutil.copyfile(out / image, folder / f"option_{letter}.png")
            text += "\n\n(The option images are option_A.png … option_D.png.)"
        else:
            text += "\n\nOptions:\n" + "\n".join(f"{l}. {o}" for l, o in zip(LETTERS, rec["options"]))
    (folder / "question.txt").write_text(text + "\n", encoding="utf-8")


def make(args) -> int:
    out, packet = Path(args.out), Path(args.packet)
    if packet.exists():
        raise SystemExit(f"{packet} exists: a packet is written once")
    picked = draw(read_records(out), args.per_cell, args.seed, args.split)
    key = {}
    for k, rec in enumerate(picked, 1):
        q = f"q{k:03d}"
        write_question(out, rec, packet / q)
        key[q] = {"id": rec["id"], "task": rec["task"], "level": rec["program"].get("difficulty", {}).get("level")}
    (packet / "answers.jsonl").write_text("")
    Path(args.key).write_text(json.dumps({"dataset": str(out), "questions": key}, indent=1))
    print(f"{len(picked)} questions in {packet}; key in {args.key}")
    return 0


def score(args) -> int:
    """The answers as a predictions file of the packet's records, scored as ``score --by level`` does,
    plus the paper's average per level (its "Avg." rows that have questions of that level)."""
    from misigen.core.tasks.scoring import in_paper_average, score_row
    from misigen.pipeline.records import load_manifest
    from misigen.pipeline.score import format_tables, score_by, score_records

    out = Path(args.out)
    key = json.loads(Path(args.key).read_text())["questions"]
    by_id = {r["id"]: r for r in read_records(out)}
    records = [by_id[meta["id"]] for meta in key.values()]
    predictions = {}
    for line in Path(args.answers).read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            predictions[key[row["q"]]["id"]] = str(row.get("answer", ""))
    manifest = load_manifest(out)
    result = score_records(records, predictions, manifest)
    result["by_level"] = score_by(records, predictions, manifest)
    paper_rows = {score_row(r) for r in records if in_paper_average(r)}
    result["paper_by_level"] = {}
    for level in ("easy", "medium", "hard"):
        rows = [lv[level]["composite"] for name, lv in result["by_level"]["rows"].items()
                if name in paper_rows and level in lv]
        if rows:
            result["paper_by_level"][level] = {"rows": len(rows), "composite": round(sum(rows) / len(rows), 2)}
    print(format_tables(result, title=Path(args.answers).parent.name))
    print("\n| paper average, by level | rows | composite |\n|---|--:|--:|")
    for level, row in result["paper_by_level"].items():
        print(f"| {level} | {row['rows']} | {row['composite']:.2f} |")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    m = sub.add_parser("make")
    m.add_argument("out")
    m.add_argument("--packet", required=True)
    m.add_argument("--key", required=True)
    m.add_argument("--per-cell", type=int, default=2)
    m.add_argument("--seed", type=int, default=0)
    m.add_argument("--split", default="test", choices=("train", "test", "all"))
    s = sub.add_parser("score")
    s.add_argument("out")
    s.add_argument("--key", required=True)
    s.add_argument("--answers", required=True)
    s.add_argument("--json")
    args = ap.parse_args(argv)
    return make(args) if args.command == "make" else score(args)


if __name__ == "__main__":
    sys.exit(main())
