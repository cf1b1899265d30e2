"""``export --few-shot K`` without leaks: worked examples come from the train
split (every split when the dataset has none) and never show a complex the question shows — not
the question's own (docking's crystal pose is visible in its T8/T9 images) and not a partner
complex of a paired task (T5)."""
import json

from misigen.pipeline.exports import select
from misigen.pipeline.records import few_shot_examples, few_shot_pool, shown_structures

H = "0123456789abcdef"


def rec(rid, task, split, structure, images=None, options=None):
    return {"id": rid, "task": task, "split": split, "structure": structure, "question": "q", "answer": "A",
            "program": {}, "seed": 0, "images": images or [f"images/{structure}_{H}.png"], "options": options}


def dataset(tmp_path, records):
    (tmp_path / "annotations.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    (tmp_path / "manifest.json").write_text(json.dumps({"seed": 3}))
    return tmp_path


RECORDS = [
    # docking questions: the test question's own complex (c_1) must never be an example
    rec("d-c_1-0", "docking", "test", "c_1"),
    rec("d-c_1-1", "docking", "train", "c_1"),     # a train record of the same complex (split by hand)
    rec("d-a-0", "docking", "train", "a"),
    rec("d-b-0", "docking", "train", "b"),
    rec("d-e-0", "docking", "test", "e"),          # another complex, but in the test split
    # T5: b's question shows c_1 as its partner (option images), so it must not be c_1's example
    rec("t5-c_1-0", "translation_rotation", "test", "c_1", options=[f"images/a_{H}.png"] * 4),
    rec("t5-b-0", "translation_rotation", "train", "b", options=[f"images/c_1_{H}.png"] * 4),
    rec("t5-d-0", "translation_rotation", "train", "d", options=[f"images/e_{H}.png"] * 4),
    rec("t5-a-0", "translation_rotation", "train", "a", options=[f"images/d_{H}.png"] * 4),
]


def test_shown_structures_reads_partner_complexes_from_image_names():
    assert shown_structures(RECORDS[6]) == {"b", "c_1"}
    assert shown_structures(RECORDS[0]) == {"c_1"}


def test_examples_come_from_other_complexes_of_the_train_split(tmp_path):
    sel = select(dataset(tmp_path, RECORDS), "test", few_shot=5)
    by_id = {r["id"]: r for r in RECORDS}
    for qid, shots in sel.shots.items():
        q = by_id[qid]
        for ex in shots:
            assert ex["split"] == "train" and ex["task"] == q["task"]
            assert not shown_structures(ex) & shown_structures(q), (qid, ex["id"])
    assert {r["id"] for r in sel.shots["d-c_1-0"]} == {"d-a-0", "d-b-0"}
    # t5-b (partner c_1) and t5-a (its own complex a is c_1's partner) are both left out
    assert {r["id"] for r in sel.shots["t5-c_1-0"]} == {"t5-d-0"}
    assert any("fewer than 5" in w for w in sel.warnings)
    # deterministic: the same draw again
    assert select(tmp_path, "test", few_shot=5).shots == sel.shots


def test_without_a_train_split_examples_come_from_other_complexes_of_the_test_split(tmp_path):
    test_only = [dict(r, split="test") for r in RECORDS]
    pool, note = few_shot_pool(test_only)
    assert pool == test_only and "no train split" in note
    sel = select(dataset(tmp_path, test_only), "test", few_shot=3)
    assert any("no train split" in w for w in sel.warnings)
    shots = {r["id"] for r in sel.shots["d-c_1-0"]}
    assert shots and "d-c_1-1" not in shots and shots <= {"d-a-0", "d-b-0", "d-e-0"}
    assert few_shot_examples(test_only[0], pool, 0, 1) == []
