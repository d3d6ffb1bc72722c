"""What every kind of board shares: its agent entries, the planning of each cell's run spec, and cell keys.

A board is agents (columns) x tasks (rows); each (agent, task) cell is an ordinary run whose spec the
board builds from the agent's entry and the task. Each kind of board (``zoo_board.kinds``) says what
its tasks are and how its cells are scored; this module checks the agent entries, validates every
cell's spec with its problems placed where the board (or an ``--agent`` file) wrote them, and hashes
what a cell's results depend on into its cache key.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from zoo import (
    Loc,
    LocatedDocument,
    Problem,
    Registry,
    SpecBase,
    SpecError,
    ZooError,
    __version__,
    did_you_mean,
    parse_spec,
    preflight,
)

NAME = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,59}$"

#: the blocks of a cell's spec that an agent entry may set for itself
OWN_BLOCKS = ("agent", "meta_controller", "budget", "trials", "backend")


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Contender(Strict):
    """One column of the board: an agent block and what it may change of the board's defaults."""

    agent: dict[str, Any] = Field(description="the agent block of a run spec (type and params)")
    meta_controller: dict[str, Any] | None = Field(default=None, description="a meta-controller block")
    budget: dict[str, Any] | None = Field(default=None, description="this agent's budget (default: the board's)")
    trials: int | None = Field(default=None, ge=1, le=100_000,
                               description="trials per cell, or for recorded play (agent human) the fewest players "
                                           "a cell is scored with (default: the board's)")
    backend: dict[str, Any] | None = Field(default=None, description="merged into the board's backend")


class BoardBase(Strict):
    """What every kind of board holds besides its tasks: the agents and the defaults of every cell's spec."""

    name: str = Field(pattern=NAME)
    description: str = Field(default="", max_length=10_000)
    budget: dict[str, Any] = Field(description="every cell's budget unless an agent gives its own")
    trials: int = Field(default=5, ge=1, le=100_000, description="trials per cell unless an agent says otherwise")
    seed: int = Field(default=0, ge=0, lt=2**32)
    backend: dict[str, Any] = Field(default_factory=dict)
    logging: dict[str, Any] = Field(default_factory=lambda: {"tensorboard": False})
    agents: dict[str, Contender] = Field(min_length=1, max_length=1_000)


@dataclass
class CellPlan:
    """One (agent, task) cell: its validated spec and its cache key."""

    agent: str
    task: str
    spec: SpecBase
    key: str

    @property
    def run_name(self) -> str:
        return cell_run_name(self.spec.name, self.key)


#: where an agent entry was written: its document and the key path of the entry in it
Place = tuple[LocatedDocument, Loc]


def cell_run_name(name: str, key: str) -> str:
    """The run folder of a cell: its readable name and the first 12 hex digits of its key."""
    return f"{name}-{key[:12]}"


def with_extra_agents(document: LocatedDocument, extra_agents: dict[str, LocatedDocument] | None
                      ) -> tuple[dict, dict[str, Place]]:
    """The board's data with the ``--agent LABEL=FILE`` columns added, and where each agent entry was written."""
    data = dict(document.data)
    own_agents = data.get("agents") if isinstance(data.get("agents"), dict) else {}
    places: dict[str, Place] = {label: (document, ("agents", label)) for label in own_agents}
    if extra_agents:
        if "agents" in data and not isinstance(data["agents"], dict):
            raise SpecError([document.problem(("agents",), "agents is a mapping from labels to agent entries")])
        data["agents"] = dict(own_agents)
        for label, fragment in extra_agents.items():
            if label in data["agents"]:
                raise SpecError([Problem(f"agent '{label}' is already on the board; choose another label",
                                         str(document.source))])
            data["agents"][label] = fragment.data
            places[label] = (fragment, ())
    return data, places


def placed_problem(document: LocatedDocument, error: dict,
                   model_at: Callable[[Loc], type[BaseModel] | None]) -> Problem:
    """A pydantic error of a board (or of an agent entry's file) at its place; `model_at` names the model
    that holds a key path, for the valid fields of an unknown one."""
    loc = tuple(error["loc"])
    if error["type"] == "extra_forbidden":
        parent = model_at(loc[:-1])
        valid = sorted(parent.model_fields) if parent else []
        return document.problem(loc, f"unknown field '{loc[-1]}'{did_you_mean(str(loc[-1]), valid)}; "
                                     f"valid fields: {', '.join(valid)}")
    if error["type"] == "missing":
        return document.problem(loc, "required field is missing")
    return document.problem(loc, error["msg"].removeprefix("Value error, "))


