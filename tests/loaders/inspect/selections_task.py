"""A team's Inspect AI log folder, written by Inspect itself (mockllm, offline) for
tests/loaders/test_inspect_selections.py: one task, "popularity", on one dataset of six samples, run
again and again on different samples, epochs and models:

    full      every sample, 2 epochs (reducers mean, pass_at_2), mockllm/model   .eval
    limit     --limit 3 (the first three), 1 epoch, mockllm/model               .json
    ids       --sample-id p3,p4,p5, 2 epochs (mean, pass_at_2), mockllm/model  .eval
    other     --limit 1-4 (p1..p3), 3 epochs (mean, pass_at_2), mockllm/other  .eval
    stopped   every sample, 1 epoch, mockllm/model; the solver fails on p4 and the eval stops there
              (fail_on_error): a log of status "error" holding the samples done   .eval

`python selections_task.py LOG_DIR other-dataset` writes one more log: the same task name run on
another dataset ("colours", six other samples with the same ids).

Every output states its token usage, so Inspect never counts tokens with tiktoken (whose encoding it
would download).

    python selections_task.py LOG_DIR      # prints one line per log: its name and where it is"""
import itertools
import sys

from inspect_ai import Epochs, Task, eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import match
from inspect_ai.solver import Generate, TaskState, generate, solver

ANSWERS = {"p0": "red", "p1": "blue", "p2": "green", "p3": "cyan", "p4": "pink", "p5": "gold"}


def scripted(model_name, texts):
    """A mockllm custom_outputs callable answering with texts in turn (a callable, not a generator:
    Inspect records a generator's items in the log's model_args)."""
    turns = itertools.cycle(texts)

    def output(input, tools, tool_choice, config):
        out = ModelOutput.from_content(model=model_name, content=next(turns))
        out.usage = ModelUsage(input_tokens=10, output_tokens=2, total_tokens=12)
        return out
    return output


@solver
def fails_on(sample_id):
    """generate(), except that the sample named fails as a harness error would."""
    async def solve(state: TaskState, generate_: Generate) -> TaskState:
        if state.sample_id == sample_id:
            raise RuntimeError(f"the environment of {sample_id} could not start")
        return await generate_(state)
    return solve


def popularity(epochs, name="popularity", fail=None):
    dataset = MemoryDataset([Sample(id=i, input=f"Which {name} is {i}?", target=a) for i, a in ANSWERS.items()],
                            name=name, location=f"data/{name}.jsonl")
    return Task(name="popularity", dataset=dataset, solver=fails_on(fail) if fail else generate(), scorer=match(),
                epochs=Epochs(epochs, ["mean", "pass_at_2"]) if epochs > 1 else 1)


RUNS = {  # name: (model, answers in turn, epochs, eval options, log format)
    "full": ("mockllm/model", ["red", "no", "green", "no", "pink", "gold", "no"], 2, {}, "eval"),
    "limit": ("mockllm/model", ["red", "blue", "no"], 1, {"limit": 3}, "json"),
    "ids": ("mockllm/model", ["cyan", "no", "pink", "pink", "no"], 2, {"sample_id": ["p3", "p4", "p5"]}, "eval"),
    "other": ("mockllm/other", ["blue", "no", "no", "green", "cyan"], 3, {"limit": (1, 4)}, "eval"),
    "stopped": ("mockllm/model", ["red", "no", "green", "cyan"], 1, {"fail_on_error": True}, "eval"),
}

if __name__ == "__main__":
    log_dir = sys.argv[1]
    dataset = "colours" if sys.argv[2:] == ["other-dataset"] else "popularity"
    runs = {"colours": RUNS["limit"]} if dataset == "colours" else RUNS
    for name, (model_name, answers, epochs, options, log_format) in runs.items():
        model = get_model(model_name, custom_outputs=scripted(model_name, answers))
        task = popularity(epochs, dataset, fail="p4" if name == "stopped" else None)
        [log] = inspect_eval(task, model=model, log_dir=log_dir, log_format=log_format,
                             display="none", max_samples=1, **options)
        assert log.status == ("error" if name == "stopped" else "success"), log.error
        print(name, log.location)
