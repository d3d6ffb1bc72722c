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
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from zoo import (
    Loc,
    LocatedDocument,
    Problem,
    Registry,
    SpecBase,
    SpecError,
    __version__,
    did_you_mean,
    load_file,
    parse_spec,
)

from ..study import merged
from .recorded import is_recorded, recorded_key

NAME = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,59}$"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Contender(_Strict):
    """One column of the board: an agent block and what it may change of the board's defaults."""

    agent: dict[str, Any] = Field(description="the agent block of a run spec (type and params)")
    meta_controller: dict[str, Any] | None = Field(default=None, description="a meta-controller block")
    budget: dict[str, Any] | None = Field(default=None, description="this agent's budget (default: the board's)")
    trials: int | None = Field(default=None, ge=1, le=100_000,
                               description="trials per cell, or for recorded play (agent human) the fewest players "
                                           "a cell is scored with (default: the board's)")
    backend: dict[str, Any] | None = Field(default=None, description="merged into the board's backend")


class Metrics(_Strict):
    """How cells are scored."""

    bootstraps: int = Field(default=2000, ge=1, le=100_000, description="resamples of cell medians and curve bands")
    ranking_bootstraps: int = Field(default=200, ge=0, le=10_000, description="resamples behind the ranking intervals")
    seed: int = Field(default=0, ge=0, lt=2**32, description="seed of every resampling")
    cnm: Literal["tie", "errors"] = Field(
        default="tie", description="trials that did not converge: all equal ('tie', the authors' rule) or ordered by "
                                   "their errors ('errors'); below every converged trial either way")
    curve_points: int = Field(default=60, ge=2, le=10_000, description="points of the median curves written out")


class Board(_Strict):
    """A leaderboard: every agent on every rule."""

    name: str = Field(pattern=NAME)
    description: str = Field(default="", max_length=10_000)
    env: dict[str, Any] = Field(default_factory=lambda: {"type": "gohr"}, description="every cell's env block, without rule")
    rules: list[str] = Field(min_length=1, max_length=10_000)
    budget: dict[str, Any]
    trials: int = Field(default=5, ge=1, le=100_000)
    seed: int = Field(default=0, ge=0, lt=2**32)
    backend: dict[str, Any] = Field(default_factory=dict)
    logging: dict[str, Any] = Field(default_factory=lambda: {"tensorboard": False})
    agents: dict[str, Contender] = Field(min_length=1, max_length=1_000)
    metrics: Metrics = Metrics()


@dataclass
class CellPlan:
    """One (agent, rule) cell: its validated spec and its cache key."""

    agent: str
    rule: str
    spec: SpecBase
    key: str

    @property
    def run_name(self) -> str:
        return cell_run_name(self.spec.name, self.key)


@dataclass
class LoadedBoard:
    board: Board
    source: Path
    rules: list[str]
    cells: list[CellPlan]


#: where an agent entry was written: its document and the key path of the entry in it
Place = tuple[LocatedDocument, Loc]


def cell_run_name(name: str, key: str) -> str:
    """The run folder of a cell: its readable name and the first 12 hex digits of its key."""
    return f"{name}-{key[:12]}"


def load_board(path: Path, registry: Registry, *,
               extra_agents: dict[str, LocatedDocument] | None = None) -> LoadedBoard:
    """Read and check a board and every one of its cells, before anything runs.

    `extra_agents` adds columns from files of their own (``--agent LABEL=FILE``), each holding the
    keys of a board's agent entry; their problems are placed in those files.
    """
    document = load_file(path)
    if not isinstance(document.data, dict):
        raise SpecError([document.problem((), "a board is a mapping with name, rules, budget and agents")])
    data = dict(document.data)
    own_agents = data.get("agents") if isinstance(data.get("agents"), dict) else {}
    places: dict[str, Place] = {label: (document, ("agents", label)) for label in own_agents}
    if extra_agents:
        if "agents" in data and not isinstance(data["agents"], dict):
            raise SpecError([document.problem(("agents",), "agents is a mapping from labels to agent entries")])
        data["agents"] = dict(own_agents)
        for label, fragment in extra_agents.items():
            if label in data["agents"]:
                raise SpecError([Problem(f"agent '{label}' is already on the board; choose another label", str(path))])
            data["agents"][label] = fragment.data
            places[label] = (fragment, ())
    try:
        board = Board.model_validate(data)
    except ValidationError as exc:
        raise SpecError([placed_problem(document, error) for error in exc.errors()]) from None
    problems = [document.problem(("agents", label), "an agent label is 1 to 60 letters, digits, '.', '_' or '-'")
                for label in board.agents if not re.fullmatch(NAME, label)]
    problems += _unknown_types(places, board, registry)
    if problems:
        raise SpecError(problems)
    rules = expand_rules(document, board.rules, registry)
    cells = [_plan(document, places[label], board, label, rule, index, registry)
             for label in board.agents for rule, index in rules]
    found = list(dict.fromkeys(p for cell in cells if isinstance(cell, list) for p in cell))
    if found:
        raise SpecError(found)
    return LoadedBoard(board, Path(path), [rule for rule, _ in rules], cells)


