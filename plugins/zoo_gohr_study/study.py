"""Studies: one spec, several runs (rules, agents) trained in turn and reported together.

A study file holds a ``base`` run spec and ``runs``, a mapping from a label to the keys that run
changes (merged into the base, mappings key by key). Each run is named by its label and lives
under ``<runs dir>/<study name>/``::

    name: my-study
    base: {env: {type: gohr, horizon: 100}, agent: {type: gohr-linear-dqn}, budget: {episodes: 200}, trials: 100}
    runs:
      clockwise: {env: {rule: paper/clockwise}}
      ppo-clockwise: {env: {rule: paper/clockwise}, agent: {type: ppo}, budget: {episodes: 200}}
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from zoo.errors import Problem, SpecError
from zoo.registry import Registry
from zoo.spec import load_spec_text
from zoo.yamlio import load_file


class StudySpec(BaseModel):
    """A study: a base run spec and the runs that vary it."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
    description: str = ""
    base: dict[str, Any]
    runs: dict[str, dict[str, Any]] = Field(min_length=1)


def merged(base: dict, changes: dict) -> dict:
    """`base` with `changes` applied: mappings merge key by key, anything else replaces."""
    out = copy.deepcopy(base)
    for key, value in changes.items():
        out[key] = merged(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else copy.deepcopy(value)
    return out


def load_study(path: Path, registry: Registry) -> tuple[StudySpec, dict[str, str]]:
    """The study and each run's spec text, all validated before anything runs."""
    document = load_file(path)
    try:
        study = StudySpec.model_validate(document.data)
    except ValidationError as exc:
        raise SpecError([Problem(f"{'.'.join(map(str, e['loc'])) or 'study'}: {e['msg']}", str(path))
                         for e in exc.errors()]) from None
    texts, problems = {}, []
    for label, changes in study.runs.items():
        if "name" in changes:
            problems.append(Problem(f"runs.{label}: a run is named by its label; drop 'name'", str(path)))
            continue
        text = yaml.safe_dump(merged(study.base, changes) | {"name": label}, sort_keys=False)
        try:
            load_spec_text(text, registry, source=f"{path} (run {label})")
        except SpecError as exc:
            problems += exc.problems
        texts[label] = text
    if problems:
        raise SpecError(problems)
    return study, texts


def run_study(path: Path, registry: Registry, runs_dir: Path, *, progress: bool = True) -> list[Path]:
    """Train every run of a study in turn; returns the run folders."""
    from zoo.errors import RunFailed
    from zoo.run import execute_run, prepare_run

    study, texts = load_study(path, registry)
    home = Path(runs_dir) / study.name
    (home / "specs").mkdir(parents=True, exist_ok=True)
    folders = []
    for label, text in texts.items():
        spec_path = home / "specs" / f"{label}.yaml"
        spec_path.write_text(text, encoding="utf-8")
        folder = prepare_run(spec_path, registry, home)
        status = execute_run(folder, registry, progress=progress)
        if status != "finished":
            raise RunFailed(f"study stopped: run {folder.path} is {status} (finish it with zoo resume, then zoo report)")
        folders.append(folder.path)
    return folders
