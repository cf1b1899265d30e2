"""Run an lmms-eval task folder exported by misigen through lmms-eval itself.

    python tests/harness_lmms_eval.py DIR PREDICTIONS.jsonl

Runs in the harness environment (.ci/run's .venv-harness: lmms-eval and its loader's
dependencies, no model weights): lmms-eval's TaskManager indexes DIR, its evaluator runs the
``misigen`` and ``misigen_paper`` groups with a chat model that replays PREDICTIONS (by
question id) and checks that every request carries the question's images (few-shot examples
included). Prints one JSON line: {task or group: {"composite", "exact"}, "_images_per_request_ok"}.
Called by tests/test_dataset_use.py; not collected by pytest itself.
"""
import json
import sys

from lmms_eval.api.model import lmms
from lmms_eval.evaluator import simple_evaluate
from lmms_eval.tasks import TaskManager


class Replay(lmms):
    """A 'chat' model that answers each request with the prediction for its question id."""
    is_simple = False

    def __init__(self, predictions):
        super().__init__()
        self.predictions = predictions
        self.images_ok = True

    def generate_until(self, requests):
        answers = []
        for req in requests:
            _ctx, to_messages, _gen_kwargs, doc_id, task, split = req.args
            doc = self.task_dict[task][split][doc_id]
            messages = to_messages(doc)
            shown = sum(1 for m in messages for c in m["content"] if c["type"] == "image")
            wanted = len(doc["images"]) + sum(len(ex["images"]) for ex in json.loads(doc["few_shot"]))
            self.images_ok &= shown == wanted and all(
                c["url"].size[0] > 0 for m in messages for c in m["content"] if c["type"] == "image")
            answers.append(self.predictions.get(doc["id"], ""))
        return answers

    def loglikelihood(self, requests):
        raise NotImplementedError

    def generate_until_multi_round(self, requests):
        raise NotImplementedError


def main(folder, predictions_path):
    preds = {}
    with open(predictions_path) as fh:
        for line in fh:
            obj = json.loads(line)
            preds[obj["id"]] = obj["prediction"]
    model = Replay(preds)
    manager = TaskManager(include_path=folder, include_defaults=False)
    results = {}
    for group in ("misigen", "misigen_paper"):      # groups sharing tasks must run separately
        out = simple_evaluate(model=model, tasks=[group], task_manager=manager, log_samples=False,
                              bootstrap_iters=0)
        results.update({name: {"composite": r["composite,none"], "exact": r["exact,none"]}
                        for name, r in out["results"].items()})
    results["_images_per_request_ok"] = bool(model.images_ok)
    print(json.dumps(results))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
