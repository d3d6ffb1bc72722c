"""From a spec to a run: run folders, preflight, and training or resuming every trial of a run.

The parts live beside this module: `zoo.trials` (building agents, the budget loop, resuming),
`zoo.checkpoints`, `zoo.workers` (where trial groups are trained) and `zoo.console` (progress
bar and stop signals).
"""

from __future__ import annotations

import hashlib
import logging
import os
import platform
import socket
import sys
import tempfile
import traceback
from datetime import datetime
from pathlib import Path
from typing import Any

import yaml

from . import __version__
from .build_errors import blame_context, build_error
from .console import ProgressBar, StopFlag
from .culprits import PluginFailed
from .errors import RunFailed, ZooError
from .integrity import account_for_rows
from .overrides import Overrides
from .registry import Registry
from .spec import PLUGIN_BLOCKS, SpecBase, parse_spec, run_name
from .store import RunFolder, create_run_folder, now
from .tracking import TENSORBOARD, require_libraries
from .trials import RESOLVED_SPEC, Interrupted, build_agent, load_run_spec, resumed_from, trial_context, trial_groups
from .workers import Backend, WorkerFailed
from .yamlio import load_file

SOURCE_SPEC = "spec.source.yaml"

# -- creating a run --------------------------------------------------------------------------

def prepare_run(
    spec_path: Path, registry: Registry, runs_dir: Path, run_dir: Path | None = None, overrides: Overrides | None = None,
) -> RunFolder:
    """Validate the spec (with command-line overrides) and its objects, then create the run folder (nothing is
    written on error).

    Without `run_dir` the folder is ``RUNS/NAME-YYYYMMDD-HHMMSS``, with a suffix when that name is
    taken (concurrent launches of one spec each get their own run).
    """
    overrides = overrides or Overrides()
    document = overrides.apply(load_file(spec_path))
    spec = parse_spec(document, registry)
    name = run_name(spec, spec_path)
    exact_resume = preflight(spec, registry)
    check = registry.get("backend", spec.backend.type).check
    if check is not None:  # an unreachable backend is refused before the run folder exists
        check(spec.backend)
    target = Path(run_dir) if run_dir else Path(runs_dir) / f"{name}-{datetime.now():%Y%m%d-%H%M%S}"
    resolved = yaml.safe_dump(spec.model_dump(mode="json"), sort_keys=False)
    files = {RESOLVED_SPEC: resolved, SOURCE_SPEC: document.text}
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
        "spec_sha256": spec_hash(resolved),
        "exact_resume": exact_resume,
        "zoo_version": __version__,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "plugins": plugin_manifest(registry),
        "entries": {block: registry.get(kind, getattr(spec, block).type).plugin
                    for block, kind in PLUGIN_BLOCKS.items() if getattr(spec, block) is not None},
    }
    return create_run_folder(target, files, manifest, unique=run_dir is None)


def spec_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def plugin_manifest(registry: Registry) -> dict[str, Any]:
    return {
        name: {"version": info.version, "distribution": info.distribution, "hooks": list(info.hooks)}
        for name, info in sorted(registry.plugins.items())
    }


def preflight(spec: SpecBase, registry: Registry) -> bool:
    """Build the env, meta-controller and agent of the first trial(s) once, so that errors surface before a
    run folder exists; an error names the block that failed and its plugin.

    Returns whether the agent resumes exactly (its ``exact_resume``).
    """
    entry = registry.get("agent", spec.agent.type)
    for name in spec.logging.trackers:
        require_libraries(registry.get("tracker", name))
    if spec.logging.tensorboard and TENSORBOARD not in registry.entries["tracker"]:
        logging.getLogger("zoo").warning("no TensorBoard events: the tracker 'tensorboard' (plugin 'tracking') is not "
                                         "loaded; set logging.tensorboard: false to say so")
    with tempfile.TemporaryDirectory(prefix="zoo-preflight-") as scratch:
        seeds = list(enumerate(spec.trial_seeds()))[: 2 if entry.batched_trials else 1]
        contexts = [blame_context(trial_context(spec, registry, seed=seed, trial=trial,
                                                directory=Path(scratch) / str(trial)), spec, registry)
                    for trial, seed in seeds]
        try:
            trainee = build_agent(spec, registry, contexts)
        except ZooError:
            raise
        except Exception as exc:
            raise build_error(exc, entry) from exc
        trainee.close()
    if spec.budget.unit == "episodes" and not type(trainee.agent).counts_episodes():
        raise ZooError(f"agent '{spec.agent.type}' takes budgets in steps only; give budget.steps")
    return bool(trainee.agent.exact_resume)


