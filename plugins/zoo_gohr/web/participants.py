"""The participants of a study, kept in the store beside their transcripts.

``participants/<id>.json`` holds a participant's consent (given, time, the consent text's version),
their number and rule order, the nonce their token carries, their answers (per rule and at the end)
and when they completed; ``withdrawals.json`` lists the withdrawn ids and when;
``participant-count.json`` counts sign-ins (the numbers that pick counterbalanced orders). Every
write is atomic (a temporary file, fsync, rename): a record is the old one or the new one, never a part.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from zoo import ZooError, atomic_write_json, now, read_json

from .store import TranscriptStore, valid_player


class Participants:
    """The participant records of a store."""

    def __init__(self, store: TranscriptStore):
        self.store = store
        self.folder = store.root / "participants"
        self.folder.mkdir(parents=True, exist_ok=True)
        self.counter_path = store.root / "participant-count.json"

    def path(self, player: str) -> Path:
        return self.folder / f"{player}.json"

    def get(self, player: str) -> dict[str, Any] | None:
        path = self.path(player)
        return read_json(path, dict) if path.is_file() and player not in self.withdrawn() else None

    def all(self) -> list[dict[str, Any]]:
        """Every participant's record (a withdrawal interrupted half-way already hides its participant)."""
        withdrawn = self.withdrawn()
        return [read_json(path, dict) for path in sorted(self.folder.glob("*.json")) if path.stem not in withdrawn]

    def withdrawn(self) -> dict[str, str]:
        """Withdrawn ids and when they withdrew."""
        return self.store.withdrawn()

    def next_number(self) -> int:
        """The number of the next participant (0, 1, ...; withdrawn participants keep theirs used), counted on disk."""
        count = read_json(self.counter_path, dict)["next"] if self.counter_path.is_file() else 0
        atomic_write_json(self.counter_path, {"next": count + 1})
        return count

    def create(self, player: str, *, consent_version: str, order: list[int], number: int, nonce: str,
               study: str) -> dict[str, Any]:
        record = {"player": player, "number": number, "order": order, "nonce": nonce, "study": study,
                  "consent": {"given": True, "at": now(), "version": consent_version},
                  "answers": {}, "final": None, "completed": None}
        atomic_write_json(self.path(player), record)
        return record

    def save(self, record: dict[str, Any]) -> None:
        atomic_write_json(self.path(record["player"]), record)

    def withdraw(self, player: str) -> None:
        """Remove `player` everywhere in the store: first their withdrawal is recorded, then their data deleted
        (a withdrawal interrupted half-way is finished by running it again)."""
        if not valid_player(player):
            raise ZooError(f"not a participant id: {player!r}")
        if self.get(player) is None and not (self.store.root / "transcripts" / player).exists() \
                and player not in self.withdrawn():
            raise ZooError(f"no participant '{player}' in {self.store.root}")
        atomic_write_json(self.store.withdrawals_path, {**self.withdrawn(), player: now()})
        self.path(player).unlink(missing_ok=True)
        self.store.remove_player(player)
