"""A real Inspect AI task whose samples fail in the ways a log records, for tests/loaders/test_inspect.py:
the solver raises on sample e1's second epoch (an environment error), the scorer `fragile` raises on
sample e2 (a grader error), and `length` scores a number (kept, counted only with a threshold).
Offline, with mockllm; every output states its usage (no tiktoken).

    python errors_task.py LOG_DIR"""
import sys

from inspect_ai import Task, eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import Score, Target, match, mean, scorer
from inspect_ai.solver import TaskState, generate, solver


def answer(input, tools, tool_choice, config):
    out = ModelOutput.from_content(model="mockllm/model", content="4")
    out.usage = ModelUsage(input_tokens=5, output_tokens=1, total_tokens=6)
    return out


@solver
def flaky():
    async def solve(state: TaskState, generate_fn):
        if state.sample_id == "e1" and state.epoch == 2:
            raise RuntimeError("the sandbox went away")
        return await generate_fn(state)
    return solve


@scorer(metrics=[mean()])
def length():
    async def score(state: TaskState, target: Target) -> Score:
        return Score(value=len(state.output.completion) / 2)
    return score


@scorer(metrics=[mean()])
def fragile():
    async def score(state: TaskState, target: Target) -> Score:
        if state.sample_id == "e2":
            raise ValueError("the judge's endpoint refused")
        return Score(value="C")
    return score


if __name__ == "__main__":
    dataset = MemoryDataset([Sample(id=f"e{i}", input="2+2?", target="4") for i in range(3)], name="errs")
    task = Task(name="errs", dataset=dataset, solver=flaky(), scorer=[match(), length(), fragile()], epochs=2)
    [log] = inspect_eval(task, model=get_model("mockllm/model", custom_outputs=answer), log_dir=sys.argv[1],
                         display="none", max_samples=1, fail_on_error=False)
    print(log.status, log.location)
