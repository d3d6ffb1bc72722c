"""Trained agents out of run folders: ``zoo.load_agent``."""

from __future__ import annotations

import shutil
import tempfile
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .agent import Agent
from .errors import ZooError
from .evaluation import CHECKPOINTS, checkpoint_home
from .registry import Registry, get_registry
from .store import RunFolder, default_runs_dir, find_run, iter_checkpoints


def load_agent(run: str | Path, trial: int = 0, checkpoint: str = "last", *, registry: Registry | None = None,
               runs_dir: Path | None = None, wrap_env: Callable[[Any], Any] | None = None) -> Agent:
    """The agent of `trial` of `run` (a run folder or a run id) with the weights of a checkpoint.

    The agent is rebuilt from the run's resolved spec, as ``zoo resume`` does, then loads the
    checkpoint, or with ``checkpoint="best"`` the one of its best periodic evaluation (``budget.eval_every``);
    ``agent.evaluate(episodes, seed)`` plays it. `wrap_env` wraps every env the agent builds.
    """
    from .trials import build_trial, group_dir, load_run_spec

    registry = registry or get_registry()
    folder = RunFolder(find_run(str(run), Path(runs_dir) if runs_dir else default_runs_dir()))
    spec = load_run_spec(folder, registry)
    if not 0 <= trial < spec.trials:
        raise ZooError(f"{folder.path}: no trial {trial}; the run has trials 0 to {spec.trials - 1}")
    if checkpoint not in CHECKPOINTS:
        raise ZooError(f"checkpoint '{checkpoint}': valid: {', '.join(CHECKPOINTS)}")
    if registry.get("agent", spec.agent.type).batched_trials:
        raise ZooError(f"agent '{spec.agent.type}' trains its trials in batches; load_agent takes agents of one trial")
    home, hint = checkpoint_home(group_dir(folder, [trial], False), checkpoint)
    found = list(iter_checkpoints(home))
    if not found:
        raise ZooError(f"{folder.path}: trial {trial} has no {checkpoint} checkpoint yet{hint}")
    scratch = Path(tempfile.mkdtemp(prefix="zoo-agent-"))  # the rebuilt agent's logs go here, not into the run
    built = build_trial(spec, registry, seed=folder.manifest(require=("seeds",))["seeds"][trial], trial=trial,
                        directory=scratch, wrap_env=wrap_env)
    weakref.finalize(built.agent, _discard, built.logger, scratch)
    built.agent.load(found[-1][1] / "agent")
    return built.agent


def _discard(logger, scratch: Path) -> None:
    logger.close()
    shutil.rmtree(scratch, ignore_errors=True)
