"""lmms-eval hooks for a misigen task folder (copied there as ``utils.py`` by
``misigen export --format lmms-eval``). Scoring is misigen's own (``score_answer``: the same
lenient reading and MiSI-Bench rules as ``misigen score``), so misigen must be importable in
the evaluation environment (``pip install -e /path/to/misigen``; Blender is not needed).
"""
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _image(rel):
    from PIL import Image

    with Image.open(HERE / rel) as im:
        return im.convert("RGB")


def _examples(doc):
    return json.loads(doc.get("few_shot") or "[]")


def doc_to_visual(doc):
    """Every image in order: the worked examples' first, then the question's."""
    paths = [p for ex in _examples(doc) for p in ex["images"]] + list(doc["images"])
    return [_image(p) for p in paths]


def doc_to_text(doc, lmms_eval_specific_kwargs=None, **_):
    """The prompt; with worked examples, each one's prompt and answer come first, in image order."""
    examples = _examples(doc)
    if not examples:
        return doc["question"]
    parts, first = [], 1
    for k, ex in enumerate(examples, 1):
        last = first + len(ex["images"]) - 1
        parts.append(f"Worked example {k} (images {first} to {last} of this message):\n{ex['question']}\n"
                     f"Answer: {ex['answer']}")
        first = last + 1
    last = first + len(doc["images"]) - 1
    parts.append(f"Now the question (images {first} to {last} of this message; its image numbers count from "
                 f"the first of these):\n{doc['question']}")
    return "\n\n".join(parts)


def doc_to_messages(doc, lmms_eval_specific_kwargs=None, **_):
    """Chat form: each worked example as an earlier user turn (its images, its prompt) answered
    by the assistant, then the question."""
    messages = []
    for ex in _examples(doc):
        messages.append({"role": "user", "content": [{"type": "image", "url": _image(p)} for p in ex["images"]]
                         + [{"type": "text", "text": ex["question"]}]})
        messages.append({"role": "assistant", "content": [{"type": "text", "text": ex["answer"]}]})
    messages.append({"role": "user", "content": [{"type": "image", "url": _image(p)} for p in doc["images"]]
                     + [{"type": "text", "text": doc["question"]}]})
    return messages


def process_results(doc, results):
    from misigen.core.tasks.scoring import is_list_task, score_answer

    record = {"task": doc["task"], "answer": doc["answer"], "program": json.loads(doc.get("program") or "{}"),
              "options": json.loads(doc.get("options") or "null")}
    s = score_answer(doc["task"], results[0] if results else "", record)
    out = {"composite": float(s["composite"]), "exact": float(s["exact"])}
    if is_list_task(record):
        out["f1"] = float(s["f1"])
    return out
