"""``export --format sharegpt``: multi-image conversations as LLaMA-Factory and ms-swift read them.

    DIR/misigen_<split>.jsonl   one conversation per line
    DIR/dataset_info.json       LLaMA-Factory's entry for each file (sharegpt formatting, OpenAI-style roles)
    DIR/images -> OUT/images    a relative link; image paths in the files are relative to DIR
    DIR/README.md               the fields and the commands

A conversation: ``messages`` = [user, assistant] — with ``--few-shot K``, K worked examples as
earlier user/assistant turns — where each user turn starts with one ``<image>`` placeholder
per image it shows (one line each), then the prompt; ``images`` lists every image in the
order of the placeholders, so their counts agree. With ``--rationale`` every assistant turn is
the record's rationale (step by step from the images, ending with ``Answer: …``) instead of
the bare answer.
"""
from __future__ import annotations

import json
from pathlib import Path

from ..output import dumps, write_text_atomic
from ..records import prompt_images
from .selection import Selection, link_images, subset_note

PLACEHOLDER = "<image>"
FIELDS = {
    "messages": "the conversation: user turns (one `<image>` line per image, then the prompt) and assistant "
                "turns (the answers); worked examples first with --few-shot",
    "images": "image paths relative to this folder, in placeholder order",
    "id": "the question's id in the dataset", "task": "its task", "split": "its split",
    "level": "its difficulty level (easy / medium / hard)",
}


def _user_turn(rec: dict) -> tuple[dict, list[str]]:
    images = prompt_images(rec)
    text = "\n".join([PLACEHOLDER] * len(images) + [rec.get("question", "")])
    return {"role": "user", "content": text}, images


def assistant_text(rec: dict, rationale: bool = False) -> str:
    """The assistant turn: the answer, or (``rationale``) the rationale, which ends with the answer."""
    if rationale and rec.get("rationale"):
        return rec["rationale"]
    return rec["answer"]


def conversation(rec: dict, examples: list[dict], rationale: bool = False) -> dict:
    messages, images = [], []
    for r in [*examples, rec]:
        turn, imgs = _user_turn(r)
        messages += [turn, {"role": "assistant", "content": assistant_text(r, rationale)}]
        images += imgs
    level = ((rec.get("program") or {}).get("difficulty") or {}).get("level")
    return {"id": rec["id"], "task": rec["task"], "split": rec["split"], **({"level": level} if level else {}),
            "messages": messages, "images": images}


def dataset_info_entry(file_name: str) -> dict:
    return {"file_name": file_name, "formatting": "sharegpt",
            "columns": {"messages": "messages", "images": "images"},
            "tags": {"role_tag": "role", "content_tag": "content", "user_tag": "user", "assistant_tag": "assistant"}}


def write(sel: Selection, out: Path) -> None:
    info = {}
    for split, recs in sel.splits().items():
        name = f"misigen_{split}.jsonl"
        lines = [dumps(conversation(r, sel.shots.get(r["id"], []), sel.rationale)) for r in recs]
        write_text_atomic(sel.path(out, name), "".join(l + "\n" for l in lines))
        info[f"misigen_{split}"] = dataset_info_entry(name)
    link_images(sel, sel.path(out, "images"))
    write_text_atomic(sel.path(out, "dataset_info.json"), json.dumps(info, indent=2, sort_keys=True) + "\n")
    write_text_atomic(sel.path(out, "README.md"), _readme(sel, sorted(info)))


def _readme(sel: Selection, names: list[str]) -> str:
    fields = "\n".join(f"| `{k}` | {v} |" for k, v in FIELDS.items())
    first = names[0] if names else "misigen_train"
    bare = sum(1 for r in sel.records if not r.get("rationale"))
    turns = ("Assistant turns are the records' rationales (step by step from the images, ending with "
             "`Answer: …`)" + (f"; {bare} question(s) without one keep the bare answer" if bare else "") + ".\n\n"
             if sel.rationale else "Assistant turns are the bare answers (`--rationale` puts the rationales there).\n\n")
    return (f"# misigen questions as ShareGPT-style conversations\n\nQuestions: {subset_note(sel)}.\n\n" + turns +
            "| field | meaning |\n|---|---|\n" + fields + "\n\n"
            "## LLaMA-Factory\n\nSet `dataset_dir` to this folder and name the dataset from `dataset_info.json`, "
            f"e.g. in the training YAML:\n\n    dataset_dir: /path/to/this/folder\n    dataset: {first}\n\n"
            "Image paths are relative to `dataset_dir` (LLaMA-Factory's default media folder).\n\n"
            "## ms-swift\n\nThe files are in ms-swift's standard `messages` + `images` format; run from this folder "
            f"so the relative image paths resolve:\n\n    cd /path/to/this/folder && swift sft --dataset {first}.jsonl …\n\n"
            "Images are linked, not copied: `images` points at the dataset's images folder.\n")
