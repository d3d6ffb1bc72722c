"""Where human play is kept: one transcript file per finished episode, in the golden-transcript format.

A store folder holds::

    rules/<rule name>.txt                             a copy of every rule played (the transcripts' rules root)
    transcripts/<player>/<stage>-<rule>-<episode>.jsonl   one finished episode (one JSON line)
    progress/<player>.json                            the moves of the board a player is on (until it ends)
    participants/<player>.json                        consent, rule order and answers (see ``participants``)
    withdrawals.json                                  the players who withdrew (never read again)

An episode line has the fields ``zoo gohr conformance`` replays (``rules``, ``cgs_args``, ``episode``,
``initial``, ``steps``, ``final_finish``) with the board stream's seed in ``cgs_args``, plus ``player``,
``rule``, ``stage``, ``max_moves`` (the cut of the board), ``practice`` (a practice board, left out of
scores) and times. Every file is written atomically (a temporary file, fsync, rename): a move counts
once the board's progress file (or, for the move that ends a board, its transcript) is on disk, so a
crash or a full disk keeps every counted move and never leaves half of a record, and
``zoo gohr conformance --rules-root STORE STORE/transcripts`` replays everything.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from zoo import ZooError, atomic_write_text

PLAYER_ID = re.compile(r"[A-Za-z0-9_.-]{1,64}")
#: the fields of a stored episode that sessions, runs and leaderboards read
TRANSCRIPT_FIELDS = frozenset({"player", "rule", "stage", "episode", "cgs_args", "steps", "n_moves", "n_accepted"})


def valid_player(player: str) -> bool:
    return bool(PLAYER_ID.fullmatch(player)) and player not in (".", "..")


def rule_copy_path(rule: str) -> str:
    """Where a rule's copy lives in the store, relative to it: ``paper/clockwise`` -> ``rules/paper/clockwise.txt``;
    a rule given as a file path keeps only its name (``rules/file/NAME.txt``)."""
    from ..named_rules import rule_sets

    head, _, rest = rule.partition("/")
    if head in rule_sets() and rest and not rule.endswith(".txt"):
        return f"rules/{rule}.txt"
    return f"rules/file/{Path(rule).name}"


class TranscriptStore:
    """A store folder (created if missing)."""

    def __init__(self, root: Path):
        self.root = Path(root)
        try:
            (self.root / "transcripts").mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ZooError(f"{self.root}: cannot create the transcript store ({exc})") from None

    def add_rule(self, rule: str) -> str:
        """Copy a rule into the store (once); returns its path relative to the store. A different file already
        stored under that name is an error: transcripts must replay under the rule that was played."""
        from ..named_rules import resolve_rule

        source = resolve_rule(rule)
        relative = rule_copy_path(rule)
        target = self.root / relative
        if target.exists():
            if target.read_bytes() != source.read_bytes():
                raise ZooError(f"{target}: the store already holds a different rule under this name "
                               f"(from an earlier experiment); use a new --store folder")
            return relative
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(target.name + ".tmp")
        shutil.copyfile(source, tmp)
        tmp.replace(target)
        return relative

    def episode_path(self, player: str, stage: int, rule: str, episode: int) -> Path:
        slug = re.sub(r"[^A-Za-z0-9_-]+", "_", rule).strip("_")
        return self.root / "transcripts" / player / f"{stage:02d}-{slug}-{episode:04d}.jsonl"

    def save(self, record: dict[str, Any]) -> Path:
        """Write one finished episode atomically."""
        path = self.episode_path(record["player"], record["stage"], record["rule"], record["episode"])
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps(record, sort_keys=True) + "\n")
        return path

    def progress_path(self, player: str) -> Path:
        return self.root / "progress" / f"{player}.json"

    def save_progress(self, player: str, progress: dict[str, Any]) -> None:
        """Write the moves of the board `player` is on atomically (replacing the last write)."""
        path = self.progress_path(player)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps(progress, sort_keys=True) + "\n")

    def progress(self, player: str) -> dict[str, Any] | None:
        """The board `player` was on when last written, or None."""
        path = self.progress_path(player)
        if not path.is_file():
            return None
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ZooError(f"{path}: not a readable progress file ({exc})") from None

    def clear_progress(self, player: str) -> None:
        """Forget the board in play (once its transcript is stored; a stale file is ignored anyway)."""
        self.progress_path(player).unlink(missing_ok=True)

    def remove_player(self, player: str) -> None:
        """Delete everything of `player` the store holds (their transcripts and their board in play)."""
        folder = self.root / "transcripts" / player
        if folder.exists():
            shutil.rmtree(folder)
        self.clear_progress(player)

    @property
    def withdrawals_path(self) -> Path:
        return self.root / "withdrawals.json"

    def withdrawn(self) -> dict[str, str]:
        """The players who withdrew (and when): their episodes are never read, even where a withdrawal
        was interrupted before their files were deleted."""
        if not self.withdrawals_path.is_file():
            return {}
        try:
            withdrawn = json.loads(self.withdrawals_path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ZooError(f"{self.withdrawals_path}: not readable ({exc})") from None
        if not isinstance(withdrawn, dict):
            raise ZooError(f"{self.withdrawals_path}: damaged, not a mapping of player ids")
        return withdrawn

    def episodes(self, player: str | None = None) -> Iterator[dict[str, Any]]:
        """Every stored episode (of one player), in player, stage and episode order; withdrawn players left out."""
        withdrawn = self.withdrawn()
        folders = [self.root / "transcripts" / player] if player else sorted((self.root / "transcripts").iterdir())
        for folder in folders:
            if folder.name in withdrawn:
                continue
            for path in sorted(folder.glob("*.jsonl")) if folder.is_dir() else []:
                try:
                    record = json.loads(path.read_text(encoding="utf-8"))
                except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
                    raise ZooError(f"{path}: not a readable transcript ({exc})") from None
                if not isinstance(record, dict) or not TRANSCRIPT_FIELDS <= record.keys():
                    raise ZooError(f"{path}: not a transcript of 'zoo gohr serve' (it needs the fields "
                                   f"{', '.join(sorted(TRANSCRIPT_FIELDS))})")
                yield record
