"""Question packets for readers, their scoring, and the reader study's data (docs/TAKERS.md). Not a test.

    python benchmarks/taker_packet.py make OUT --packet DIR --key KEY.json [--per-cell 2] [--seed 0]
    python benchmarks/taker_packet.py score OUT --key KEY.json --answers DIR/answers.jsonl [--json F]
    python benchmarks/taker_packet.py deal SUITE=OUT [SUITE=OUT …] --dir DIR --readers N --per-reader K
                                          --kind eye|careful [--name-from 1] [--seed 0]
    python benchmarks/taker_packet.py collect DIR [DIR …] --into benchmarks/data/reader_answers.jsonl
    python benchmarks/taker_packet.py report benchmarks/data/reader_answers.jsonl [--markdown F]

``deal`` is the reader study's: it gives each of N readers a packet of K questions, **at most one per
complex** (a reader with two questions of one complex borrows the pose or the scale from the other),
spread evenly over the (suite, task) cells, no question dealt twice to readers of one kind, from the
questions whose images are all written (a run still rendering deals what it has). Each reader's
packet is ``DIR/<reader>/`` and its key ``DIR/<reader>.key.json``. ``collect`` scores every
answered packet in the DIRs with misigen's scoring and writes one JSON line per answer (reader, kind,
suite, question id, task, score row, exact, composite, and the question's difficulty features): the
data ``calibrate-levels --answers`` fits the levels on. ``report`` prints the study's tables: per
suite, task and level, the measured by-eye and careful scores with n and a 95 % Wilson interval beside
the predicted score, where a by-eye answer's level is predicted by a model fitted without its complex
(out-of-fold, ``core/quality/levels.py``) and a careful answer's by the committed model; and each
suite's paper average per level.

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
    """A dataset's records: its annotations.jsonl, or, while it is still being written, the parts of
    the structures it has finished whose images are all on disk."""
    path = out / "annotations.jsonl"
    if path.is_file():
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    recs = []
    for part in sorted((out / "parts").glob("*.jsonl")):
        if part.name.startswith("_") or part.name.endswith(".failures.jsonl"):
            continue
        for line in part.read_text().splitlines():
            if line.strip():
                r = json.loads(line)
                files = list(r["images"]) + [o for o in r.get("options") or [] if str(o).startswith("images/")]
                if all((out / f).is_file() for f in files):
                    recs.append(r)
    return recs


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
    write_sheets(folder)


SHEET_CAPTION = 22


def write_sheets(folder: Path, per_sheet: int = 4) -> None:
    """The question's images, four to a sheet (2 × 2, each at its own size under a caption with its
    file name): a reader opens one or two sheets per question instead of every file, and sees each
    image at its full resolution (a 2 × 2 sheet of 512² images stays under the size viewers shrink)."""
    from PIL import Image, ImageDraw, ImageFont

    files = sorted(folder.glob("image_*.png"), key=lambda f: int(f.stem.split("_")[1])) + sorted(folder.glob("option_*.png"))
    font = ImageFont.load_default(size=16)
    for k in range(0, len(files), per_sheet):
        group = [Image.open(f).convert("RGB") for f in files[k:k + per_sheet]]
        w, h = max(im.width for im in group), max(im.height for im in group)
        cols = min(2, len(group))
        rows = (len(group) + cols - 1) // cols
        sheet = Image.new("RGB", (cols * w + (cols - 1) * 4, rows * (h + SHEET_CAPTION) + (rows - 1) * 4), (60, 60, 60))
        draw = ImageDraw.Draw(sheet)
        for i, (im, f) in enumerate(zip(group, files[k:k + per_sheet])):
            x, y = (i % cols) * (w + 4), (i // cols) * (h + SHEET_CAPTION + 4)
            draw.text((x + 4, y + 2), f.stem, fill=(255, 255, 255), font=font)
            sheet.paste(im, (x, y + SHEET_CAPTION))
        sheet.save(folder / f"sheet_{k // per_sheet + 1}.png")


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


# ------------------------------------------------------------------ the reader study
def dealt_ids(folder: Path, kind: str) -> set:
    """Question ids already dealt to readers of ``kind`` in ``folder`` (earlier waves)."""
    got = set()
    for key in folder.glob("*.key.json"):
        meta = json.loads(key.read_text())
        if meta.get("kind") == kind:
            got |= {q["id"] for q in meta["questions"].values()}
    return got


def deal_packets(pools: dict, n_readers: int, per_reader: int, rng: random.Random, used: set) -> list[list]:
    """Each reader's questions: per reader at most one per structure, the (suite, task) cells kept
    even over everything dealt, nothing in ``used`` dealt again. ``pools``: suite → records."""
    cells = defaultdict(list)
    for suite in sorted(pools):
        for r in sorted(pools[suite], key=lambda r: r["id"]):
            if r["id"] not in used:
                cells[(suite, r["task"])].append((suite, r))
    for key in sorted(cells):
        rng.shuffle(cells[key])
    counts = {key: 0 for key in cells}
    packets = []
    for _ in range(n_readers):
        seen, mine = set(), []
        while len(mine) < per_reader:
            order = sorted(counts, key=lambda k: (counts[k], rng.random()))
            for key in order:
                pick = next((i for i, (_, r) in enumerate(cells[key]) if r["structure"] not in seen), None)
                if pick is not None:
                    suite, rec = cells[key].pop(pick)
                    counts[key] += 1
                    seen.add(rec["structure"])
                    mine.append((suite, rec))
                    break
            else:
                break                      # no cell has a question of a structure this reader lacks
        rng.shuffle(mine)
        packets.append(mine)
    return packets


def deal(args) -> int:
    folder = Path(args.dir)
    folder.mkdir(parents=True, exist_ok=True)
    sources = dict(item.split("=", 1) for item in args.datasets)
    pools = {suite: read_records(Path(out)) for suite, out in sources.items()}
    pools = {suite: [r for r in recs if args.split == "all" or r["split"] == args.split] for suite, recs in pools.items()}
    rng = random.Random(args.seed)
    packets = deal_packets(pools, args.readers, args.per_reader, rng, dealt_ids(folder, args.kind))
    for k, questions in enumerate(packets):
        reader = f"{args.kind}{args.name_from + k:02d}"
        packet = folder / reader
        if packet.exists():
            raise SystemExit(f"{packet} exists: a packet is written once")
        key = {}
        for j, (suite, rec) in enumerate(questions, 1):
            q = f"q{j:03d}"
            write_question(Path(sources[suite]), rec, packet / q)
            key[q] = {"id": rec["id"], "suite": suite, "task": rec["task"], "structure": rec["structure"]}
        (packet / "answers.jsonl").write_text("")
        (folder / f"{reader}.key.json").write_text(json.dumps(
            {"reader": reader, "kind": args.kind, "datasets": sources, "questions": key}, indent=1))
        print(f"{reader}: {len(questions)} questions in {packet}")
    return 0


NUMERIC = (bool, int, float)


def collect(args) -> int:
    """One JSON line per answered question of every packet in the folders: the study's data."""
    from misigen.core.tasks.scoring import in_paper_average, score_answer, score_row

    rows, records, skipped = [], {}, 0
    for folder in map(Path, args.dirs):
        for keyfile in sorted(folder.glob("*.key.json")):
            meta = json.loads(keyfile.read_text())
            answers_path = folder / meta["reader"] / "answers.jsonl"
            answers = {}
            for line in answers_path.read_text().splitlines() if answers_path.is_file() else []:
                if line.strip():
                    row = json.loads(line)
                    answers[row["q"]] = str(row.get("answer", ""))
            if not answers:
                print(f"{meta['reader']}: no answers yet", file=sys.stderr)
                continue
            for q, info in sorted(meta["questions"].items()):
                out = meta["datasets"][info["suite"]]
                if out not in records:
                    records[out] = {r["id"]: r for r in read_records(Path(out))}
                rec = records[out][info["id"]]
                given = answers.get(q)
                if given is None:
                    skipped += 1
                    continue
                s = score_answer(rec["task"], given or "", rec)
                diff = rec["program"].get("difficulty") or {}
                rows.append({"reader": meta["reader"], "kind": meta["kind"], "suite": info["suite"], "id": rec["id"],
                             "structure": rec["structure"], "task": rec["task"], "row": score_row(rec),
                             "paper_average": in_paper_average(rec), "answer": given, "truth": rec["answer"],
                             "exact": s["exact"], "composite": round(float(s["composite"]), 4),
                             "features": {k: v for k, v in sorted(diff.items())
                                          if isinstance(v, NUMERIC) and k not in ("score", "level")}})
    rows.sort(key=lambda r: (r["kind"], r["reader"], r["id"]))
    Path(args.into).parent.mkdir(parents=True, exist_ok=True)
    Path(args.into).write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows))
    print(f"{len(rows)} answers from {len({r['reader'] for r in rows})} readers -> {args.into}"
          + (f"; {skipped} question(s) dealt but not answered, left out" if skipped else ""))
    return 0


