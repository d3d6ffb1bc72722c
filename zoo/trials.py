"""Training the trials of a run: building agents from the spec, the budget loop, and resuming from checkpoints.

Trials are trained in *trial groups*: one trial per group, or for an agent registered with
``batched_trials=True`` one batch of trials per worker. A group is what a worker process trains.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from .agent import Agent, Progress, TrialContext
from .checkpoints import Checkpoint, load_newest, remove_torn, save_checkpoint
from .culprits import blame, checked_env, suspect
from .errors import ZooError
from .evaluation import evaluate_and_keep_best
from .metrics import MetricLogger, Running
from .registry import Registry, get_registry
from .seeding import seed_everything
from .spec import SpecBase, parse_spec
from .store import RunFolder, atomic_write_json, now, read_json
from .tracking import TENSORBOARD, Tracker, TrialRecord, flatten, require_libraries
from .yamlio import load_file

RESOLVED_SPEC = "spec.yaml"
RESULT = "result.json"
RESUMES = "resumes.jsonl"

#: ``report(trial, done, running)``: a trial's progress in its budget's unit and its recent returns
Report = Callable[[int, int, Running | None], None]


class Interrupted(Exception):
    """A trial stopped at a checkpoint because the user asked it to."""


@dataclass
class Trainee:
    """An agent with the contexts (and so the metric loggers) of the trials it trains."""

    agent: Agent
    contexts: list[TrialContext] = field(default_factory=list)

    def close(self) -> None:
        try:
            self.agent.close()
        finally:
            close_loggers(self.contexts)


@dataclass
class Built:
    """An agent and the metric logger of its one trial (what `build_trial` returns)."""

    agent: Agent
    logger: MetricLogger


def _built_env(factory: Callable[..., Any], params: Any, plugin: str, name: str,
               wrap_env: Callable[[Any], Any] | None, *args: Any) -> Any:
    """An env of `factory` whose outputs are checked (`zoo.culprits.checked_env`), wrapped by `wrap_env` if given."""
    env = checked_env(factory(params, *args), plugin, name)
    return env if wrap_env is None else wrap_env(env)


def open_trackers(spec: SpecBase, registry: Registry, record: TrialRecord) -> list[Tracker]:
    """The trackers the spec's logging block turns on, opened for one trial (closed again if one fails to open).

    TensorBoard's is left out when its plugin is not loaded (``ZOO_PLUGINS`` without it; `preflight` warns).
    """
    tensorboard = spec.logging.tensorboard and TENSORBOARD in registry.entries["tracker"]
    names = ([TENSORBOARD] if tensorboard else []) + list(spec.logging.trackers)
    trackers: list[Tracker] = []
    try:
        for name in names:
            entry = registry.get("tracker", name)
            require_libraries(entry)
            params = getattr(spec.logging, name, None) if name != TENSORBOARD else None
            try:
                trackers.append(entry.factory(params if params is not None else entry.params(), record))
            except (ZooError, KeyboardInterrupt):
                raise
            except Exception as exc:
                raise ZooError(f"logging: the {name} tracker could not start: {type(exc).__name__}: {exc}") from None
    except BaseException:
        for tracker in trackers:
            tracker.close()
        raise
    return trackers


def trial_record(spec: SpecBase, folder: RunFolder, *, trial: int, seed: int, resume_step: int | None) -> TrialRecord:
    """What the trackers of one trial of the run in `folder` are told of it."""
    params = flatten(spec.model_dump(mode="json", exclude_none=True)) | {"trial": trial, "seed": seed}
    return TrialRecord(run_name=folder.path.name, run_dir=folder.path, trial=trial, seed=seed,
                       directory=folder.trial_dir(trial), params=params, resume_step=resume_step)


def trial_context(spec: SpecBase, registry: Registry, *, seed: int, trial: int, directory: Path,
                  trackers: list[Tracker] | None = None, resume_step: int | None = None,
                  wrap_env: Callable[[Any], Any] | None = None) -> TrialContext:
    """The TrialContext of one trial: env factories, a metric logger in `directory` (handing its rows to
    `trackers`), the budget and the meta-controller.

    `wrap_env`, when given, wraps every env that ``make_env`` builds (``zoo enjoy`` watches them through it).
    """
    env_entry = registry.get("env", spec.env.type)
    meta_controller = None
    if spec.meta_controller is not None:
        meta_entry = registry.get("meta_controller", spec.meta_controller.type)
        meta_controller = partial(meta_entry.factory, spec.meta_controller)
    # partials of the blocks, not closures over the spec, whose class is built at run time: the factories
    # pickle, for agents that build envs in other processes
    return TrialContext(
        seed=seed, trial=trial, directory=directory, env_params=spec.env,
        make_env=partial(_built_env, env_entry.factory, spec.env, env_entry.plugin, env_entry.name, wrap_env),
        logger=MetricLogger(directory, trackers=trackers or (), resume_step=resume_step),
        budget=spec.budget, meta_controller=meta_controller, torch_threads=spec.backend.torch_threads,
        make_vector_env=(partial(_built_env, env_entry.vector_factory, spec.env, env_entry.plugin, env_entry.name, None)
                         if env_entry.vector_factory is not None else None),
        backend=spec.backend, backend_capabilities=registry.get("backend", spec.backend.type).capabilities,
    )


def build_agent(spec: SpecBase, registry: Registry, contexts: list[TrialContext]) -> Trainee:
    """The one place an agent is made from a spec: a batched agent gets every context, another its only one.

    On failure the contexts' loggers are closed before the error propagates.
    """
    entry = registry.get("agent", spec.agent.type)
    try:
        agent = entry.factory(spec.agent, contexts if entry.batched_trials else contexts[0])
    except BaseException:
        close_loggers(contexts)
        raise
    return Trainee(agent, contexts)


def close_loggers(contexts: list[TrialContext]) -> None:
    for context in contexts:
        context.logger.close()


def build_trial(
    spec: SpecBase, registry: Registry, *, seed: int, trial: int, directory: Path,
    resume_step: int | None = None, wrap_env: Callable[[Any], Any] | None = None,
) -> Built:
    """Make the logger, meta-controller and agent of one trial (an agent that trains batches of trials gets a batch
    of one); its metrics go to `directory` only, to no tracker."""
    context = trial_context(spec, registry, seed=seed, trial=trial, directory=directory,
                            resume_step=resume_step, wrap_env=wrap_env)
    return Built(build_agent(spec, registry, [context]).agent, context.logger)


def load_run_spec(folder: RunFolder, registry: Registry) -> SpecBase:
    """The resolved spec of a run folder, validated against the installed plugins; each entry is the one of the
    plugin that run.json records (``entries``), so a plugin installed since, with the same names, changes nothing;
    presets are not applied again (`reading_resolved_spec`)."""
    document = load_file(folder.path / RESOLVED_SPEC)
    recorded = folder.manifest().get("entries")
    recorded = recorded if isinstance(recorded, dict) else {}
    data = dict(document.data) if isinstance(document.data, dict) else document.data
    for block, plugin in recorded.items():
        value = data.get(block) if isinstance(data, dict) else None
        if not (isinstance(value, dict) and isinstance(value.get("type"), str) and isinstance(plugin, str)):
            continue
        if plugin not in registry.plugins:
            raise ZooError(f"{folder.path}: the run's {block} '{value['type']}' comes from plugin '{plugin}', which is "
                           f"not loaded (installed: {', '.join(sorted(registry.plugins))}); install it to use this run")
        if ":" not in value["type"]:
            data[block] = {**value, "type": f"{plugin}:{value['type']}"}
    return parse_spec(dataclasses.replace(document, data=data), registry, resolved=True)


def trial_groups(spec: SpecBase, registry: Registry) -> list[list[int]]:
    """How trials are grouped: one trial per group, or for a batched agent one batch per worker."""
    trials = list(range(spec.trials))
    if not registry.get("agent", spec.agent.type).batched_trials:
        return [[t] for t in trials]
    workers = min(spec.backend.workers, len(trials))
    size = -(-len(trials) // workers)
    return [trials[i:i + size] for i in range(0, len(trials), size)]


def group_dir(folder: RunFolder, group: list[int], batched: bool) -> Path:
    """Where a trial group keeps its checkpoints: the trial's folder, or a batch folder."""
    if not batched:
        return folder.trial_dir(group[0])
    return folder.path / "batches" / f"{group[0]:03d}-{group[-1]:03d}"


