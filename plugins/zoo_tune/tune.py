"""``zoo tune``: hyperparameter search with Optuna, every trial an ordinary run.

A tuning file names a run spec and the values to search::

    spec: cartpole-ppo.yaml          # relative to this file
    name: cartpole-ppo-tune           # default: the file's stem
    n_trials: 20
    sampler: {type: tpe, seed: 0}
    pruner: {type: median, n_startup_trials: 5}
    space:
      agent.learning_rate: {type: float, low: 1.0e-5, high: 1.0e-2, log: true}
      agent.n_steps: {type: categorical, choices: [64, 128, 256]}

``search_space`` names a search space a plugin registers (``search_space: ppo``: rl-baselines3-zoo's
space for SB3's PPO; ``zoo list search_space``), to which ``space`` adds or replaces distributions. A
categorical choice may be a list or a mapping (``agent.policy_kwargs.net_arch``), which Optuna records
by its JSON text.

Each Optuna trial is a run of the spec with the sampled values as ``--set`` overrides, in the runs
folder and its index (``NAME.tNNN-TIME``). While it trains, the mean return of its last ten
training episodes (of the run's first trial, when the spec has several) is reported after each
chunk of the budget, so a pruner can stop it early (the run is left interrupted). The objective is the evaluation return (``budget.eval_episodes``) or,
without evaluation, the final training return, averaged over the spec's trials. The Optuna study
lives in ``NAME.tune/optuna.sqlite`` (Optuna's RDB storage): calling ``zoo tune`` again runs the
trials still missing. The best trial's resolved spec is written to ``NAME.tune/best.yaml``.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from zoo import (
    Interrupted,
    Overrides,
    Registry,
    RunFolder,
    SpecError,
    StopFlag,
    ZooError,
    atomic_write_json,
    atomic_write_text,
    backend_for,
    final_returns,
    load_file,
    load_run_spec,
    parse_spec,
    preflight,
    prepare_run,
    read_json,
    read_metrics,
    trial_groups,
)

RECENT_EPISODES = 10  # the intermediate value a pruner sees: the mean return of the last ten training episodes


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Range(_Strict):
    """A range's check, shared by its real and integer forms (which declare low, high and log)."""

    @model_validator(mode="after")
    def _ordered(self):
        if not self.low < self.high or (self.log and self.low <= 0):
            raise ValueError("need low < high (and low > 0 on a log scale)")
        return self


class FloatRange(_Range):
    """A real value in [low, high], on a log scale if asked."""

    type: Literal["float"]
    low: float = Field(description="smallest value")
    high: float = Field(description="largest value")
    log: bool = Field(default=False, description="sample on a log scale (low must be > 0)")


class IntRange(_Range):
    """An integer in [low, high], on a log scale if asked."""

    type: Literal["int"]
    low: int = Field(description="smallest value")
    high: int = Field(description="largest value")
    log: bool = Field(default=False, description="sample on a log scale (low must be > 0)")


class Categorical(_Strict):
    """One of a list of values."""

    type: Literal["categorical"]
    choices: list[float | int | str | bool | None | list[Any] | dict[str, Any]] = Field(
        min_length=1, description="the values to choose from (lists and mappings too)")


Distribution = Annotated[FloatRange | IntRange | Categorical, Field(discriminator="type")]


class Sampler(_Strict):
    """Optuna's sampler: TPE (default) or random search."""

    type: Literal["tpe", "random"] = Field(default="tpe", description="tpe or random")
    seed: int | None = Field(default=0, description="the sampler's seed (None: a fresh one)")


class Pruner(_Strict):
    """Optuna's pruner, fed the running training return after each chunk of a trial's budget."""

    type: Literal["none", "median", "successive_halving", "hyperband", "threshold"] = Field(
        default="median", description="none, median, successive_halving, hyperband or threshold")
    n_startup_trials: int = Field(default=5, ge=0, description="median: trials completed before any is pruned")
    n_warmup_steps: int = Field(default=0, ge=0, description="median: steps of a trial before it may be pruned")
    lower: float | None = Field(default=None, description="threshold: prune a trial whose running return falls below this")


