"""tau-bench results (sierra-research/tau-bench `historical_trajectories/*.json`, and the same list
its run.py writes) → a replay set of the environment's tasks and one EARL assertion per task and trial.

Each element is {task_id, trial, reward, info, traj}: task → case, trial → trial, and the trial
passes when reward is 1 within 1e-6 (tau-bench's own rule), else fails; an element whose info holds
an "error" (run.py records a crash of the harness as reward 0 with the traceback) is cantTell caused
by the environment, never a failure of the agent. The grader is the environment's reward function
("tau-bench-reward", mechanical). The system and the replay set come from --system and --replay-set,
else from the file name: `MODEL-ENV.json` (historical_trajectories) gives system MODEL and set
tau-bench-ENV; run.py's `STRATEGY-MODEL-TEMP_range_A-B_user-…_TIME.json` gives the system only.
A file is one run (kg/imported.py): its id is the first 12 hex digits of the file's sha256."""
import hashlib
import re

from kg.imported import Run, implied_set
from kg.loading import Projection, loader
from kg.terms import Triples

ENVS = ("airline", "retail", "telecom")
RUN_PY_NAME = re.compile(r"^(?:tool-calling|act|react|few-shot|[a-z-]+?)-(?P<model>.+)-[0-9.]+_range_\d+--?\d+_user-.+_\d+$")
GRADER = "tau-bench-reward"


def looks_like_taubench(path, head: bytes) -> bool:
    text = head.lstrip()
    return text.startswith(b"[") and b'"task_id"' in head and b'"reward"' in head


def names_from(stem: str) -> tuple[str | None, str | None]:
    """(system, environment) as the file's name gives them, each None when it does not."""
    for env in ENVS:
        if stem.endswith("-" + env) and len(stem) > len(env) + 1:
            return stem[: -len(env) - 1], env
    match = RUN_PY_NAME.match(stem)
    return (match.group("model"), None) if match else (None, None)


@loader(kind="taubench", parse="json", patterns=("*.json",), schema="taubench.schema.json", shapes="earl.ttl",
        order=40, sniff=looks_like_taubench, options=("system", "replay_set"))
def read_taubench(source, ctx):
    rows = source.json()
    system, env = names_from(source.path.name.removesuffix(".json"))
    system = ctx.options.get("system") or system
    set_id = ctx.options.get("replay_set") or (f"tau-bench-{env}" if env else None)
    if not system:
        ctx.problem("", "the file's name does not say which system ran (MODEL-ENV.json)",
                    "give it with --system MODEL")
    if not set_id:
        ctx.problem("", "the file's name does not say which tau-bench environment it ran (MODEL-ENV.json)",
                    "give the replay set with --replay-set, e.g. --replay-set tau-bench-retail")
    for n, row in enumerate(rows):  # a reward outside [0, 1] is no tau-bench reward: neither a pass nor a failure
        if not -1e-6 <= row["reward"] <= 1 + 1e-6:
            ctx.problem(f"/{n}/reward", f"the reward {row['reward']!r} of task {row['task_id']} is outside [0, 1], "
                        f"the range of a tau-bench reward", "check the file: it is not what tau-bench's run.py writes")
    ctx.duplicates(((f"/{n}/trial", f"task {row['task_id']}, trial {row.get('trial', 0)}")
                    for n, row in enumerate(rows)), "task and trial")
    ctx.raise_if_problems()
    t = Triples()
    implied = implied_set(ctx, t, set_id, [str(row["task_id"]) for row in rows], place="/",
                          title=f"tau-bench {env}" if env else None)
    if implied is None:
        ctx.raise_if_problems()
    _, cases = implied
    run = Run(ctx, t, system, hashlib.sha256(source.data).hexdigest()[:12])
    run.grader(GRADER, "mechanical", "tau-bench environment reward (final database state and outputs)")
    for n, row in enumerate(rows):
        case_id = str(row["task_id"])
        reward = row["reward"]
        error = (row.get("info") or {}).get("error")
        if error:
            run.assert_(cases[case_id], case_id, row.get("trial", 0), GRADER, "cantTell", cause="environment",
                        info=f"the run failed before grading: {str(error)[:500]}")
        else:
            passed = abs(reward - 1) <= 1e-6
            run.assert_(cases[case_id], case_id, row.get("trial", 0), GRADER, "passed" if passed else "failed",
                        info=f"reward {reward!r}")
    return Projection(t, pins=[])
