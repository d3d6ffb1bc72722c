"""Finished cells read back for scoring: a finished run that cannot be scored is shown as damaged, not dropped."""

from types import SimpleNamespace

from zoo_board.cells import CellState, read_finished

from zoo import ZooError


def state(agent, task, kind, tmp_path):
    return CellState(SimpleNamespace(agent=agent, task=task), tmp_path / f"{agent}-{task}", kind, "finished")


def test_only_cached_cells_are_read_and_an_unreadable_one_is_marked_damaged(tmp_path):
    states = [state("a", "t1", "cached", tmp_path), state("a", "t2", "cached", tmp_path),
              state("b", "t1", "resume", tmp_path)]
    read = []

    def read_cell(run, agent, task):
        read.append((agent, task))
        if task == "t2":
            raise ZooError("a trial finished no episode within the budget")
        return f"cell {agent} {task}"

    cells = read_finished(states, read_cell)
    assert cells == {("a", "t1"): "cell a t1"}
    assert read == [("a", "t1"), ("a", "t2")]  # the unfinished cell is never read
    assert (states[1].status, states[1].error) == ("damaged", "a trial finished no episode within the budget")
    assert states[0].status == "finished" and states[2].status == "finished"
