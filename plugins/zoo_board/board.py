"""Boards over any world: agents x tasks, each task an env block the registry knows.

A board is YAML::

    name: classic-mini
    tasks:                                          # label: the env block of the task's cells
      CartPole: {type: gym, id: CartPole-v1}
      Breakout: {type: minatar, game: breakout}
    budget: {steps: 100000, eval_episodes: 30}      # every cell's; eval_episodes >= 1 (the cell's score)
    trials: 5
    agents:
      random: {agent: {type: random}}
      ppo: {agent: {type: ppo}}
    scores:
      random: random            # the agent whose cells are each task's random play (or numbers per task)
      reference: ppo            # the agent whose cells are each task's reference (or numbers per task,
                                # or a column of a score table: {table: atari, column: human})

The agents section, budget, trials, seed, backend and logging are those of every board
(``zoo_board.plan``); every problem is reported at its line and column in the board file.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, Field, ValidationError

from zoo import Loc, LocatedDocument, Problem, Registry, SpecError, ZooError, load_file

from .plan import (
    NAME,
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


class TableAnchor(Strict):
    """A normalization point read from a score table a plugin registers (kind ``score_table``)."""

    table: str = Field(description="the score table, e.g. atari (zoo list score_table)")
    column: str = Field(description="its column, e.g. random or human")


#: a normalization point: the label of an agent of the board (its cell's mean on each task), a column of a
#: score table, or per task a number or an agent label
#: (tried left to right, so that {table, column} is a score table's column, not two tasks)
Anchor = Annotated[str | TableAnchor | dict[str, float | str], Field(union_mode="left_to_right")]


class TaskContender(Contender):
    """A column of a board over tasks: an agent entry, and the tasks it plays when not every one fits it."""

    tasks: list[str] | None = Field(default=None, min_length=1, description="the task labels this agent plays "
                                                                          "(default: every task of the board)")


class Scores(Strict):
    """How cells are scored and normalized."""

    random: Anchor | None = Field(default=None, description="each task's score of random play: an agent label "
                                                              "(its cells' mean), {table, column} of a score table, "
                                                              "or per task a number or an agent label")
    reference: Anchor | None = Field(default=None, description="each task's reference score (normalized to 1): an "
                                                                 "agent label, {table, column} of a score table, or "
                                                                 "per task a number or an agent label")
    bootstraps: int = Field(default=2000, ge=1, le=100_000, description="resamples of every interval")
    seed: int = Field(default=0, ge=0, lt=2**32, description="seed of every resampling")
    curve_points: int = Field(default=50, ge=2, le=10_000, description="points of the learning curves written out")
    profile_points: int = Field(default=101, ge=2, le=10_000, description="thresholds of the performance profiles")
    aggregate_tasks: list[str] | None = Field(default=None, min_length=1,
                                              description="the tasks the aggregates run over (default: every task)")


class Board(BoardBase):
    """Every agent on every task."""

    tasks: dict[str, dict[str, Any]] = Field(min_length=1, max_length=10_000,
                                             description="task label -> the env block of its cells")
    agents: dict[str, TaskContender] = Field(min_length=1, max_length=1_000)
    scores: Scores = Scores()

    def plays(self, agent: str, task: str) -> bool:
        """Whether the board has a cell of `agent` on `task`."""
        return self.agents[agent].tasks is None or task in self.agents[agent].tasks


@dataclass
class LoadedBoard:
    board: Board
    source: Path
    tasks: list[str]
    cells: list[CellPlan]
    #: the anchors read from score tables: anchor ("random", "reference") -> task -> score
    table_scores: dict[str, dict[str, float]] = field(default_factory=dict)


def load_board(path: Path, registry: Registry, *,
               extra_agents: dict[str, LocatedDocument] | None = None) -> LoadedBoard:
    """Read and check a board and every one of its cells, before anything runs (``--agent LABEL=FILE``
    columns come as `extra_agents`, their problems placed in their files)."""
    document = load_file(path)
    if not isinstance(document.data, dict):
        raise SpecError([document.problem((), "a board is a mapping with name, tasks, budget and agents")])
    data, places = with_extra_agents(document, extra_agents)
    try:
        board = Board.model_validate(data)
    except ValidationError as exc:
        raise SpecError([placed_problem(document, error, _model_at) for error in exc.errors()]) from None
    table_scores, table_problems = _table_scores(document, board, registry)
    problems = agent_problems(places, board.agents, registry) + _task_problems(document, places, board) + table_problems
    if problems:
        raise SpecError(problems)
    cells = raise_problems([_plan(document, places[label], board, label, task, registry)
                            for label in board.agents for task in board.tasks if board.plays(label, task)])
    raise_problems([_evaluated(cell, places[cell.agent], board, document) for cell in cells])
    return LoadedBoard(board, Path(path), list(board.tasks), cells, table_scores)


def _table_scores(document: LocatedDocument, board: Board,
                  registry: Registry) -> tuple[dict[str, dict[str, float]], list[Problem]]:
    """Each anchor given as a score table's column, read for every task: the scores, and what is wrong
    (a table no plugin registers, a column it does not have, a task it has no score for)."""
    scores, problems = {}, []
    for anchor in ("random", "reference"):
        source = getattr(board.scores, anchor)
        if not isinstance(source, TableAnchor):
            continue
        where = ("scores", anchor)
        try:
            table = registry.get("score_table", source.table)
        except ZooError as exc:
            problems.append(document.problem(where + ("table",), str(exc)))
            continue
        if source.column not in table.columns:
            problems.append(document.problem(where + ("column",), f"score table {source.table} has no column "
                                             f"'{source.column}'; columns: {', '.join(table.columns)}"))
            continue
        rows = {task: table.scores(env) or {} for task, env in board.tasks.items()}
        missing = [task for task, row in rows.items() if source.column not in row]
        if missing:
            problems.append(document.problem(where, f"score table {source.table} has no {source.column} score for "
                                             f"task{'s' if len(missing) > 1 else ''} {', '.join(missing)}"))
            continue
        scores[anchor] = {task: float(row[source.column]) for task, row in rows.items()}
    return scores, problems


def _model_at(loc: Loc) -> type[BaseModel] | None:
    if loc == ():
        return Board
    if loc == ("scores",):
        return Scores
    if len(loc) == 2 and loc[0] == "agents":
        return TaskContender
    return None


def _task_problems(document: LocatedDocument, places, board: Board) -> list[Problem]:
    """Task labels that are no names, env blocks without a type, and task names and normalizations that name
    nothing."""
    problems = [document.problem(("tasks", task), "a task label is 1 to 60 letters, digits, '.', '_' or '-'")
                for task in board.tasks if not re.fullmatch(NAME, task)]
    problems += [document.problem(("tasks", task), "a task is an env block with a type, e.g. {type: gym, id: CartPole-v1}")
                 for task, env in board.tasks.items() if not isinstance(env.get("type"), str)]
    for label, contender in board.agents.items():
        entry, prefix = places[label]
        problems += [entry.problem(prefix + ("tasks", k), f"no task '{task}' on the board; tasks: {', '.join(board.tasks)}")
                     for k, task in enumerate(contender.tasks or []) if task not in board.tasks]
    problems += [document.problem(("scores", "aggregate_tasks", k), f"no task '{task}' on the board; tasks: "
                                                                    f"{', '.join(board.tasks)}")
                 for k, task in enumerate(board.scores.aggregate_tasks or []) if task not in board.tasks]
    for anchor in ("random", "reference"):
        value = getattr(board.scores, anchor)
        labels = {(): value} if isinstance(value, str) else \
            {(task,): v for task, v in value.items() if isinstance(v, str)} if isinstance(value, dict) else {}
        for where, label in labels.items():
            if label not in board.agents:
                problems.append(document.problem(("scores", anchor, *where), f"'{label}' is no agent of the board; "
                                                                             f"agents: {', '.join(board.agents)}"))
            elif where and not board.plays(label, where[0]):
                problems.append(document.problem(("scores", anchor, *where), f"agent '{label}' does not play {where[0]}"))
        if isinstance(value, dict) and "table" in value and "table" not in board.tasks:
            problems.append(document.problem(("scores", anchor), "a score table's column is {table: NAME, column: "
                                                                 "COLUMN}, nothing else (zoo list score_table)"))
        elif isinstance(value, dict):
            missing = [task for task in board.tasks if task not in value]
            extra = [task for task in value if task not in board.tasks]
            if missing or extra:
                problems.append(document.problem(("scores", anchor), "give a number for every task and no other: "
                                                 + "; ".join(filter(None, [missing and f"missing {', '.join(missing)}",
                                                                           extra and f"no task {', '.join(extra)}"]))))
    return problems


def cell_data(board: Board, label: str, task: str) -> dict[str, Any]:
    """The run spec of a cell, as plain data."""
    contender = board.agents[label]
    data: dict[str, Any] = {
        "name": f"{board.name}-{label}-{task}"[:100],
        "description": f"leaderboard {board.name}: agent {label} on task {task}",
        "env": copy.deepcopy(board.tasks[task]),
        "agent": copy.deepcopy(contender.agent),
        "budget": copy.deepcopy(contender.budget if contender.budget is not None else board.budget),
        "trials": contender.trials or board.trials,
        "seed": board.seed,
        "backend": {**board.backend, **(contender.backend or {})},
        "logging": copy.deepcopy(board.logging),
    }
    if contender.meta_controller is not None:
        data["meta_controller"] = copy.deepcopy(contender.meta_controller)
    return data


def _plan(document: LocatedDocument, place, board: Board, label: str, task: str, registry: Registry):
    """The validated spec and key of a cell (its env placed where the board names the task), or its problems."""
    prefix = ("tasks", task)
    marks = {("env", *loc[2:]): position for loc, position in document.marks.items() if loc[:2] == prefix}
    return plan_cell(document, place, board.agents[label], cell_data(board, label, task), marks, registry,
                     agent=label, task=task)


def _evaluated(cell: CellPlan, place, board: Board, document: LocatedDocument) -> CellPlan | list[Problem]:
    """A cell is scored by its final evaluation: its budget must hold evaluation episodes."""
    if cell.spec.budget.eval_episodes >= 1:
        return cell
    own = board.agents[cell.agent].budget is not None
    where, loc = (place[0], place[1] + ("budget",)) if own else (document, ("budget",))
    return [where.problem(loc, "a board scores each cell by its final evaluation: give eval_episodes "
                               "(e.g. eval_episodes: 30)")]
