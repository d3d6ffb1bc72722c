"""From a spec to finished trials: run folders, the training loop, checkpoints and resume."""

from __future__ import annotations

import os
import platform
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
import traceback
from concurrent.futures import ProcessPoolExecutor, wait, FIRST_COMPLETED
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Callable

import yaml

from . import __version__
from .agent import Agent, TrialContext
from .errors import RunFailed, ZooError
from .evaluation import evaluate_and_keep_best
from .metrics import MetricLogger
from .overrides import Overrides
from .registry import Registry, get_registry
from .seeding import load_rng_state, save_rng_state, seed_everything
from .spec import SpecBase, parse_spec
from .store import (
    RunFolder, atomic_write_json, create_run_folder, iter_checkpoints, make_temp_dir, now, read_json,
)
from .yamlio import load_file

RESOLVED_SPEC = "spec.yaml"
SOURCE_SPEC = "spec.source.yaml"
RESULT = "result.json"
COMPLETE = "COMPLETE"
PROGRESS = "progress.json"


class Interrupted(Exception):
    """A trial stopped at a checkpoint because the user asked it to."""


@dataclass
class Built:
    """An agent and what it was built from, for one trial."""

    agent: Agent
    logger: MetricLogger


# -- creating a run --------------------------------------------------------------------------

def prepare_run(
    spec_path: Path, registry: Registry, runs_dir: Path, run_dir: Path | None = None, overrides: Overrides | None = None,
) -> RunFolder:
    """Validate the spec (with command-line overrides) and its objects, then create the run folder (nothing is written on error)."""
    overrides = overrides or Overrides()
    document = overrides.apply(load_file(spec_path))
    spec = parse_spec(document, registry)
    preflight(spec, registry)
    name = spec.name or Path(spec_path).stem
    target = Path(run_dir) if run_dir else Path(runs_dir) / f"{name}-{datetime.now():%Y%m%d-%H%M%S}"
    if run_dir is None and target.exists():
        target = target.with_name(target.name + f"-{os.getpid()}")
    files = {
        RESOLVED_SPEC: yaml.safe_dump(spec.model_dump(mode="json"), sort_keys=False),
        SOURCE_SPEC: Path(spec_path).read_text(encoding="utf-8"),
    }
    manifest = {
        "id": target.name,
        "name": name,
        "env": spec.env.type,
        "agent": spec.agent.type,
        "meta_controller": spec.meta_controller.type if spec.meta_controller else None,
        "trials": spec.trials,
        "steps": spec.budget.amount,
        "unit": spec.budget.unit,
        "seeds": spec.trial_seeds(),
        "overrides": overrides.as_list(),
        "status": "created",
        "created": now(),
        "zoo_version": __version__,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "plugins": plugin_manifest(registry),
        "entries": {
            block: registry.get(kind, getattr(spec, block).type).plugin
            for block, kind in (("env", "env"), ("agent", "agent"), ("meta_controller", "meta_controller"))
            if getattr(spec, block) is not None
        },
    }
    return create_run_folder(target, files, manifest)


def plugin_manifest(registry: Registry) -> dict[str, Any]:
    return {
        name: {"version": info.version, "distribution": info.distribution, "hooks": list(info.hooks)}
        for name, info in sorted(registry.plugins.items())
    }


def preflight(spec: SpecBase, registry: Registry) -> None:
    """Build the env and agent of the first trial(s) once, so that errors surface before a run folder exists."""
    entry = registry.get("agent", spec.agent.type)
    with tempfile.TemporaryDirectory(prefix="zoo-preflight-") as scratch:
        contexts = [_context(spec, registry, seed, trial, Path(scratch) / str(trial), False, None)
                    for trial, seed in list(enumerate(spec.trial_seeds()))[: 2 if entry.batched_trials else 1]]
        try:
            agent = entry.factory(spec.agent, contexts if entry.batched_trials else contexts[0])
        except ZooError:
            raise
        except Exception as exc:
            raise ZooError(
                f"the spec is valid but its env or agent could not be built: {type(exc).__name__}: {exc}"
            ) from exc
        finally:
            for context in contexts:
                context.logger.close()
        agent.close()
        if spec.budget.unit == "episodes" and not type(agent).counts_episodes():
            raise ZooError(f"agent '{spec.agent.type}' takes budgets in steps only; give budget.steps")


def load_run_spec(folder: RunFolder, registry: Registry) -> SpecBase:
    """The resolved spec of a run folder, validated against the installed plugins."""
    path = folder.path / RESOLVED_SPEC
    return parse_spec(load_file(path), registry)