def wilson(p: float, n: int, z: float = 1.96) -> tuple:
    """95 % Wilson interval of a share ``p`` of ``n`` (a mean composite is treated as a share)."""
    if not n:
        return (0.0, 1.0)
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5) / d
    return (max(0.0, c - h), min(1.0, c + h))


def levelled(rows: list) -> list:
    """Each answer with its predicted by-eye score and level: out-of-fold for the by-eye answers (a model
    fitted on the other folds' complexes), the committed model for the others."""
    from misigen.core.quality import levels as L
    from misigen.core.tasks import REGISTRY
    from misigen.pipeline.commands.calibrate_levels import group

    eye = [r for r in rows if r["kind"] == "eye"]
    out = []
    for task, recs in sorted(group(eye).items()):
        recs = sorted(recs, key=lambda r: (r["id"], r["reader"]))
        _, pred = L.calibrate(recs, list(REGISTRY[task].level_features or ()) or None)
        out += [{**r, "predicted": float(p), "level": L.level_of_prediction(float(p))} for r, p in zip(recs, pred)]
    for r in rows:
        if r["kind"] != "eye":
            model = L.load_level_table(REGISTRY[r["task"]].level_table)
            p = L.predict(r["features"], model)
            out.append({**r, "predicted": p, "level": L.level_of_prediction(p, model["bands"])})
    return out