def run_trials(
    run_path: Path, group: list[int], *, registry: Registry | None = None,
    should_stop: Callable[[], bool] = lambda: False, report: Report = lambda trial, done, running: None,
) -> list[dict[str, Any]]:
    """Train the trials of `group` to the budget, resuming from the group's newest loadable checkpoint if any.

    After every chunk of training `report` gets each trial's progress and recent returns.
    """
    registry = registry or get_registry()
    folder = RunFolder(Path(run_path))
    spec = load_run_spec(folder, registry)
    agent, env = registry.get("agent", spec.agent.type), registry.get("env", spec.env.type)
    others = [suspect("env", env, env.factory)]
    if spec.meta_controller is not None:
        meta = registry.get("meta_controller", spec.meta_controller.type)
        others.append(suspect("meta_controller", meta, meta.factory))
    try:
        return _train_group(folder, spec, registry, group, should_stop, report)
    except (ZooError, Interrupted):
        raise
    except Exception as exc:  # a plugin's code failed: named in one line, the traceback kept as the cause
        failure = blame(exc, suspect("agent", agent, agent.factory), tuple(others))
        if failure is None:
            raise
        raise failure from exc


def _train_group(folder: RunFolder, spec: SpecBase, registry: Registry, group: list[int],
                 should_stop: Callable[[], bool], report: Report) -> list[dict[str, Any]]:
    entry = registry.get("agent", spec.agent.type)
    seeds = [folder.manifest()["seeds"][t] for t in group]
    if all((folder.trial_dir(t) / RESULT).exists() for t in group):
        results = [read_json(folder.trial_dir(t) / RESULT, dict) for t in group]
        for result in results:
            report(result["trial"], result["progress"], Running(eval_return=result.get("eval_mean")))
        return results

    import torch

    torch.set_num_threads(spec.backend.torch_threads)
    checkpoints = group_dir(folder, group, entry.batched_trials) / "checkpoints"
    remove_torn(checkpoints)

    def build(checkpoint: Checkpoint | None) -> Trainee:
        seed_everything(seeds[0])
        resume_steps = checkpoint.steps if checkpoint else [None] * len(group)
        contexts = []
        try:
            for trial, seed, resume in zip(group, seeds, resume_steps):
                record = trial_record(spec, folder, trial=trial, seed=seed, resume_step=resume)
                contexts.append(trial_context(spec, registry, seed=seed, trial=trial, directory=folder.trial_dir(trial),
                                              trackers=open_trackers(spec, registry, record), resume_step=resume))
        except BaseException:
            close_loggers(contexts)
            raise
        return build_agent(spec, registry, contexts)

    trainee, checkpoint = load_newest(checkpoints, build)
    agent = trainee.agent
    if checkpoint is not None:
        _note_resume(folder, group, checkpoint, agent)
    earlier = {"cpu_seconds": checkpoint.cpu_seconds, "wall_seconds": checkpoint.wall_seconds} if checkpoint else {}
    progress = Progress(agent, spec.budget.unit, entry.batched_trials, **earlier)
    try:
        _report(report, group, progress, trainee)
        _train_to_budget(spec, trainee, progress, checkpoints, group, seeds, should_stop, report)
        elapsed, cpu = progress.wall_seconds(), progress.cpu_seconds()  # with the earlier processes' of a resumed trial
        evaluations = _evaluate(agent, spec, seeds, entry.batched_trials)
        results = []
        for index, (trial, seed) in enumerate(zip(group, seeds)):
            result = {"trial": trial, "seed": seed, "unit": spec.budget.unit, "progress": progress.per_trial()[index],
                      "steps": progress.steps()[index], "wall_seconds": elapsed, "cpu_seconds": cpu}
            if evaluations is not None:
                returns = [float(r) for r in evaluations[index]]
                result.update(eval_returns=returns, eval_mean=float(sum(returns) / len(returns)))
            atomic_write_json(folder.trial_dir(trial) / RESULT, result)
            trainee.contexts[index].logger.finish(result, [folder.path / RESOLVED_SPEC, folder.trial_dir(trial) / RESULT])
            results.append(result)
        return results
    finally:
        trainee.close()


