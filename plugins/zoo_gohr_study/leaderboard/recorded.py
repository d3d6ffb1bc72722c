"""Board columns of recorded play: cells of the agent ``human`` are read from a transcript store, not trained.

Every player who played a cell's rule on the board's board settings and horizon is one trial of the
cell. The cell's run folder is written from the transcripts (:func:`zoo_gohr.web.runs.write_human_run`)
with the cell's spec, so the cell is cached, read and scored exactly as a trained one (its budget cuts
the players' boards as it cuts an agent's episodes). A cell needs at least the column's ``trials``
players; with fewer it is shown as "too few trials" and takes no part in the comparisons. The cell
key covers the transcripts, so new players make the cell again.
"""

from __future__ import annotations

from pathlib import Path

from zoo_board.cells import Recorded
from zoo_gohr.web.recorded import HUMAN, recorded_digest, recorded_trials

from zoo import SpecBase, ZooError


def is_recorded(spec: SpecBase) -> bool:
    return spec.agent.type == HUMAN


def recorded_key(spec: SpecBase, rule: str, rule_text: bytes | None) -> str:
    """The part of a recorded cell's key that its transcripts contribute."""
    return recorded_digest(spec.agent, rule, rule_text, spec.env.board.model_dump(), spec.env.horizon)


def players(spec: SpecBase, rule: str) -> dict[str, list[dict]]:
    """The cell's trials: player -> their boards of the rule, in the order played."""
    return recorded_trials(spec.agent, rule, spec.env.board.model_dump(), spec.env.horizon)


def shortfall(spec: SpecBase, rule: str) -> str | None:
    """Why a recorded cell cannot be scored yet, or None when enough players played its rule."""
    found = len(players(spec, rule))
    if found >= spec.trials:
        return None
    return (f"{found} player(s) played {rule} on these board settings and horizon; the column asks for at least "
            f"{spec.trials} (its 'trials')")


def write_cell(spec: SpecBase, rule: str, folder: Path) -> str:
    """Write a recorded cell's run folder from its transcripts; returns its status ('finished')."""
    from zoo_gohr.web.runs import write_human_run

    if folder.exists():
        raise ZooError(f"{folder}: the run folder of a recorded cell is damaged; delete it to write it again")
    write_human_run(folder, spec.model_dump(mode="json"), players(spec, rule))
    return "finished"


#: the board's cells of recorded play, for zoo_board's cell runner
RECORDED = Recorded(applies=lambda plan: is_recorded(plan.spec), shortfall=lambda plan: shortfall(plan.spec, plan.task),
                    write=lambda plan, folder: write_cell(plan.spec, plan.task, folder))