class TuningFile(_Strict):
    """What ``zoo tune`` reads: a spec, a search space and Optuna's settings."""

    spec: str = Field(description="the run spec to tune, relative to the tuning file")
    name: str | None = Field(default=None, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,80}$", description="default: the file's stem")
    n_trials: int = Field(default=20, ge=1, le=100_000, description="Optuna trials in all (a later call runs the missing ones)")
    direction: Literal["maximize", "minimize"] = Field(default="maximize", description="of the return")
    sampler: Sampler = Field(default_factory=Sampler)
    pruner: Pruner = Field(default_factory=Pruner)
    search_space: str | None = Field(default=None, description="a search space a plugin registers (zoo list search_space)")
    space: dict[str, Distribution] = Field(
        default_factory=dict, description="spec path (as for --set) -> distribution; added to search_space's, or replacing them")

    @model_validator(mode="after")
    def _some_space(self):
        if not self.space and self.search_space is None:
            raise ValueError("give the values to search: space (spec paths and distributions) or search_space (a name)")
        return self


def load_tuning(path: Path) -> TuningFile:
    """Read and validate a tuning file; problems name the file, line and field."""
    document = load_file(path)
    if not isinstance(document.data, dict):
        raise SpecError([document.problem((), "a tuning file is a mapping with spec and space keys")])
    try:
        return TuningFile.model_validate(document.data)
    except ValidationError as exc:
        problems = []
        for error in exc.errors():
            loc = tuple(part for part in error["loc"] if part not in ("float", "int", "categorical"))
            problems.append(document.problem(loc, error["msg"].removeprefix("Value error, ")))
        raise SpecError(problems) from None


def _sampler(settings: Sampler):
    import optuna

    if settings.type == "random":
        return optuna.samplers.RandomSampler(seed=settings.seed)
    return optuna.samplers.TPESampler(seed=settings.seed)


def _pruner(settings: Pruner):
    import optuna

    if settings.type == "none":
        return optuna.pruners.NopPruner()
    if settings.type == "successive_halving":
        return optuna.pruners.SuccessiveHalvingPruner()
    if settings.type == "hyperband":
        return optuna.pruners.HyperbandPruner()
    if settings.type == "threshold":
        if settings.lower is None:
            raise ZooError("pruner.lower: the threshold pruner needs a lower bound")
        return optuna.pruners.ThresholdPruner(lower=settings.lower)
    return optuna.pruners.MedianPruner(n_startup_trials=settings.n_startup_trials, n_warmup_steps=settings.n_warmup_steps)


def suggest(trial, space: dict[str, Any]) -> dict[str, Any]:
    """One value per spec path of `space`, drawn by `trial`."""
    values = {}
    for path, dist in space.items():
        if isinstance(dist, FloatRange):
            values[path] = trial.suggest_float(path, dist.low, dist.high, log=dist.log)
        elif isinstance(dist, IntRange):
            values[path] = trial.suggest_int(path, dist.low, dist.high, log=dist.log)
        else:
            values[path] = _choice(dist, trial.suggest_categorical(path, _labels(dist)))
    return values


def _labels(dist: Categorical) -> list:
    """What Optuna is given to choose from: it stores scalars only, so a list or mapping goes by its JSON text."""
    return [json.dumps(c) if isinstance(c, (list, dict)) else c for c in dist.choices]


def _choice(dist: Categorical, label):
    """The choice Optuna's `label` stands for."""
    return dist.choices[_labels(dist).index(label)]


def spec_values(params: dict[str, Any], space: dict[str, Any]) -> dict[str, Any]:
    """An Optuna trial's params as the spec's values: a categorical list or mapping, not its JSON label."""
    return {path: _choice(space[path], value) if isinstance(space.get(path), Categorical) else value
            for path, value in params.items()}