def _train_to_budget(spec, trainee: Trainee, progress: Progress, checkpoints: Path, group: list[int], seeds: list[int],
                     should_stop: Callable[[], bool], report: Report) -> None:
    """The budget loop: learn in chunks (a hundredth of the budget, at most 10,000), evaluate every
    ``eval_every`` (before checkpointing, so a resumed trial repeats it exactly), checkpoint at each interval."""
    budget, interval = spec.budget.amount, spec.budget.checkpoint_interval
    grain = max(1, min(budget // 100, 10_000))
    while progress.least() < budget:
        before = progress.least()
        target = min(budget, _next_multiple(before, grain), _next_multiple(before, interval))
        progress.learn(target - before)
        after = progress.least()
        if after <= before:
            raise ZooError(f"agent '{spec.agent.type}' made no progress in learn(); its {spec.budget.unit} stayed at {before}")
        for context in trainee.contexts:
            context.logger.flush()
        every = spec.budget.eval_every
        if every and (after // every > before // every or after >= budget):
            returns = _evaluate(trainee.agent, spec, seeds, progress.batched)
            if returns is not None:
                evaluate_and_keep_best(trainee.agent, returns, trainee.contexts, checkpoints.parent, progress)
        _report(report, group, progress, trainee)
        stop = should_stop()
        if after // interval > before // interval or after >= budget or stop:
            for context in trainee.contexts:
                context.logger.sync()
            save_checkpoint(trainee.agent, checkpoints, keep=spec.logging.keep_checkpoints, progress=progress,
                            ledgers=[context.logger.ledger() for context in trainee.contexts])
        if stop and after < budget:
            raise Interrupted()


def _report(report: Report, group: list[int], progress: Progress, trainee: Trainee) -> None:
    for trial, done, context in zip(group, progress.per_trial(), trainee.contexts):
        report(trial, done, context.logger.running())


def _note_resume(folder: RunFolder, group: list[int], checkpoint: Checkpoint, agent: Agent) -> None:
    """Append to each trial's ``resumes.jsonl`` which checkpoint it continued from."""
    for trial, steps in zip(group, checkpoint.steps):
        line = {"checkpoint": checkpoint.path.name, "steps": steps, "at": now(), "exact": bool(agent.exact_resume)}
        with (folder.trial_dir(trial) / RESUMES).open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(line) + "\n")


def resumed_from(trial_dir: Path) -> list[str]:
    """The checkpoints each resume of a trial continued from, by name (readable lines only)."""
    path = trial_dir / RESUMES
    if not path.exists():
        return []
    names = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            names.append(str(json.loads(line)["checkpoint"]))
        except (ValueError, KeyError, TypeError):
            continue
    return names


def _evaluate(agent: Agent, spec: SpecBase, seeds: list[int], batched: bool) -> list[list[float]] | None:
    if not spec.budget.eval_episodes:
        return None
    returns = agent.evaluate(spec.budget.eval_episodes, seed=seeds[0] + 1)
    return returns if batched else [returns]


def _next_multiple(value: int, step: int) -> int:
    return (value // step + 1) * step