def placed_problem(document: LocatedDocument, error: dict, root: type[BaseModel] | None = None) -> Problem:
    """A pydantic error of the board (or of an agent entry's file, `root` Contender) at its place."""
    loc = tuple(error["loc"])
    if error["type"] == "extra_forbidden":
        parent = root if root is not None and loc[:-1] == () else _model_at(loc[:-1])
        valid = sorted(parent.model_fields) if parent else []
        return document.problem(loc, f"unknown field '{loc[-1]}'{did_you_mean(str(loc[-1]), valid)}; "
                                     f"valid fields: {', '.join(valid)}")
    if error["type"] == "missing":
        return document.problem(loc, "required field is missing")
    return document.problem(loc, error["msg"].removeprefix("Value error, "))


def _model_at(loc: Loc) -> type[BaseModel] | None:
    if loc == ():
        return Board
    if loc == ("metrics",):
        return Metrics
    if len(loc) == 2 and loc[0] == "agents":
        return Contender
    return None


def _unknown_types(places: dict[str, Place], board: Board, registry: Registry) -> list[Problem]:
    """Agents and meta-controllers the installed plugins do not register, with what would be valid."""
    problems = []
    for label, contender in board.agents.items():
        for block, kind in (("agent", "agent"), ("meta_controller", "meta_controller")):
            value = getattr(contender, block)
            if value is None:
                continue
            name = value.get("type")
            if not isinstance(name, str) or name not in registry.entries[kind]:
                document, prefix = places[label]
                problems.append(document.problem(prefix + (block, "type"), registry.unknown_message(kind, str(name))))
    return problems


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


def _plan(document: LocatedDocument, place: Place, board: Board, label: str, rule: str, index: int,
          registry: Registry) -> CellPlan | list[Problem]:
    """The validated spec and key of a cell, or its problems placed where the agent or the board wrote them."""
    data = cell_data(board, label, rule)
    own = {key for key in ("agent", "meta_controller", "budget", "trials", "backend")
           if getattr(board.agents[label], key) is not None}
    entry, prefix = place
    marks: dict[Loc, tuple[int, int]] = {}
    for loc, position in entry.marks.items():
        if loc[:len(prefix)] == prefix and len(loc) > len(prefix) and loc[len(prefix)] in own:
            marks[loc[len(prefix):]] = position
    for loc, position in document.marks.items():
        if loc and loc[0] in data and loc[0] not in own and loc[0] != "name":
            marks.setdefault(loc, position)
    if ("rules", index) in document.marks:
        marks[("env", "rule")] = document.marks[("rules", index)]
    try:
        spec = parse_spec(LocatedDocument(data, document.source, marks), registry)
    except SpecError as exc:
        # a problem in the agent's own blocks is that agent's; one in the board's blocks is the same for every cell
        problems = []
        for p in exc.problems:
            if p.field and p.field.split(".")[0] in own:
                field = ".".join(map(str, prefix + (p.field,)))
                problems.append(Problem(p.message, entry.source, p.line, p.column, field))
            else:
                problems.append(p)
        return problems
    return CellPlan(label, rule, spec, cell_key(spec, rule, registry))


def cell_key(spec: SpecBase, rule: str, registry: Registry) -> str:
    """A content hash of what a cell's results depend on: the resolved spec (without its name and
    description), the rule file's text, the zoo's version and the versions of the plugins it uses (and,
    for recorded play, the transcripts)."""
    resolved = spec.model_dump(mode="json")
    for key in ("name", "description"):
        resolved.pop(key, None)
    resolved.get("logging", {}).pop("progress", None)
    plugins = {}
    for block, kind in (("env", "env"), ("agent", "agent"), ("meta_controller", "meta_controller")):
        if getattr(spec, block) is not None:
            plugin = registry.get(kind, getattr(spec, block).type).plugin
            plugins[plugin] = registry.plugins[plugin].version if plugin in registry.plugins else None
    path = rule_file(rule, registry)
    content = {
        "spec": resolved, "zoo": __version__, "plugins": plugins,
        "rule_sha256": hashlib.sha256(path.read_bytes()).hexdigest() if path else None,
    }
    if is_recorded(spec):  # people's play: the transcripts are the results
        content["recorded"] = recorded_key(spec, rule, path.read_bytes() if path else None)
    return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()
