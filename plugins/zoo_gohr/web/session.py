"""One player's progress through an experiment: the game in play, its transcript, the stored episodes.

The server is the only judge: :meth:`PlayerSession.view` is everything the browser learns (pieces
with their shape, color and cell; counts of moves and errors), never the rule or the buckets a
piece may go to.
"""

from __future__ import annotations

import secrets
import time
from datetime import UTC, datetime
from typing import Any

from ..engine.conformance import generator_from_cgs_args
from ..engine.game import Code, Finish, Game
from .experiment import Stage
from .store import TranscriptStore


class BadMove(ValueError):
    """A move the server refuses to judge (no such piece, no such bucket, nothing left to play)."""


def _state(game: Game, code: int, accepted: bool) -> dict[str, Any]:
    """A transcript line's judged fields, as the golden transcripts have them."""
    return {"code": int(code), "accepted": bool(accepted), "finish": int(game.finish), "attempts": game.attempts,
            "board": game.board_json()}


class PlayerSession:
    """A player's stages, played in order; finished episodes go to the store as they end.

    A player who comes back (after a server restart, say) continues after the last stored episode,
    on the same board stream.
    """

    def __init__(self, player: str, stages: list[Stage], store: TranscriptStore, rule_paths: dict[str, str]):
        self.player, self.stages, self.store, self.rule_paths = player, stages, store, rule_paths
        stored = [record for record in store.episodes(player)  # of this experiment's stages only
                  if record["stage"] < len(stages) and record["rule"] == stages[record["stage"]].rule]
        self._seeds = {record["stage"]: int(record["cgs_args"][-1].split("=")[1]) for record in stored}
        done = {(record["stage"], record["episode"]) for record in stored}
        self.totals = {"moves": sum(r["n_moves"] for r in stored),
                       "errors": sum(r["n_moves"] - r["n_accepted"] for r in stored)}
        self.stage, self.episode = 0, 0
        while self.stage < len(stages) and (self.stage, self.episode) in done:
            self._advance()
        self.game: Game | None = None
        self._start_stream()

    @property
    def finished(self) -> bool:
        return self.stage >= len(self.stages)

    def _advance(self) -> None:
        self.episode += 1
        if self.episode >= self.stages[self.stage].boards:
            self.stage, self.episode = self.stage + 1, 0

    def _cgs_args(self) -> list[str]:
        stage = self.stages[self.stage]
        seed = self._seeds.setdefault(self.stage, secrets.randbelow(2**31 - 1) + 1)
        return [self.rule_paths[stage.rule], *stage.cgs_board_args(), f"seed={seed}"]

    def _start_stream(self) -> None:
        """The board stream of the current stage, advanced to the current episode's board."""
        if self.finished:
            return
        self._boards = generator_from_cgs_args(self._cgs_args()[1:])
        for _ in range(self.episode):
            self._boards.next_board()
        self._new_board()

    def _new_board(self) -> None:
        from ..named_rules import load_named_rules

        self.game = Game(load_named_rules(self.stages[self.stage].rule), self._boards.next_board())
        self._initial = _state(self.game, Code.STALEMATE if self.game.game_over else Code.NEW_GAME, False)
        self._steps: list[dict[str, Any]] = []
        self._started = time.monotonic()
        self._started_at = datetime.now(UTC).isoformat(timespec="seconds")
        if self.game.game_over:  # a board no piece can leave: stored as a zero-move episode
            self._end_episode()

    def move(self, piece_id: Any, bucket: Any) -> dict[str, Any]:
        """Judge a move; returns ``accepted`` and, when it ended the board, ``board_over`` (moves, errors)."""
        if self.finished:
            raise BadMove("the experiment is over for this player; nothing is left to play")
        if type(bucket) is not int or not 0 <= bucket <= 3:
            raise BadMove("bucket must be an integer 0..3 (0 top-left, 1 top-right, 2 bottom-right, 3 bottom-left)")
        if type(piece_id) is not int or self.game.piece(piece_id) is None:
            raise BadMove(f"no piece {piece_id!r} on the board; pieces: {sorted(p.id for p in self.game.pieces())}")
        result = self.game.move(piece_id, bucket)
        step = {"move": {"id": piece_id, "bucket": bucket}, **_state(self.game, result.code, result.accepted),
                "ms": round(1000 * (time.monotonic() - self._started))}
        self._steps.append(step)
        outcome: dict[str, Any] = {"accepted": bool(result.accepted)}
        if self.game.finish != Finish.NO or len(self._steps) >= self.stages[self.stage].max_moves:
            outcome["board_over"] = self._end_episode()
        return outcome

    def _end_episode(self) -> dict[str, int]:
        """Store the episode, then move on to the next board (or stage)."""
        moves = len(self._steps)
        accepted = sum(step["accepted"] for step in self._steps)
        self.store.save({
            "player": self.player, "rule": self.stages[self.stage].rule, "stage": self.stage,
            "rules": self.rule_paths[self.stages[self.stage].rule], "cgs_args": self._cgs_args(),
            "episode": self.episode, "initial": self._initial, "steps": self._steps,
            "final_finish": int(self.game.finish), "n_moves": moves, "n_accepted": accepted,
            "max_moves": self.stages[self.stage].max_moves,
            "started": self._started_at, "seconds": round(time.monotonic() - self._started, 3),
        })
        self.totals["moves"] += moves
        self.totals["errors"] += moves - accepted
        summary = {"moves": moves, "errors": moves - accepted, "cleared": self.game.finish == Finish.FINISH}
        self._advance()
        if self.finished:
            self.game = None
        elif self.episode == 0:
            self._start_stream()
        else:
            self._new_board()
        return summary

    def view(self) -> dict[str, Any]:
        """What the browser may know: the pieces as seen, where the player is, the counts so far."""
        view: dict[str, Any] = {"player": self.player, "finished": self.finished, "stages": len(self.stages),
                                "total_moves": self.totals["moves"], "total_errors": self.totals["errors"]}
        if not self.finished:
            view.update(stage=self.stage + 1, board=self.episode + 1, boards=self.stages[self.stage].boards,
                        moves=len(self._steps), errors=sum(not step["accepted"] for step in self._steps),
                        pieces=[{"id": p.id, "x": p.x, "y": p.y, "shape": p.shape, "color": p.color}
                                for p in self.game.pieces()])
        return view
