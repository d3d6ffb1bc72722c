"""Board files: agents (spec fragments) x GOHR rules, and the run spec and cache key of every cell.

A board is YAML::

    name: gohr-v1
    env: {type: gohr, horizon: 100, board: {min_objects: 9}}   # every cell's env, without the rule
    rules: [paper/clockwise, "gohr/MLC/BMK/*"]                 # names, rule files, or globs over rule sets
    budget: {steps: 20000}                                     # the same for every cell unless an agent overrides it
    trials: 5
    agents:
      random: {agent: {type: random-legal}}
      gdi-i3: {agent: {type: gdi-i3, preset: cpu_small}, meta_controller: {type: gdi_bandits}}
      human: {agent: {type: human, recorded: study-1}}       # players of a 'zoo gohr serve' store
    metrics: {bootstraps: 2000}

Every problem is reported with the board file's line and column, including those of a cell's spec
(an agent's params are checked against the plugin that registers it).
"""

from __future__ import annotations

import copy
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError
from zoo_board.plan import (
    BoardBase,
    CellPlan,
    Contender,
    Strict,
    agent_problems,
    placed_problem,
    plan_cell,
    raise_problems,
    with_extra_agents,
)

from zoo import Loc, LocatedDocument, Registry, SpecBase, SpecError, did_you_mean, load_file

from ..study import merged
from .recorded import is_recorded, recorded_key


class Metrics(Strict):
    """How cells are scored."""

    bootstraps: int = Field(default=2000, ge=1, le=100_000, description="resamples of cell medians and curve bands")
    ranking_bootstraps: int = Field(default=200, ge=0, le=10_000, description="resamples behind the ranking intervals")
    seed: int = Field(default=0, ge=0, lt=2**32, description="seed of every resampling")
    cnm: Literal["tie", "errors"] = Field(
        default="tie", description="trials that did not converge: all equal ('tie', the authors' rule) or ordered by "
                                   "their errors ('errors'); below every converged trial either way")
    curve_points: int = Field(default=60, ge=2, le=10_000, description="points of the median curves written out")


class Board(BoardBase):
    """A leaderboard: every agent on every rule."""

    env: dict[str, Any] = Field(default_factory=lambda: {"type": "gohr"}, description="every cell's env block, without rule")
    rules: list[str] = Field(min_length=1, max_length=10_000)
    metrics: Metrics = Metrics()


@dataclass
class LoadedBoard:
    board: Board
    source: Path
    rules: list[str]
    cells: list[CellPlan]


def load_board(path: Path, registry: Registry, *,
               extra_agents: dict[str, LocatedDocument] | None = None) -> LoadedBoard:
    """Read and check a board and every one of its cells, before anything runs.

    `extra_agents` adds columns from files of their own (``--agent LABEL=FILE``), each holding the
    keys of a board's agent entry; their problems are placed in those files.
    """
    document = load_file(path)
    if not isinstance(document.data, dict):
        raise SpecError([document.problem((), "a board is a mapping with name, rules, budget and agents")])
    data, places = with_extra_agents(document, extra_agents)
    try:
        board = Board.model_validate(data)
    except ValidationError as exc:
        raise SpecError([placed_problem(document, error, _model_at) for error in exc.errors()]) from None
    problems = agent_problems(places, board.agents, registry)
    if problems:
        raise SpecError(problems)
    rules = expand_rules(document, board.rules, registry)
    cells = raise_problems([_plan(document, places[label], board, label, rule, index, registry)
                            for label in board.agents for rule, index in rules])
    return LoadedBoard(board, Path(path), [rule for rule, _ in rules], cells)


def _model_at(loc: Loc) -> type[BaseModel] | None:
    if loc == ():
        return Board
    if loc == ("metrics",):
        return Metrics
    if len(loc) == 2 and loc[0] == "agents":
        return Contender
    return None


