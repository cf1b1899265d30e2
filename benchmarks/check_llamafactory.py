"""Load a misigen ShareGPT export with LLaMA-Factory's own dataset loader (a check, not a dependency).

    python3 -m venv /tmp/lfvenv && /tmp/lfvenv/bin/pip install torch llamafactory   # its own venv
    run_blender.py export --dataset DS --format sharegpt --rationale --split all --out EXP
    /tmp/lfvenv/bin/python benchmarks/check_llamafactory.py EXP

For every dataset named in EXP/dataset_info.json it runs LLaMA-Factory's ``get_dataset_list`` and
``_load_single_dataset`` (the JSON read plus the ShareGPT converter that training uses), then checks
what training would see: no example dropped as abnormal, every image path resolved to a file
under the export, the image count equal to the ``<image>`` placeholders (LLaMA-Factory's
``BasePlugin._validate_messages``) and the response equal to the export's assistant turn.
Prints one line per dataset and exits 1 on any mismatch. No model or tokenizer is needed.
"""
import json
import sys
from pathlib import Path


def main(export: Path) -> int:
    from llamafactory.data.loader import _load_single_dataset
    from llamafactory.data.mm_plugin import BasePlugin
    from llamafactory.data.parser import get_dataset_list
    from llamafactory.hparams import DataArguments, ModelArguments
    from transformers import Seq2SeqTrainingArguments

    import llamafactory

    info = json.loads((export / "dataset_info.json").read_text())
    data_args = DataArguments(dataset_dir=str(export), dataset=",".join(info))
    model_args = ModelArguments(model_name_or_path="unused-for-loading")
    training_args = Seq2SeqTrainingArguments(output_dir=str(export / ".lf_out"), report_to=[])
    plugin = BasePlugin(image_token="<image>", video_token=None, audio_token=None)
    bad = 0
    for attr in get_dataset_list(list(info), str(export)):
        ds = _load_single_dataset(attr, model_args, data_args, training_args)
        lines = [json.loads(x) for x in (export / attr.dataset_name).read_text().splitlines()]
        n_img = 0
        for row, src in zip(ds, lines):
            msgs = row["_prompt"] + row["_response"]
            ok = bool(row["_prompt"]) and row["_response"][0]["content"] == src["messages"][-1]["content"]
            images = row["_images"] or []
            ok &= len(images) == len(src["images"]) and all(Path(p).is_file() for p in images)
            try:
                plugin._validate_messages(msgs, images, [], [])
            except ValueError as exc:
                print(f"  {src['id']}: {exc}")
                ok = False
            n_img += len(images)
            bad += not ok
        print(f"{attr.dataset_name}: {len(ds)} conversations loaded by LLaMA-Factory {llamafactory.__version__} "
              f"(rows in file: {len(lines)}), {n_img} images resolved, {bad} problem(s)")
        bad += len(ds) != len(lines)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]).resolve()))