def agent_problems(places: dict[str, Place], agents: dict[str, Contender], registry: Registry) -> list[Problem]:
    """Agent labels that are no names, and agents or meta-controllers the installed plugins do not register."""
    problems = []
    for label, contender in agents.items():
        document, prefix = places[label]
        if not re.fullmatch(NAME, label):
            problems.append(document.problem(prefix, "an agent label is 1 to 60 letters, digits, '.', '_' or '-'"))
        for block, kind in (("agent", "agent"), ("meta_controller", "meta_controller")):
            value = getattr(contender, block)
            if value is None:
                continue
            name = value.get("type")
            if not isinstance(name, str) or name not in registry.entries[kind]:
                problems.append(document.problem(prefix + (block, "type"), registry.unknown_message(kind, str(name))))
    return problems


def plan_cell(document: LocatedDocument, place: Place, contender: Contender, data: dict[str, Any],
              task_marks: dict[Loc, tuple[int, int]], registry: Registry, *, agent: str, task: str,
              key_extra: Callable[[SpecBase], dict[str, Any]] = lambda spec: {}) -> CellPlan | list[Problem]:
    """The validated spec and key of a cell, or its problems placed where the agent or the board wrote them.

    `data` is the cell's spec as plain data; `task_marks` places the keys that come from the task's entry
    (e.g. ``("env", "rule")``); `key_extra` adds to the cell key what else its results depend on.
    """
    own = {key for key in OWN_BLOCKS if getattr(contender, key) is not None}
    entry, prefix = place
    marks: dict[Loc, tuple[int, int]] = {}
    for loc, position in entry.marks.items():
        if loc[:len(prefix)] == prefix and len(loc) > len(prefix) and loc[len(prefix)] in own:
            marks[loc[len(prefix):]] = position
    for loc, position in document.marks.items():
        if loc and loc[0] in data and loc[0] not in own and loc[0] != "name":
            marks.setdefault(loc, position)
    marks.update(task_marks)
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
    return CellPlan(agent, task, spec, cell_key(spec, registry, key_extra(spec)))


def raise_problems(cells: list[CellPlan | list[Problem]]) -> list[CellPlan]:
    """The cells, once none of them has a problem (each problem is reported once)."""
    found = list(dict.fromkeys(p for cell in cells if isinstance(cell, list) for p in cell))
    if found:
        raise SpecError(found)
    return cells


def cell_key(spec: SpecBase, registry: Registry, extra: dict[str, Any]) -> str:
    """A content hash of what a cell's results depend on: the resolved spec (without its name and
    description), the zoo's version, the versions of the plugins it uses, and `extra` (the kind's own:
    e.g. a rule file's text)."""
    resolved = spec.model_dump(mode="json")
    for key in ("name", "description"):
        resolved.pop(key, None)
    resolved.get("logging", {}).pop("progress", None)
    plugins = {}
    for block, kind in (("env", "env"), ("agent", "agent"), ("meta_controller", "meta_controller")):
        if getattr(spec, block) is not None:
            plugin = registry.get(kind, getattr(spec, block).type).plugin
            plugins[plugin] = registry.plugins[plugin].version if plugin in registry.plugins else None
    content = {"spec": resolved, "zoo": __version__, "plugins": plugins, **extra}
    return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()


def spec_link(plan: CellPlan) -> str:
    """Where the published board keeps a copy of the cell's spec, relative to its pages."""
    return f"specs/{plan.run_name}.yaml"


def publish_specs(plans: list[CellPlan], runs_dir: Path, out: Path) -> None:
    """Copy every cell's spec beside the published pages (``specs/RUN.yaml``), so that each cell's link works
    wherever the pages are copied to without its run folder (checkpoints are not published). A cell that has
    no run folder yet gets the spec it will run with."""
    import yaml

    from zoo import atomic_write_text

    (out / "specs").mkdir(parents=True, exist_ok=True)
    for plan in plans:
        source = Path(runs_dir) / plan.run_name / "spec.yaml"
        text = source.read_text(encoding="utf-8") if source.is_file() else \
            yaml.safe_dump(plan.spec.model_dump(mode="json"), sort_keys=False)
        atomic_write_text(out / spec_link(plan), text)


def validated(loaded, registry: Registry, build: bool, rows: str) -> str:
    """``zoo validate``'s line for a loaded board (any kind, its rows called `rows`); with `build`, every cell's
    env, agent and meta-controller are built once first, as ``zoo train`` does."""
    if build:
        for cell in loaded.cells:
            try:
                preflight(cell.spec, registry)
            except ZooError as exc:
                raise ZooError(f"cell {cell.agent} x {cell.task}: {exc}") from exc
    count = len({cell.task for cell in loaded.cells})
    return (f"{loaded.board.name}: {len(loaded.board.agents)} agents x {count} {rows} = "
            f"{len(loaded.cells)} cells{', built' if build else ''}")
