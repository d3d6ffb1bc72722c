"""``zoo train --from RUN``: a new run that continues a finished run's trials from their final (or best) checkpoints.

The new run is the parent's resolved spec with the command line's overrides (a larger ``budget.steps``);
each trial group's newest checkpoint and each trial's metrics are copied into the new run folder, which
then trains as an interrupted run resumes. For agents that resume exactly, continuing to N steps gives
what training to N steps in one go gives, when the schedules do not depend on the budget (constant
learning rates) and the agent's updates do not depend on where the budget is cut into chunks. The new
run's ``run.json`` records its parent (``parent``: the run's id and folder, which checkpoint, and the checkpoints
taken). From the ``best`` checkpoint (the best periodic evaluation, ``budget.eval_every``) the copied metrics
lose their rows after its step when the new run starts, as those of an interrupted run do.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

from .checkpoints import Checkpoint, newest_first
from .errors import ZooError
from .metrics import METRICS_FILE
from .overrides import Overrides
from .registry import Registry
from .store import RunFolder, find_run


def continue_run(parent_ref: str, registry: Registry, runs_dir: Path, run_dir: Path | None,
                 overrides: Overrides, which: str = "last") -> RunFolder:
    """Create the run folder of a continuation of the finished run `parent_ref` (a folder or a run id) from its
    `which` checkpoints: ``last`` or ``best``."""
    from .evaluation import CHECKPOINTS, checkpoint_home
    from .run import prepare_run
    from .spec import parse_spec
    from .trials import RESOLVED_SPEC, group_dir, load_run_spec, trial_groups
    from .yamlio import load_file

    if which not in CHECKPOINTS:
        raise ZooError(f"--checkpoint {which}: valid: {', '.join(CHECKPOINTS)}")
    parent = RunFolder(find_run(parent_ref, runs_dir))
    manifest = parent.manifest(require=("seeds", "trials"))
    if manifest["status"] != "finished":
        raise ZooError(f"{parent.path}: the run is {manifest['status']}, not finished; "
                       f"finish it with zoo resume {parent.path}, then continue it")
    if overrides.seed is not None or overrides.trials is not None:
        raise ZooError("--from continues the parent's trials with their seeds; --seed and --trials do not apply")
    parent_spec = load_run_spec(parent, registry)
    sources: dict[tuple[int, ...], Checkpoint] = {}
    batched = registry.get("agent", parent_spec.agent.type).batched_trials
    for group in trial_groups(parent_spec, registry):
        home, hint = checkpoint_home(group_dir(parent, group, batched), which)
        newest = next(newest_first(home), None)
        if newest is None:
            raise ZooError(f"{parent.path}: trials {group} kept no complete {which} checkpoint to continue from{hint}")
        sources[tuple(group)] = newest
    named = replace(overrides, sets=(f"name={manifest.get('name') or parent_spec.name or 'continued'}", *overrides.sets))
    spec = parse_spec(named.apply(load_file(parent.path / RESOLVED_SPEC)), registry)
    if spec.budget.unit != parent_spec.budget.unit or trial_groups(spec, registry) != trial_groups(parent_spec, registry):
        raise ZooError("--from keeps the parent's budget unit, trials and trial groups; change only their length")
    for group, checkpoint in sources.items():
        done = max(checkpoint.steps) if spec.budget.unit == "steps" else None
        if done is not None and done >= spec.budget.amount:
            raise ZooError(f"the parent's trials {list(group)} ran {done} steps already; "
                           f"give a larger budget (--set budget.steps=N with N > {done})")
    folder = prepare_run(parent.path / RESOLVED_SPEC, registry, runs_dir, run_dir, named)
    try:
        for group, checkpoint in sources.items():
            target = group_dir(folder, list(group), batched) / "checkpoints"
            target.mkdir(parents=True, exist_ok=True)
            shutil.copytree(checkpoint.path, target / checkpoint.path.name)
            for trial in group:
                metrics = parent.trial_dir(trial) / METRICS_FILE
                if metrics.exists():
                    folder.trial_dir(trial).mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(metrics, folder.trial_dir(trial) / METRICS_FILE)
    except OSError as exc:
        shutil.rmtree(folder.path, ignore_errors=True)
        raise ZooError(f"{folder.path}: cannot copy the parent's checkpoints ({exc}); nothing was kept") from None
    folder.update(parent={"id": manifest["id"], "path": str(parent.path.resolve()), "checkpoint": which,
                          "checkpoints": {",".join(map(str, g)): c.path.name for g, c in sources.items()}})
    return folder