def registered_space(name: str, registry: Registry) -> dict[str, Any]:
    """The distributions of the search space a plugin registered as `name`."""
    from pydantic import TypeAdapter

    entry = registry.get("search_space", name)
    document = load_file(entry.path)
    try:
        return TypeAdapter(dict[str, Distribution]).validate_python(document.data)
    except ValidationError as exc:
        raise SpecError([document.problem(tuple(p for p in e["loc"] if p not in ("float", "int", "categorical")),
                                          e["msg"]) for e in exc.errors()]) from None


def tune(tuning_path: Path, registry: Registry, runs_dir: Path, *, base: Overrides | None = None,
         n_trials: int | None = None) -> dict[str, Any]:
    """Run the missing Optuna trials of a tuning file (`n_trials` in all, default the file's); returns
    the summary written to ``tune.json``."""
    import optuna
    from optuna.trial import TrialState

    settings = with_registered_space(load_tuning(tuning_path), registry)
    spec_path = (Path(tuning_path).parent / settings.spec)
    name = settings.name or Path(tuning_path).stem
    base = base or Overrides()
    _check_space(spec_path, settings, registry, base)
    home = Path(runs_dir) / f"{name}.tune"
    home.mkdir(parents=True, exist_ok=True)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(
        study_name=name, storage=f"sqlite:///{(home / 'optuna.sqlite').resolve()}", load_if_exists=True,
        direction=settings.direction, sampler=_sampler(settings.sampler), pruner=_pruner(settings.pruner),
    )
    for stale in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):  # a killed earlier call
        study.tell(stale.number, state=TrialState.FAIL)
    done = len(study.get_trials(deepcopy=False, states=(TrialState.COMPLETE, TrialState.PRUNED)))
    for _ in range(max(0, (n_trials or settings.n_trials) - done)):
        trial = study.ask()
        _run_trial(study, trial, settings, spec_path, name, registry, Path(runs_dir), base)
    return _write_summary(study, home, Path(runs_dir), settings.space)


def with_registered_space(settings: TuningFile, registry: Registry) -> TuningFile:
    """The tuning file's whole space: its named ``search_space``'s distributions, with its own ``space`` over them."""
    if settings.search_space is None:
        return settings
    return settings.model_copy(update={"space": {**registered_space(settings.search_space, registry), **settings.space}})


def _check_space(spec_path: Path, settings: TuningFile, registry: Registry, base: Overrides):
    """Every path of the space must name a field of the spec: the spec validated at each range's low end."""
    sets = list(base.sets)
    for path, dist in settings.space.items():
        value = dist.choices[0] if isinstance(dist, Categorical) else dist.low
        sets.append(f"{path}={json.dumps(value)}")
    return parse_spec(replace(base, sets=tuple(sets)).apply(load_file(spec_path)), registry)


def check_tuning(path: Path, registry: Registry, build: bool) -> str:
    """``zoo validate`` of a tuning file: its settings, and its spec with every path of the space set.

    With `build`, the spec at the low end of every range is also built once, as ``zoo train`` does.
    """
    settings = with_registered_space(load_tuning(path), registry)
    spec = _check_space(Path(path).parent / settings.spec, settings, registry, Overrides())
    if build:
        preflight(spec, registry)
    return (f"{settings.name or Path(path).stem}: {settings.n_trials} trials over {len(settings.space)} "
            f"values of {settings.spec}{', built' if build else ''}")


