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
from .metrics import MetricLogger
from .registry import Registry, get_registry
from .seeding import load_rng_state, save_rng_state, seed_everything
from .spec import SpecBase, parse_spec
from .store import (
    RunFolder, atomic_write_json, create_run_folder, iter_checkpoints, now, read_json,
)
from .yamlio import load_file

RESOLVED_SPEC = "spec.yaml"
SOURCE_SPEC = "spec.source.yaml"
RESULT = "result.json"
COMPLETE = "COMPLETE"


class Interrupted(Exception):
    """A trial stopped at a checkpoint because the user asked it to."""


@dataclass
class Built:
    """An agent and what it was built from, for one trial."""

    agent: Agent
    logger: MetricLogger


# -- creating a run --------------------------------------------------------------------------

def prepare_run(spec_path: Path, registry: Registry, runs_dir: Path, run_dir: Path | None = None) -> RunFolder:
    """Validate the spec and its objects, then create the run folder (nothing is written on error)."""
    document = load_file(spec_path)
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
        "steps": spec.budget.steps,
        "seeds": spec.trial_seeds(),
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
    """Build the env and agent of trial 0 once, so that errors surface before a run folder exists."""
    with tempfile.TemporaryDirectory(prefix="zoo-preflight-") as scratch:
        try:
            built = build_trial(spec, registry, seed=spec.trial_seeds()[0], trial=0, directory=Path(scratch), tensorboard=False)
        except ZooError:
            raise
        except Exception as exc:
            raise ZooError(
                f"the spec is valid but its env or agent could not be built: {type(exc).__name__}: {exc}"
            ) from exc
        built.agent.close()
        built.logger.close()


def load_run_spec(folder: RunFolder, registry: Registry) -> SpecBase:
    """The resolved spec of a run folder, validated against the installed plugins."""
    path = folder.path / RESOLVED_SPEC
    return parse_spec(load_file(path), registry)


# -- one trial -------------------------------------------------------------------------------

def build_trial(
    spec: SpecBase, registry: Registry, *, seed: int, trial: int, directory: Path,
    tensorboard: bool, resume_step: int | None = None,
) -> Built:
    """Make the logger, meta-controller and agent of one trial."""
    env_entry = registry.get("env", spec.env.type)
    agent_entry = registry.get("agent", spec.agent.type)
    meta_controller = None
    if spec.meta_controller is not None:
        meta_entry = registry.get("meta_controller", spec.meta_controller.type)
        meta_controller = lambda space, rng: meta_entry.factory(spec.meta_controller, space, rng)  # noqa: E731
    logger = MetricLogger(directory, tensorboard=tensorboard, resume_step=resume_step)
    context = TrialContext(
        seed=seed,
        trial=trial,
        directory=directory,
        env_params=spec.env,
        make_env=lambda env_seed: env_entry.factory(spec.env, env_seed),
        logger=logger,
        meta_controller=meta_controller,
        torch_threads=spec.backend.torch_threads,
        budget_steps=spec.budget.steps,
    )
    try:
        agent = agent_entry.factory(spec.agent, context)
    except BaseException:
        logger.close()
        raise
    return Built(agent, logger)