def rule_sets(registry: Registry) -> dict[str, Path]:
    return {name: Path(entry.path) for name, entry in registry.entries["rule_set"].items() if entry.path}


def expand_rules(document: LocatedDocument, patterns: list[str], registry: Registry) -> list[tuple[str, int]]:
    """Each rule name once, in the board's order, globs (``gohr/MLC/BMK/*``) expanded over the rule sets;
    pairs of (rule, index of the board entry that named it)."""
    sets = rule_sets(registry)
    rules: dict[str, int] = {}
    problems = []
    for index, pattern in enumerate(patterns):
        if not re.search(r"[*?[]", pattern):  # a plain name or file
            rules.setdefault(pattern, index)
            continue
        head, _, rest = pattern.partition("/")
        if head not in sets or not rest:
            problems.append(document.problem(("rules", index), f"a glob names a rule set first: unknown rule set "
                                             f"'{head}'{did_you_mean(head, list(sets))}; rule sets: {', '.join(sorted(sets))}"))
            continue
        matches = sorted(p for p in sets[head].glob(f"{rest}.txt") if p.is_file())
        if not matches:
            problems.append(document.problem(("rules", index), f"'{pattern}' matches no rule in rule set '{head}' "
                                             f"({sets[head]}); 'zoo gohr rules {head}' lists them"))
        for match in matches:
            rules.setdefault(f"{head}/{match.relative_to(sets[head]).with_suffix('').as_posix()}", index)
    if problems:
        raise SpecError(problems)
    return list(rules.items())


def rule_file(rule: str, registry: Registry) -> Path | None:
    """The file behind a rule name, when there is one."""
    sets = rule_sets(registry)
    head, _, rest = rule.partition("/")
    if head in sets and (sets[head] / f"{rest}.txt").is_file():
        return sets[head] / f"{rest}.txt"
    return Path(rule) if Path(rule).is_file() else None


def _slug(rule: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", rule.removesuffix(".txt"))[-40:].lstrip("._-") or "rule"


def cell_data(board: Board, label: str, rule: str) -> dict[str, Any]:
    """The run spec of a cell, as plain data."""
    contender = board.agents[label]
    data: dict[str, Any] = {
        "name": f"{board.name}-{label}-{_slug(rule)}"[:100],
        "description": f"leaderboard {board.name}: agent {label} on rule {rule}",
        "env": merged(board.env, {"rule": rule}),
        "agent": copy.deepcopy(contender.agent),
        "budget": copy.deepcopy(contender.budget if contender.budget is not None else board.budget),
        "trials": contender.trials or board.trials,
        "seed": board.seed,
        "backend": merged(board.backend, contender.backend or {}),
        "logging": copy.deepcopy(board.logging),
    }
    if contender.meta_controller is not None:
        data["meta_controller"] = copy.deepcopy(contender.meta_controller)
    return data


def _plan(document: LocatedDocument, place, board: Board, label: str, rule: str, index: int,
          registry: Registry) -> CellPlan | list:
    """The validated spec and key of a cell (its rule placed where the board names it), or its problems."""
    marks = {("env", "rule"): document.marks[("rules", index)]} if ("rules", index) in document.marks else {}
    return plan_cell(document, place, board.agents[label], cell_data(board, label, rule), marks, registry,
                     agent=label, task=rule, key_extra=lambda spec: key_content(spec, rule, registry))


def key_content(spec: SpecBase, rule: str, registry: Registry) -> dict[str, Any]:
    """What a GOHR cell's results depend on beyond its spec: the rule file's text and, for recorded play,
    the transcripts (the cell key of ``zoo_board.plan.cell_key``)."""
    path = rule_file(rule, registry)
    content: dict[str, Any] = {"rule_sha256": hashlib.sha256(path.read_bytes()).hexdigest() if path else None}
    if is_recorded(spec):  # people's play: the transcripts are the results
        content["recorded"] = recorded_key(spec, rule, path.read_bytes() if path else None)
    return content
