"""``export --format lmms-eval``: an lmms-eval task folder, ready to run with

    python -m lmms_eval --model MODEL --model_args … --include_path DIR --tasks misigen

    DIR/misigen_<row>.yaml     one task per score row (T4 split into _pos/_neg, as the paper)
    DIR/misigen.yaml           group of all rows; misigen_paper.yaml: the paper's "Avg." rows
    DIR/_misigen_template_yaml what every task shares (lmms-eval's include)
    DIR/utils.py               doc_to_visual / doc_to_text / doc_to_messages / process_results
    DIR/data/<row>.jsonl       the questions (images relative to DIR; nested fields as JSON text)
    DIR/images -> OUT/images   a relative link

Metrics per task: ``composite`` and ``exact`` (and ``f1`` for H-bond rows), means in [0, 1],
computed by misigen's own scorer; the groups average their rows unweighted, as the paper.
The data files are named relative to DIR (lmms-eval resolves a ``json`` task's ``data_files``
against the folder of its YAML), so the folder works wherever it is moved (with the dataset, for
the images link).
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from ...core.tasks.scoring import in_paper_average, is_list_task, score_row
from ..output import dumps, write_text_atomic
from ..records import prompt_images
from ..score import row_order
from .selection import Selection, link_images, subset_note

TEMPLATE = """\
dataset_path: json
test_split: test
output_type: generate_until
doc_to_visual: !function utils.doc_to_visual
doc_to_text: !function utils.doc_to_text
doc_to_messages: !function utils.doc_to_messages
doc_to_target: answer
process_results: !function utils.process_results
generation_kwargs:
  max_new_tokens: 512
  temperature: 0
  do_sample: false
metadata:
  version: 1.0
"""


def task_name(row: str) -> str:
    return "misigen_" + row.replace("/", "_")


def _doc(rec: dict, examples: list[dict]) -> dict:
    return {"id": rec["id"], "task": rec["task"], "row": score_row(rec), "question": rec.get("question", ""),
            "answer": rec["answer"], "images": prompt_images(rec),
            "options": json.dumps(rec.get("options")), "program": json.dumps(rec.get("program", {}), sort_keys=True),
            "few_shot": json.dumps([{"id": e["id"], "question": e.get("question", ""), "answer": e["answer"],
                                     "images": prompt_images(e)} for e in examples])}


def _task_yaml(row: str, data_file: str, lists: bool) -> str:
    metrics = ["composite", "exact"] + (["f1"] if lists else [])
    metric_lines = "".join(f"- metric: {m}\n  aggregation: mean\n  higher_is_better: true\n" for m in metrics)
    return (f"task: {task_name(row)}\ninclude: _misigen_template_yaml\n"
            f"dataset_kwargs:\n  data_files:\n    test: {json.dumps(str(data_file))}\nmetric_list:\n{metric_lines}")


def _group_yaml(name: str, rows: list[str]) -> str:
    tasks = "".join(f"- {task_name(r)}\n" for r in rows)
    agg = "".join(f"- metric: {m}\n  aggregation: mean\n  weight_by_size: false\n" for m in ("composite", "exact"))
    return f"group: {name}\ntask:\n{tasks}aggregate_metric_list:\n{agg}metadata:\n  version: 1.0\n"


def write(sel: Selection, out: Path) -> None:
    rows = row_order(sel.records, sel.manifest)
    for row in rows:
        recs = [r for r in sel.records if score_row(r) == row]
        data = f"data/{row.replace('/', '_')}.jsonl"
        write_text_atomic(sel.path(out, data), "".join(dumps(_doc(r, sel.shots.get(r["id"], []))) + "\n" for r in recs))
        lists = is_list_task(recs[0])
        write_text_atomic(sel.path(out, f"{task_name(row)}.yaml"), _task_yaml(row, data, lists))
    paper = [r for r in rows if all(in_paper_average(x) for x in sel.records if score_row(x) == r)]
    write_text_atomic(sel.path(out, "misigen.yaml"), _group_yaml("misigen", rows))
    write_text_atomic(sel.path(out, "misigen_paper.yaml"), _group_yaml("misigen_paper", paper))
    write_text_atomic(sel.path(out, "_misigen_template_yaml"), TEMPLATE)
    shutil.copyfile(Path(__file__).with_name("lmms_eval_task_utils.py"), sel.path(out, "utils.py"))
    link_images(sel, sel.path(out, "images"))
    write_text_atomic(sel.path(out, "README.md"), _readme(sel, rows, [r for r in rows if r not in paper]))


def _readme(sel: Selection, rows: list[str], not_paper: list[str]) -> str:
    listing = "\n".join(f"| `{task_name(r)}` | {sum(score_row(x) == r for x in sel.records)} |" for r in rows)
    return (f"# misigen questions as an lmms-eval task folder\n\nQuestions: {subset_note(sel)}.\n\n"
            "Run (misigen must be importable: `pip install -e /path/to/misigen`):\n\n"
            "    python -m lmms_eval --model qwen2_5_vl --model_args pretrained=Qwen/Qwen2.5-VL-7B-Instruct \\\n"
            "        --include_path /path/to/this/folder --tasks misigen --batch_size 1 --output_path results/\n\n"
            f"`--tasks misigen` averages all rows; `misigen_paper` leaves out {', '.join(not_paper) or 'none'} "
            "(MiSI-Bench's \"Avg.\"); any single row can be named too.\n\n"
            "| task | questions |\n|---|--:|\n" + listing + "\n\n"
            "Each question (`data/<row>.jsonl`): `id`, `task`, `row`, `question` (the full prompt), `answer`, "
            "`images` (paths relative to this folder, prompt order), `options` (JSON: null, texts or option "
            "image paths), `program` (JSON ground truth), `few_shot` (JSON list of worked examples: id, "
            "question, answer, images).\n\n"
            "Metrics: `composite` (MiSI-Bench Table 1), `exact` (Table 2), `f1` for H-bond rows; fractions in "
            "[0, 1] (misigen score prints percentages). With worked examples, chat models get them as earlier "
            "turns (`doc_to_messages`); others get all images first and the examples inline (`doc_to_text`).\n")