# -- a whole run -----------------------------------------------------------------------------

def backend_for(spec: SpecBase, registry: Registry) -> Backend:
    """The backend of the spec's ``backend.type``, built by its entry's factory."""
    entry = registry.get("backend", spec.backend.type)
    return entry.factory(spec.backend, registry, registry.get("agent", spec.agent.type).batched_trials)


def execute_run(folder: RunFolder, registry: Registry, *, progress: bool = True, force: bool = False,
                accept_lost_rows: bool = False) -> str:
    """Run (or finish) every trial of a run; returns the final status.

    The run is claimed for the whole call (a second trainer of the same run is refused; `force`
    also takes over a claim recorded by another host). Metrics rows that a checkpoint recorded and
    that are gone are refused before anything is trained, unless `accept_lost_rows` (`zoo.integrity`).
    A first SIGINT or SIGTERM stops every trial at its next checkpoint (status ``interrupted``, and
    ``stopped_by`` names the signal).
    """
    with folder.claim(force=force):
        check_spec_unchanged(folder)
        account_for_rows(folder, accept=accept_lost_rows)
        spec = load_run_spec(folder, registry)
        groups = trial_groups(spec, registry)
        folder.update(status="running", pid=os.getpid(), host=socket.gethostname(), stopped_by=None)
        stop = StopFlag()
        bar = ProgressBar(enabled=progress and spec.logging.progress, label=folder.path.name, trials=spec.trials,
                          amount=spec.budget.amount, unit=spec.budget.unit)
        status, error, details, cause = "finished", None, None, None
        try:
            with stop.installed(), bar:
                backend_for(spec, registry).train(folder.path, groups, stop, bar.update)
        except (Interrupted, KeyboardInterrupt):
            status = "interrupted"
        except WorkerFailed as exc:
            status, error, details = "failed", str(exc), exc.details
        except ZooError as exc:
            status, error = "failed", str(exc)
            if isinstance(exc, PluginFailed):  # a plugin's own error: its traceback for run.json and --debug
                details, cause = "".join(traceback.format_exception(exc)), exc
        except Exception as exc:
            status, error = "failed", f"{type(exc).__name__}: {exc}"
            folder.update(status=status, error=error, pid=None, traceback=traceback.format_exc(),
                          resumed=_resumes(folder, spec))
            raise
        fields = {"traceback": details} if details else {}
        folder.update(status=status, error=error, pid=None, stopped_by=stop.signal_name if status == "interrupted" else None,
                      resumed=_resumes(folder, spec), **fields)
    if error:
        raise RunFailed(f"run {folder.path} failed: {error}") from cause
    return status


def _resumes(folder: RunFolder, spec: SpecBase) -> dict[str, list[str]]:
    """For each trial that was resumed, the checkpoints it continued from."""
    found = {str(trial): resumed_from(folder.trial_dir(trial)) for trial in range(spec.trials)}
    return {trial: steps for trial, steps in found.items() if steps}


def check_spec_unchanged(folder: RunFolder) -> None:
    """Refuse a run whose resolved spec was edited after it was created (runs made before hashes are let through)."""
    recorded = folder.manifest().get("spec_sha256")
    if recorded is None:
        return
    path = folder.path / RESOLVED_SPEC
    try:
        current = spec_hash(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ZooError(f"{path}: cannot read the run's spec ({exc})") from None
    if current != recorded:
        raise ZooError(f"{path} was edited after the run was created (its SHA-256 no longer matches run.json's "
                       "spec_sha256); its checkpoints belong to the original spec: restore it, or train a new run")