# -- trials ----------------------------------------------------------------------------------

def build_trial(
    spec: SpecBase, registry: Registry, *, seed: int, trial: int, directory: Path,
    tensorboard: bool, resume_step: int | None = None,
) -> Built:
    """Make the logger, meta-controller and agent of one trial (an agent that trains batches of trials gets a batch of one)."""
    context = _context(spec, registry, seed, trial, directory, tensorboard, resume_step)
    entry = registry.get("agent", spec.agent.type)
    try:
        agent = entry.factory(spec.agent, [context] if entry.batched_trials else context)
    except BaseException:
        context.logger.close()
        raise
    return Built(agent, context.logger)


def _context(spec, registry, seed, trial, directory, tensorboard, resume_step) -> TrialContext:
    env_entry = registry.get("env", spec.env.type)
    meta_controller = None
    if spec.meta_controller is not None:
        meta_entry = registry.get("meta_controller", spec.meta_controller.type)
        meta_controller = lambda space, rng: meta_entry.factory(spec.meta_controller, space, rng)  # noqa: E731
    return TrialContext(
        seed=seed, trial=trial, directory=directory, env_params=spec.env,
        make_env=lambda env_seed: env_entry.factory(spec.env, env_seed),
        logger=MetricLogger(directory, tensorboard=tensorboard, resume_step=resume_step),
        budget=spec.budget, meta_controller=meta_controller, torch_threads=spec.backend.torch_threads,
        make_vector_env=(lambda n, env_seed: env_entry.vector_factory(spec.env, n, env_seed))
        if env_entry.vector_factory is not None else None,
    )


