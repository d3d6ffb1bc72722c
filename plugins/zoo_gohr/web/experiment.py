"""What a player plays: a sequence of stages, each a hidden rule on a number of fresh boards.

The experimenter gives either a rule list (rule names, or a text file of them, one a line, with an
optional board count after the name) or a trial list in the authors' CSV format (``rule_id``,
``max_boards`` and the six board ranges ``min_objects`` ... ``max_colors``; the other columns of the
authors' files, points and bonuses, are read and ignored).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from zoo import ZooError

BOARD_COLUMNS = ("min_objects", "max_objects", "min_shapes", "max_shapes", "min_colors", "max_colors")
MAX_BOARDS = 1000


@dataclass(frozen=True)
class Stage:
    """One rule played on ``boards`` fresh boards, each cut at ``max_moves`` moves (``practice``: a practice
    board, kept but left out of scores)."""

    rule: str
    boards: int
    board_ranges: tuple[int, int, int, int, int, int]  # min/max objects, shapes, colors
    max_moves: int
    practice: bool = False

    def cgs_board_args(self) -> list[str]:
        """The board part of the CGS arguments (``objects shapes colors`` as ``a:b`` ranges)."""
        o1, o2, s1, s2, c1, c2 = self.board_ranges
        return [f"{o1}:{o2}", f"{s1}:{s2}", f"{c1}:{c2}"]


def _stage(rule: str, boards: int, board: dict, max_moves: int, where: str) -> Stage:
    """A checked stage: the rule parses, the board settings are valid, the counts are in range."""
    from ..named_rules import load_named_rules
    from ..params import BoardParams

    try:
        load_named_rules(rule)
    except (ValueError, OSError) as exc:
        raise ZooError(f"{where}: {exc}") from None
    except Exception as exc:  # a rule file with an error: RuleSyntaxError names its line
        raise ZooError(f"{where}: rule '{rule}': {exc}") from None
    if not 1 <= boards <= MAX_BOARDS:
        raise ZooError(f"{where}: {boards} boards; give 1 to {MAX_BOARDS}")
    try:
        params = BoardParams(**board)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise ZooError(f"{where}: board settings: {problems}") from None
    ranges = (params.min_objects, params.max_objects or params.min_objects,
              params.min_shapes, params.max_shapes if params.max_shapes is not None else params.min_shapes,
              params.min_colors, params.max_colors if params.max_colors is not None else params.min_colors)
    if ranges[0] < max(ranges[3], ranges[5]):  # the generator gives every one of the shapes and colors a piece
        raise ZooError(f"{where}: board settings: {ranges[0]} pieces cannot show {ranges[3]} shapes and "
                       f"{ranges[5]} colors; give min_objects of at least {max(ranges[3], ranges[5])} or fewer "
                       "shapes and colors")
    return Stage(rule, boards, ranges, max_moves)


def rule_list(entries: list[str], *, boards: int, pieces: int, max_moves: int, where: str = "--rules") -> list[Stage]:
    """Stages from rule names (``RULE`` or ``RULE BOARDS``), each on ``pieces`` pieces of 4 shapes and 4 colors."""
    stages = []
    for number, entry in enumerate(entries, 1):
        name, *count = entry.split()
        if len(count) > 1 or (count and not count[0].isdigit()):
            raise ZooError(f"{where} entry {number} ('{entry}'): expected 'RULE' or 'RULE BOARDS'")
        stages.append(_stage(name, int(count[0]) if count else boards,
                             {"min_objects": pieces, "max_objects": pieces}, max_moves, f"{where} entry {number}"))
    if not stages:
        raise ZooError(f"{where}: no rules given")
    return stages


def read_rule_list(path: Path, **settings) -> list[Stage]:
    """Stages from a text file of rule names, one a line (``#`` starts a comment)."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ZooError(f"{path}: cannot read the rule list ({exc})") from None
    entries = [line.split("#", 1)[0].strip() for line in lines]
    return rule_list([e for e in entries if e], where=str(path), **settings)


def read_trial_list(path: Path, *, max_moves: int) -> list[Stage]:
    """Stages from a trial list in the authors' CSV format, one per row."""
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise ZooError(f"{path}: cannot read the trial list ({exc})") from None
    if not rows or "rule_id" not in rows[0] or "max_boards" not in rows[0]:
        raise ZooError(f"{path}: a trial list needs a header with rule_id, max_boards and, optionally, "
                       f"{', '.join(BOARD_COLUMNS)}")
    stages = []
    for line, row in enumerate(rows, 2):
        where = f"{path}:{line}"
        try:
            boards = int(row["max_boards"])
            board = {key: int(row[key]) for key in BOARD_COLUMNS if (row.get(key) or "").strip()}
        except ValueError as exc:
            raise ZooError(f"{where}: max_boards and the board columns must be integers ({exc})") from None
        stages.append(_stage(row["rule_id"].strip(), boards, board, max_moves, where))
    return stages
