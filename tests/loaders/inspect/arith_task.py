"""A real Inspect AI task for tests/loaders/test_inspect.py, run offline with Inspect's mockllm model:
four samples, three epochs, two scorers (match, mechanical; model_graded_qa graded by a second mockllm
model, model) and the epoch reducers pass_at_2 and mean. Every output states its token usage, so
Inspect never counts tokens with tiktoken (whose encoding it would download).

    python arith_task.py LOG_DIR eval|json [SEED]"""
import itertools
import sys

from inspect_ai import Epochs, Task, eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import match, model_graded_qa
from inspect_ai.solver import generate


def scripted(texts):
    """A mockllm custom_outputs callable answering with texts in turn (a callable, not a generator:
    Inspect records a generator's items in the log's model_args)."""
    turns = itertools.cycle(texts)

    def output(input, tools, tool_choice, config):
        out = ModelOutput.from_content(model="mockllm/model", content=next(turns))
        out.usage = ModelUsage(input_tokens=10, output_tokens=2, total_tokens=12)
        return out
    return output


def arith(grades):
    dataset = MemoryDataset([Sample(id=f"q{i}", input=f"What is {i}+{i}?", target=str(2 * i)) for i in range(4)],
                            name="arith", location="arith.jsonl")
    grader = get_model("mockllm/model", custom_outputs=scripted(grades))
    return Task(name="arith", dataset=dataset, solver=generate(), scorer=[match(), model_graded_qa(model=grader)],
                epochs=Epochs(3, ["pass_at_2", "mean"]))


if __name__ == "__main__":
    log_dir, log_format = sys.argv[1], sys.argv[2]
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    answers = ["0", "2", "4", "7", "6", "9", "4"][seed:] + ["0", "2", "4", "7", "6", "9", "4"][:seed]
    grades = ["GRADE: C", "GRADE: I", "GRADE: C", "GRADE: C"][seed % 4:] + ["GRADE: C", "GRADE: I", "GRADE: C", "GRADE: C"][:seed % 4]
    model = get_model("mockllm/model", custom_outputs=scripted(answers))
    [log] = inspect_eval(arith(grades), model=model, log_dir=log_dir, log_format=log_format, display="none",
                         max_samples=1)
    assert log.status == "success", log.error
    print(log.location)