def _run_trial(study, trial, settings, spec_path, name, registry, runs_dir, base) -> None:
    """Train one Optuna trial as a run, reporting its running return so the pruner can stop it."""
    from optuna.trial import TrialState

    values = suggest(trial, settings.space)
    run_name = f"{name}.t{trial.number:03d}"
    sets = base.sets + (f"name={run_name}",) + tuple(f"{path}={json.dumps(value)}" for path, value in values.items())
    target = runs_dir / f"{run_name}-{datetime.now():%Y%m%d-%H%M%S}"
    try:
        folder = prepare_run(spec_path, registry, runs_dir, target, replace(base, sets=tuple(sets)))
    except ZooError as exc:  # values the spec's own checks refuse (e.g. batch larger than the rollout)
        study.tell(trial, state=TrialState.FAIL)
        print(f"trial {trial.number}: refused ({str(exc).splitlines()[0]})")
        return
    trial.set_user_attr("run", folder.path.name)
    spec = load_run_spec(folder, registry)
    pruned, stop = [], StopFlag()

    def report(trial_index: int, progress_done: int, running: object = None) -> None:
        if trial_index != 0:  # trials train one after another; Optuna takes one value per step: the first trial's
            return
        value = _recent_return(folder, trial_index)
        if value is not None and progress_done < spec.budget.amount:
            trial.report(value, progress_done)
            if trial.should_prune():
                pruned.append(progress_done)
                stop.set()

    folder.update(status="running")
    groups = trial_groups(spec, registry)
    try:
        backend_for(spec, registry).train(folder.path, groups, stop, report)
    except Interrupted:
        folder.update(status="interrupted", error=f"pruned by zoo tune at {pruned[0]} {spec.budget.unit}")
        study.tell(trial, state=TrialState.PRUNED)
        print(f"trial {trial.number}: pruned at {pruned[0]} {spec.budget.unit} ({folder.path.name})")
        return
    except Exception as exc:
        folder.update(status="failed", error=f"{type(exc).__name__}: {exc}")
        study.tell(trial, state=TrialState.FAIL)
        print(f"trial {trial.number}: failed ({type(exc).__name__}: {exc})")
        return
    folder.update(status="finished")
    value = objective(folder)
    study.tell(trial, value if value is not None and math.isfinite(value) else None,
               state=TrialState.COMPLETE if value is not None else TrialState.FAIL)
    print(f"trial {trial.number}: {value if value is None else round(value, 3)} with "
          + ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in values.items()))


def _recent_return(folder: RunFolder, trial_index: int) -> float | None:
    rows = read_metrics(folder.trial_dir(trial_index) / "metrics.jsonl")
    returns = [row["episode_return"] for row in rows if row.get("episode_return") is not None]
    return float(sum(returns[-RECENT_EPISODES:]) / len(returns[-RECENT_EPISODES:])) if returns else None


def objective(folder: RunFolder) -> float | None:
    """The evaluation return averaged over a run's trials, else its final training return."""
    import numpy as np

    evals = [read_json(p).get("eval_mean") for p in sorted((folder.path / "trials").glob("*/result.json"))]
    evals = [e for e in evals if e is not None]
    if evals:
        return float(np.mean(evals))
    finals = final_returns(folder)
    return float(np.mean(finals)) if len(finals) else None


def _write_summary(study, home: Path, runs_dir: Path, space: dict[str, Any]) -> dict[str, Any]:
    from optuna.trial import TrialState

    trials = study.get_trials(deepcopy=False)
    summary: dict[str, Any] = {
        "study": study.study_name, "direction": study.direction.name.lower(),
        "trials": [{"number": t.number, "state": t.state.name.lower(), "value": t.value,
                    "params": spec_values(t.params, space), "run": t.user_attrs.get("run")} for t in trials],
    }
    if any(t.state == TrialState.COMPLETE for t in trials):
        best = study.best_trial
        summary["best"] = {"number": best.number, "value": best.value, "params": spec_values(best.params, space),
                           "run": best.user_attrs["run"]}
        text = (runs_dir / best.user_attrs["run"] / "spec.yaml").read_text(encoding="utf-8")
        atomic_write_text(home / "best.yaml", f"# best of {study.study_name}: trial {best.number}, value {best.value:.6g}\n{text}")
    atomic_write_json(home / "tune.json", summary)
    return summary

