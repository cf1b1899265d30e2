"""The examples of docs/TASKS.md ("Examples: one question per task"): each with its images, rationale and answer.

    python docs/make_rationale_examples.py DATASET      # a rendered dataset folder (e.g. the demo's)

For the first record of each task with a rationale (1HVI's first, else another structure's) it writes
``docs/images/rationale_<task>.jpg`` (the question's images, then its option images, as a labelled contact
sheet) and prints the Markdown block docs/TASKS.md holds (image paths relative to docs/).
"""
import json
import sys
from pathlib import Path

from PIL import Image, ImageDraw

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "images"
TILE, GAP, HEAD = 200, 6, 18


def sheet(dataset: Path, rec: dict, path: Path) -> None:
    images = list(rec["images"]) + [o for o in (rec.get("options") or []) if str(o).startswith("images/")]
    names = [f"image {k}" for k in range(1, len(rec["images"]) + 1)] + \
            [f"option {'ABCD'[k]} (image {len(rec['images']) + 1 + k})" for k in range(len(images) - len(rec["images"]))]
    cols = min(len(images), 4 if len(images) <= 8 else 6)
    rows = (len(images) + cols - 1) // cols
    out = Image.new("RGB", (cols * TILE + (cols - 1) * GAP, rows * (TILE + HEAD) + (rows - 1) * GAP), "white")
    draw = ImageDraw.Draw(out)
    for k, (rel, name) in enumerate(zip(images, names)):
        x, y = (k % cols) * (TILE + GAP), (k // cols) * (TILE + HEAD + GAP)
        out.paste(Image.open(dataset / rel).convert("RGB").resize((TILE, TILE), Image.LANCZOS), (x, y + HEAD))
        draw.text((x + 2, y + 3), name, fill="black")
    out.save(path, quality=85, optimize=True)


def short_question(text: str) -> str:
    lines = text.rstrip().splitlines()
    images = [x for x in lines if x.startswith("Image ")]
    k = max(i for i, x in enumerate(lines) if x.startswith("Question:"))
    return "\n".join(images + [""] + lines[k:])


def main(dataset: Path) -> None:
    recs = [json.loads(line) for line in (dataset / "annotations.jsonl").read_text().splitlines() if line.strip()]
    seen = {}
    for r in sorted(recs, key=lambda r: r["structure"] != "1hvi"):      # 1HVI's first, the order kept
        if r.get("rationale") and r["task"] not in seen:
            seen[r["task"]] = r
    seen = dict(sorted(seen.items()))
    OUT.mkdir(parents=True, exist_ok=True)
    for task, r in seen.items():
        png = OUT / f"rationale_{task}.jpg"
        sheet(dataset, r, png)
        level = (r["program"].get("difficulty") or {}).get("level", "")
        print(f"<details><summary><b>{task}</b> ({r['id']}, level {level})</summary>\n")
        print(f"![{task}](images/{png.name})\n")
        print("Question (its image list and the question itself; the full prompt also states the colours, labels "
              "and coordinate frame):\n\n```text\n" + short_question(r["question"]) + "\n```\n")
        print("Rationale:\n\n```text\n" + r["rationale"].rstrip() + "\n```\n")
        print(f"Answer: `{r['answer']}`\n\n</details>\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
