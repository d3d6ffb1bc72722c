"""Studies: one spec, several runs (rules, agents) trained in turn and reported together.

A study file holds a ``base`` run spec and ``runs``, a mapping from a label to the keys that run
changes (merged into the base, mappings key by key)::

    name: my-study
    base: {env: {type: gohr, horizon: 100}, agent: {type: gohr-linear-dqn}, budget: {episodes: 200}, trials: 100}
    runs:
      clockwise: {env: {rule: paper/clockwise}}
      ppo-clockwise: {env: {rule: paper/clockwise}, agent: {type: ppo}, budget: {episodes: 200}}

Each run is an ordinary run named by its label, in the runs folder and its index (folder
``STUDY.LABEL-TIME``); the study's own folder ``<runs dir>/<study name>/`` holds the runs' specs,
``study.json`` (label -> run folder, which ``--resume`` and ``zoo report`` read) and the report.
"""

from __future__ import annotations

import copy
from datetime import datetime
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from zoo_report.collect import STUDY_LEDGER

from zoo import (
    LocatedDocument,
    Overrides,
    Registry,
    RunFailed,
    RunFolder,
    SpecError,
    ZooError,
    atomic_write_json,
    atomic_write_text,
    execute_run,
    load_file,
    parse_spec,
    prepare_run,
    read_json,
)


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


def load_study(path: Path, registry: Registry, overrides: Overrides | None = None) -> tuple[StudySpec, dict[str, str]]:
    """The study and each run's spec text, all validated before anything runs.

    A problem is reported at the study file's own line (in ``base`` or in the run's block), or at the
    command-line override that caused it.
    """
    document = load_file(path)
    try:
        study = StudySpec.model_validate(document.data)
    except ValidationError as exc:
        raise SpecError([document.problem(tuple(e["loc"]), e["msg"]) for e in exc.errors()]) from None
    texts, problems = {}, []
    for label, changes in study.runs.items():
        if "name" in changes:
            problems.append(document.problem(("runs", label, "name"), "a run is named by its label; drop 'name'"))
            continue
        run_document = (overrides or Overrides()).apply(_run_document(document, study, label))
        try:
            parse_spec(run_document, registry)
        except SpecError as exc:
            problems += [p for p in exc.problems if p not in problems]
        texts[label] = yaml.safe_dump(run_document.data, sort_keys=False)
    if problems:
        raise SpecError(problems)
    return study, texts


def _run_document(document: LocatedDocument, study: StudySpec, label: str) -> LocatedDocument:
    """One run's spec (base merged with the run's changes), its positions taken from the study file."""
    marks = {loc[1:]: mark for loc, mark in document.marks.items() if loc[:1] == ("base",)}
    marks.update({loc[2:]: mark for loc, mark in document.marks.items() if loc[:2] == ("runs", label)})
    return LocatedDocument(merged(study.base, study.runs[label]) | {"name": label}, document.source, marks)


def run_study(
    path: Path, registry: Registry, runs_dir: Path, *, progress: bool = True,
    overrides: Overrides | None = None, resume: bool = False,
) -> tuple[Path, list[Path], str]:
    """Train every run of a study in turn, or with `resume` finish the runs an earlier call left.

    Returns the study's folder, the run folders so far and the status: "finished", or "interrupted" (Ctrl-C).
    """
    if resume and overrides and overrides.as_list():
        raise ZooError("--resume continues a study as it was started; drop --set, --seed and --trials")
    study, texts = load_study(path, registry, overrides)
    runs_dir = Path(runs_dir)
    home = runs_dir / study.name
    ledger_path = home / STUDY_LEDGER
    if ledger_path.exists() and not resume:
        raise ZooError(f"{home}: study '{study.name}' has runs already; continue it with 'zoo study {path} --resume'"
                       " or give the study another name")
    if resume and not ledger_path.exists():
        raise ZooError(f"{home}: no study '{study.name}' to resume (no {STUDY_LEDGER}); start it without --resume")
    ledger = read_json(ledger_path) if resume else {"name": study.name, "source": str(path), "runs": {}}
    (home / "specs").mkdir(parents=True, exist_ok=True)
    folders = []
    for label, text in texts.items():
        if label in ledger["runs"]:
            folder = RunFolder(runs_dir / ledger["runs"][label])
            if folder.manifest().get("status") == "finished":
                folders.append(folder.path)
                continue
        else:
            spec_path = home / "specs" / f"{label}.yaml"
            atomic_write_text(spec_path, text)
            target = runs_dir / f"{study.name}.{label}-{datetime.now():%Y%m%d-%H%M%S}"
            folder = prepare_run(spec_path, registry, runs_dir, target)
            ledger["runs"][label] = folder.path.name
            atomic_write_json(ledger_path, ledger)
        status = execute_run(folder, registry, progress=progress)
        folders.append(folder.path)
        if status == "interrupted":
            return home, folders, status
        if status != "finished":
            raise RunFailed(f"study stopped: run {folder.path} is {status}")
    return home, folders, "finished"