def run_trial(
    run_path: Path, trial: int, *, registry: Registry | None = None,
    should_stop: Callable[[], bool] = lambda: False, report: Callable[[int, int], None] = lambda t, s: None,
) -> dict[str, Any]:
    """Train trial `trial` of a run to its budget, resuming from its last checkpoint if any."""
    registry = registry or get_registry()
    folder = RunFolder(Path(run_path))
    spec = load_run_spec(folder, registry)
    seed = folder.manifest()["seeds"][trial]
    directory = folder.trial_dir(trial)
    if (directory / RESULT).exists():
        result = read_json(directory / RESULT)
        report(trial, result["steps"])
        return result
    directory.mkdir(parents=True, exist_ok=True)

    import torch

    torch.set_num_threads(spec.backend.torch_threads)
    checkpoints = directory / "checkpoints"
    latest = list(iter_checkpoints(checkpoints))[-1:] or None
    resume_step = latest[0][0] if latest else None
    seed_everything(seed)
    built = build_trial(spec, registry, seed=seed, trial=trial, directory=directory,
                        tensorboard=spec.logging.tensorboard, resume_step=resume_step)
    agent, logger = built.agent, built.logger
    started, cpu_started = time.time(), time.process_time()
    try:
        if latest:
            agent.load(latest[0][1] / "agent")
            load_rng_state(latest[0][1])
        report(trial, agent.steps)
        budget = spec.budget.steps
        interval = spec.budget.checkpoint_interval
        grain = max(1, min(budget // 100, 10_000))
        while agent.steps < budget:
            steps = agent.steps
            target = min(budget, _next_multiple(steps, grain), _next_multiple(steps, interval))
            agent.learn(target - steps)
            if agent.steps <= steps:
                raise ZooError(f"agent '{spec.agent.type}' made no progress in learn(); its step counter stayed at {steps}")
            logger.flush()
            report(trial, agent.steps)
            crossed = agent.steps // interval > steps // interval or agent.steps >= budget
            stop = should_stop()
            if crossed or stop:
                save_checkpoint(agent, checkpoints, keep=spec.logging.keep_checkpoints)
            if stop and agent.steps < budget:
                raise Interrupted()
        result = {
            "trial": trial, "seed": seed, "steps": agent.steps,
            "wall_seconds": round(time.time() - started, 3),
            "cpu_seconds": round(time.process_time() - cpu_started, 3),
        }
        if spec.budget.eval_episodes:
            returns = agent.evaluate(spec.budget.eval_episodes, seed=seed + 1)
            result["eval_returns"] = [float(r) for r in returns]
            result["eval_mean"] = float(sum(returns) / len(returns))
        atomic_write_json(directory / RESULT, result)
        return result
    finally:
        agent.close()
        logger.close()


def _next_multiple(value: int, unit: int) -> int:
    return (value // unit + 1) * unit


def save_checkpoint(agent: Agent, root: Path, *, keep: int) -> Path:
    """Write a checkpoint aside, mark it complete, rename it into place, and prune old ones."""
    root.mkdir(parents=True, exist_ok=True)
    final = root / f"step-{agent.steps:012d}"
    staging = Path(tempfile.mkdtemp(dir=root, prefix=".step-", suffix=".tmp"))
    try:
        (staging / "agent").mkdir()
        agent.save(staging / "agent")
        save_rng_state(staging)
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
    trials = list(range(spec.trials))
    stop = _StopFlag()
    bar = _ProgressBar(enabled=progress and spec.logging.progress, trials=len(trials), steps=spec.budget.steps)
    status, error = "finished", None
    try:
        with stop.installed(), bar:
            if spec.backend.workers == 1 or len(trials) == 1:
                for trial in trials:
                    run_trial(folder.path, trial, registry=registry, should_stop=stop.is_set, report=bar.update)
            else:
                _run_parallel(folder, trials, spec.backend.workers, stop, bar)
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


def _run_parallel(folder: RunFolder, trials: list[int], workers: int, stop: "_StopFlag", bar: "_ProgressBar") -> None:
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    event, queue = context.Event(), context.Queue()
    stop.also(event)
    with ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_worker_init,
                             initargs=(event, queue)) as pool:
        pending = {pool.submit(_worker_trial, str(folder.path), trial) for trial in trials}
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


def _worker_trial(run_path: str, trial: int) -> str:
    try:
        run_trial(Path(run_path), trial, should_stop=_worker_event.is_set,
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
    """A rich progress bar over the steps of all trials (on stderr)."""

    def __init__(self, *, enabled: bool, trials: int, steps: int):
        self.enabled = enabled
        self.total = trials * steps
        self.per_trial: dict[int, int] = {}
        self._progress = None

    def __enter__(self):
        if self.enabled:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

            self._progress = Progress(
                TextColumn("[bold]training"), BarColumn(), MofNCompleteColumn(), TextColumn("steps"),
                TimeElapsedColumn(), TimeRemainingColumn(), console=Console(stderr=True), transient=False,
            )
            self._progress.__enter__()
            self._task = self._progress.add_task("train", total=self.total)
        return self

    def update(self, trial: int, steps: int) -> None:
        self.per_trial[trial] = steps
        if self._progress is not None:
            self._progress.update(self._task, completed=min(self.total, sum(self.per_trial.values())))

    def __exit__(self, *exc):
        if self._progress is not None:
            self._progress.__exit__(*exc)