def trial_units(spec: SpecBase, registry: Registry) -> list[list[int]]:
    """How trials are grouped: one trial per unit, or for a batched agent one batch per worker."""
    trials = list(range(spec.trials))
    if not registry.get("agent", spec.agent.type).batched_trials:
        return [[t] for t in trials]
    workers = min(spec.backend.workers, len(trials))
    size = -(-len(trials) // workers)
    return [trials[i:i + size] for i in range(0, len(trials), size)]


def unit_dir(folder: RunFolder, unit: list[int], batched: bool) -> Path:
    """Where a unit keeps its checkpoints: the trial's folder, or a batch folder."""
    if not batched:
        return folder.trial_dir(unit[0])
    return folder.path / "batches" / f"{unit[0]:03d}-{unit[-1]:03d}"


def run_unit(
    run_path: Path, unit: list[int], *, registry: Registry | None = None,
    should_stop: Callable[[], bool] = lambda: False, report: Callable[[int, int], None] = lambda t, s: None,
) -> list[dict[str, Any]]:
    """Train the trials of `unit` to the budget, resuming from the unit's last checkpoint if any."""
    registry = registry or get_registry()
    folder = RunFolder(Path(run_path))
    spec = load_run_spec(folder, registry)
    entry = registry.get("agent", spec.agent.type)
    seeds = [folder.manifest()["seeds"][t] for t in unit]
    home = unit_dir(folder, unit, entry.batched_trials)
    if all((folder.trial_dir(t) / RESULT).exists() for t in unit):
        results = [read_json(folder.trial_dir(t) / RESULT) for t in unit]
        for result in results:
            report(result["trial"], result["progress"])
        return results

    import torch

    torch.set_num_threads(spec.backend.torch_threads)
    checkpoints = home / "checkpoints"
    for torn in checkpoints.glob(".ckpt-*.tmp"):  # left by a process killed while checkpointing
        shutil.rmtree(torn, ignore_errors=True)
    latest = list(iter_checkpoints(checkpoints))[-1:]
    resume_steps = read_json(latest[0][1] / PROGRESS)["steps"] if latest else [None] * len(unit)
    seed_everything(seeds[0])
    contexts = []
    try:
        for trial, seed, resume in zip(unit, seeds, resume_steps):
            contexts.append(_context(spec, registry, seed, trial, folder.trial_dir(trial), spec.logging.tensorboard, resume))
        agent = entry.factory(spec.agent, contexts if entry.batched_trials else contexts[0])
    except BaseException:
        for context in contexts:
            context.logger.close()
        raise
    progress = _Progress(agent, spec.budget.unit, entry.batched_trials)
    started, cpu_started = time.time(), time.process_time()
    try:
        if latest:
            agent.load(latest[0][1] / "agent")
            load_rng_state(latest[0][1])
        for trial, done in zip(unit, progress.per_trial()):
            report(trial, done)
        budget, interval = spec.budget.amount, spec.budget.checkpoint_interval
        grain = max(1, min(budget // 100, 10_000))
        while progress.least() < budget:
            before = progress.least()
            target = min(budget, _next_multiple(before, grain), _next_multiple(before, interval))
            progress.learn(target - before)
            after = progress.least()
            if after <= before:
                raise ZooError(f"agent '{spec.agent.type}' made no progress in learn(); its {spec.budget.unit} stayed at {before}")
            for context in contexts:
                context.logger.flush()
            for trial, done in zip(unit, progress.per_trial()):
                report(trial, done)
            stop = should_stop()
            every = spec.budget.eval_every
            if every and (after // every > before // every or after >= budget):
                evaluate_and_keep_best(agent, _evaluate(agent, spec, seeds, entry.batched_trials), contexts, home, progress)
            if after // interval > before // interval or after >= budget or stop:
                save_checkpoint(agent, checkpoints, keep=spec.logging.keep_checkpoints, progress=progress)
            if stop and after < budget:
                raise Interrupted()
        results = []
        elapsed, cpu = round(time.time() - started, 3), round(time.process_time() - cpu_started, 3)
        evaluations = _evaluate(agent, spec, seeds, entry.batched_trials)
        for index, (trial, seed) in enumerate(zip(unit, seeds)):
            result = {"trial": trial, "seed": seed, "unit": spec.budget.unit, "progress": progress.per_trial()[index],
                      "steps": progress.steps()[index], "wall_seconds": elapsed, "cpu_seconds": cpu}
            if evaluations is not None:
                returns = [float(r) for r in evaluations[index]]
                result.update(eval_returns=returns, eval_mean=float(sum(returns) / len(returns)))
            atomic_write_json(folder.trial_dir(trial) / RESULT, result)
            results.append(result)
        return results
    finally:
        agent.close()
        for context in contexts:
            context.logger.close()


def _evaluate(agent, spec: SpecBase, seeds: list[int], batched: bool) -> list[list[float]] | None:
    if not spec.budget.eval_episodes:
        return None
    if batched:
        return agent.evaluate(spec.budget.eval_episodes, seed=seeds[0] + 1)
    return [agent.evaluate(spec.budget.eval_episodes, seed=seeds[0] + 1)]


class _Progress:
    """An agent's progress in the budget's unit, per trial; a batch moves as fast as its slowest trial."""

    def __init__(self, agent: Agent, unit: str, batched: bool):
        self.agent, self.unit, self.batched = agent, unit, batched

    def _listed(self, value) -> list[int]:
        return [int(v) for v in value] if self.batched else [int(value)]

    def steps(self) -> list[int]:
        return self._listed(self.agent.steps)

    def per_trial(self) -> list[int]:
        return self.steps() if self.unit == "steps" else self._listed(self.agent.episodes)

    def least(self) -> int:
        return min(self.per_trial())

    def learn(self, amount: int) -> None:
        if self.unit == "steps":
            self.agent.learn(amount)
        else:
            self.agent.learn_episodes(amount)


def _next_multiple(value: int, unit: int) -> int:
    return (value // unit + 1) * unit


def save_checkpoint(agent: Agent, root: Path, *, keep: int, progress: "_Progress | None" = None) -> Path:
    """Write a checkpoint aside, mark it complete, rename it into place, and prune old ones."""
    progress = progress or _Progress(agent, "steps", batched=False)
    root.mkdir(parents=True, exist_ok=True)
    final = root / f"{progress.unit[:-1]}-{progress.least():012d}"
    staging = make_temp_dir(root, prefix=".ckpt-")
    try:
        (staging / "agent").mkdir()
        agent.save(staging / "agent")
        save_rng_state(staging)
        atomic_write_json(staging / PROGRESS, {"steps": progress.steps(), "done": progress.per_trial()})
        (staging / COMPLETE).write_text(now())
        if final.exists():
            shutil.rmtree(final)
        os.rename(staging, final)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    for _, old in list(iter_checkpoints(root))[:-keep]:
        shutil.rmtree(old, ignore_errors=True)
    return final


# -- a whole run -----------------------------------------------------------------------------

def execute_run(folder: RunFolder, registry: Registry, *, progress: bool = True) -> str:
    """Run (or finish) every trial of a run; returns the final status."""
    spec = load_run_spec(folder, registry)
    _claim(folder)
    units = trial_units(spec, registry)
    stop = _StopFlag()
    bar = _ProgressBar(enabled=progress and spec.logging.progress, label=folder.path.name, trials=spec.trials,
                       amount=spec.budget.amount, unit=spec.budget.unit)
    status, error = "finished", None
    try:
        with stop.installed(), bar:
            if spec.backend.workers == 1 or len(units) == 1:
                for unit in units:
                    run_unit(folder.path, unit, registry=registry, should_stop=stop.is_set, report=bar.update)
            else:
                _run_parallel(folder, units, spec.backend.workers, stop, bar)
    except Interrupted:
        status = "interrupted"
    except KeyboardInterrupt:
        status = "interrupted"
    except ZooError as exc:
        status, error = "failed", str(exc)
    except Exception as exc:
        status, error = "failed", f"{type(exc).__name__}: {exc}"
        folder.update(status=status, error=error, pid=None, traceback=traceback.format_exc())
        raise
    folder.update(status=status, error=error, pid=None)
    if error:
        raise RunFailed(f"run {folder.path} failed: {error}")
    return status


def _claim(folder: RunFolder) -> None:
    manifest = folder.manifest()
    pid, host = manifest.get("pid"), manifest.get("host")
    if manifest.get("status") == "running" and pid and host == socket.gethostname() and _alive(pid) and pid != os.getpid():
        raise ZooError(f"{folder.path}: run is being trained by process {pid}; stop it first")
    folder.update(status="running", pid=os.getpid(), host=socket.gethostname())


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _run_parallel(folder: RunFolder, units: list[list[int]], workers: int, stop: "_StopFlag", bar: "_ProgressBar") -> None:
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    event, queue = context.Event(), context.Queue()
    stop.also(event)
    with ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_worker_init,
                             initargs=(event, queue)) as pool:
        pending = {pool.submit(_worker_unit, str(folder.path), unit) for unit in units}
        interrupted = False
        while pending:
            done, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
            while not queue.empty():
                bar.update(*queue.get_nowait())
            for future in done:
                outcome = future.result()
                if outcome == "interrupted":
                    interrupted = True
        if interrupted:
            raise Interrupted()


_worker_event = None
_worker_queue = None


def _worker_init(event, queue) -> None:
    global _worker_event, _worker_queue
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides; workers stop at a checkpoint
    _worker_event, _worker_queue = event, queue
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), daemon=True).start()


def _exit_with_parent(parent: int) -> None:
    """End this worker when the parent is gone (killed), so no orphan races a later resume."""
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


def _worker_unit(run_path: str, unit: list[int]) -> str:
    try:
        run_unit(Path(run_path), unit, should_stop=_worker_event.is_set,
                 report=lambda t, s: _worker_queue.put((t, s)))
    except Interrupted:
        return "interrupted"
    return "finished"


class _StopFlag:
    """Set by the first Ctrl-C (trials stop at their next checkpoint); a second one aborts."""

    def __init__(self):
        self._event = threading.Event()
        self._others: list[Any] = []

    def is_set(self) -> bool:
        return self._event.is_set()

    def also(self, event: Any) -> None:
        self._others.append(event)

    def _handle(self, signum, frame) -> None:
        if self._event.is_set():
            raise KeyboardInterrupt
        self._event.set()
        for other in self._others:
            other.set()
        print("\nstopping at the next checkpoint (Ctrl-C again to abort; the last checkpoint stays)", file=sys.stderr)

    def installed(self):
        flag = self

        class _Installed:
            def __enter__(self):
                self.previous = {}
                if threading.current_thread() is threading.main_thread():
                    for sig in (signal.SIGINT, signal.SIGTERM):
                        self.previous[sig] = signal.signal(sig, flag._handle)

            def __exit__(self, *exc):
                for sig, handler in self.previous.items():
                    signal.signal(sig, handler)

        return _Installed()


class _ProgressBar:
    """A rich progress bar over the budget of all trials (on stderr)."""

    def __init__(self, *, enabled: bool, label: str, trials: int, amount: int, unit: str):
        self.enabled, self.label = enabled, label
        self.unit = unit
        self.total = trials * amount
        self.per_trial: dict[int, int] = {}
        self._progress = None

    def __enter__(self):
        if self.enabled:
            import rich.markup
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

            self._progress = Progress(
                TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn(self.unit),
                TimeElapsedColumn(), TimeRemainingColumn(), console=Console(stderr=True), transient=False,
            )
            self._progress.__enter__()
            self._task = self._progress.add_task(rich.markup.escape(self.label), total=self.total)
        return self

    def update(self, trial: int, steps: int) -> None:
        self.per_trial[trial] = steps
        if self._progress is not None:
            self._progress.update(self._task, completed=min(self.total, sum(self.per_trial.values())))

    def __exit__(self, *exc):
        if self._progress is not None:
            self._progress.__exit__(*exc)