def report(args) -> int:
    rows = levelled([json.loads(line) for line in Path(args.answers).read_text().splitlines() if line.strip()])
    lines = []
    cells = defaultdict(list)
    for r in rows:
        cells[(r["suite"], r["row"], r["level"], r["kind"])].append(r)
        cells[(r["suite"], r["row"], "all", r["kind"])].append(r)
    suites = sorted({r["suite"] for r in rows})
    score_rows = sorted({r["row"] for r in rows})
    paper = {r["row"] for r in rows if r["paper_average"]}

    def cell(key):
        got = cells.get(key, [])
        if not got:
            return "–"
        m = sum(r["composite"] for r in got) / len(got)
        lo, hi = wilson(m, len(got))
        return f"{100 * m:.0f} [{100 * lo:.0f}–{100 * hi:.0f}] n={len(got)}"

    for suite in suites:
        lines.append(f"\n#### {suite}\n")
        lines.append("| row | level | predicted | by eye | careful |\n|---|---|--:|---|---|")
        for row in score_rows:
            for level in ("easy", "medium", "hard", "all"):
                eye = cells.get((suite, row, level, "eye"), [])
                if not eye and not cells.get((suite, row, level, "careful")):
                    continue
                pred = f"{100 * sum(r['predicted'] for r in eye) / len(eye):.0f}" if eye else "–"
                lines.append(f"| {row} | {level} | {pred} | {cell((suite, row, level, 'eye'))} | "
                             f"{cell((suite, row, level, 'careful'))} |")
        lines.append("\n| paper average | by eye | careful |\n|---|---|---|")
        for level in ("easy", "medium", "hard", "all"):
            vals = {}
            for kind in ("eye", "careful"):
                means = [sum(r["composite"] for r in cells[(suite, row, level, kind)]) / len(cells[(suite, row, level, kind)])
                         for row in sorted(paper) if cells.get((suite, row, level, kind))]
                n = sum(len(cells.get((suite, row, level, kind), [])) for row in paper)
                vals[kind] = f"{100 * sum(means) / len(means):.1f} ({len(means)} rows, n={n})" if means else "–"
            lines.append(f"| {level} | {vals['eye']} | {vals['careful']} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.markdown:
        Path(args.markdown).write_text(text)
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
    d = sub.add_parser("deal")
    d.add_argument("datasets", nargs="+", help="SUITE=OUT: a rendered dataset and the suite it was made with")
    d.add_argument("--dir", required=True)
    d.add_argument("--readers", type=int, required=True)
    d.add_argument("--per-reader", type=int, required=True)
    d.add_argument("--kind", required=True, choices=("eye", "careful"))
    d.add_argument("--name-from", type=int, default=1)
    d.add_argument("--seed", type=int, default=0)
    d.add_argument("--split", default="test", choices=("train", "test", "all"))
    c = sub.add_parser("collect")
    c.add_argument("dirs", nargs="+")
    c.add_argument("--into", required=True)
    r = sub.add_parser("report")
    r.add_argument("answers")
    r.add_argument("--markdown")
    args = ap.parse_args(argv)
    return {"make": make, "score": score, "deal": deal, "collect": collect, "report": report}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
