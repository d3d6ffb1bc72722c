"""One player's progress through an experiment: the game in play, its transcript, the stored episodes.

The server is the only judge: :meth:`PlayerSession.view` is everything the browser learns (pieces
with their shape, color and cell; counts of moves and errors; this board's moves), never the rule
or the buckets a piece may go to.

A move counts only once it is on disk: the board's moves so far go to the store's progress file
(the move that ends a board, to the board's transcript) before the move is answered. When that write
fails, the game is put back as it was before the move and :class:`NotStored` is raised.
"""

from __future__ import annotations

import secrets
import time
from datetime import UTC, datetime
from typing import Any

from zoo import ZooError

from ..engine.conformance import generator_from_cgs_args
from ..engine.game import Code, Finish, Game
from .experiment import Stage
from .store import TranscriptStore


class BadMove(ValueError):
    """A move the server refuses to judge (no such piece, no such bucket, nothing left to play)."""


class NotStored(RuntimeError):
    """A move the store could not write; the session is as it was before the move."""


def _state(game: Game, code: int, accepted: bool) -> dict[str, Any]:
    """A transcript line's judged fields, as the golden transcripts have them."""
    return {"code": int(code), "accepted": bool(accepted), "finish": int(game.finish), "attempts": game.attempts,
            "board": game.board_json()}


class PlayerSession:
    """A player's stages, played in order; finished episodes go to the store as they end.

    A player who comes back (after a server restart, say) continues where the store says they were:
    after the last stored episode, on the same board stream, with the moves of the board in play.
    A board no piece can leave is stored as a zero-move episode by :meth:`settle`, which the caller
    runs before it shows the board.
    """

    def __init__(self, player: str, stages: list[Stage], store: TranscriptStore, rule_paths: dict[str, str],
                 seed: int | None = None):
        self.player, self.stages, self.store, self.rule_paths = player, stages, store, rule_paths
        self._seed = seed  # of every stage's board stream (default: a random one per stage)
        stored = [record for record in store.episodes(player)  # of this experiment's stages only
                  if record["stage"] < len(stages) and record["rule"] == stages[record["stage"]].rule]
        self._seeds = {record["stage"]: int(record["cgs_args"][-1].split("=")[1]) for record in stored}
        done = {(record["stage"], record["episode"]) for record in stored}
        self.totals = {"moves": sum(r["n_moves"] for r in stored),
                       "errors": sum(r["n_moves"] - r["n_accepted"] for r in stored)}
        self.stage, self.episode = 0, 0
        while self.stage < len(stages) and (self.stage, self.episode) in done:
            self._advance()
        progress = store.progress(player)
        if progress is not None and (progress.get("stage"), progress.get("episode")) == (self.stage, self.episode):
            self._seeds.setdefault(self.stage, int(progress["cgs_args"][-1].split("=")[1]))
        self.game: Game | None = None
        self._start_stream()
        self._resume(progress)

    @property
    def finished(self) -> bool:
        return self.stage >= len(self.stages)

    def _advance(self) -> None:
        self.episode += 1
        if self.episode >= self.stages[self.stage].boards:
            self.stage, self.episode = self.stage + 1, 0

    def _cgs_args(self) -> list[str]:
        stage = self.stages[self.stage]
        seed = self._seeds.setdefault(self.stage, self._seed or secrets.randbelow(2**31 - 1) + 1)
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

        self._rules = load_named_rules(self.stages[self.stage].rule)
        self._pieces = list(self._boards.next_board().pieces)
        self.game = Game(self._rules, self._pieces)
        self._initial = _state(self.game, Code.STALEMATE if self.game.game_over else Code.NEW_GAME, False)
        self._steps: list[dict[str, Any]] = []
        self._started = time.monotonic()
        self._started_at = datetime.now(UTC).isoformat(timespec="seconds")

    def _replay(self, steps: list[dict[str, Any]]) -> None:
        """The current board's game after `steps` (judged again, from the board's first position)."""
        self.game = Game(self._rules, self._pieces)
        for step in steps:
            self.game.move(step["move"]["id"], step["move"]["bucket"])
        self._steps = steps

    def _resume(self, progress: dict[str, Any] | None) -> None:
        """Replay the stored moves of the board in play (a progress file of another board is stale: ignored)."""
        if self.finished or progress is None or (progress.get("stage"), progress.get("episode"),
                                                 progress.get("cgs_args")) != (self.stage, self.episode,
                                                                               self._cgs_args()):
            return
        self._replay(progress["steps"])
        if self._steps:
            self._started -= self._steps[-1]["ms"] / 1000
            self._started_at = progress.get("started", self._started_at)

    def move(self, piece_id: Any, bucket: Any) -> dict[str, Any]:
        """Judge a move and store it; returns ``accepted`` and, when it ended the board, ``board_over``
        (moves, errors). Raises :class:`BadMove` for a move that cannot be judged and :class:`NotStored`
        when the store cannot write it (then nothing has changed)."""
        if self.finished:
            raise BadMove("the experiment is over for this player; nothing is left to play")
        if self.game.game_over:
            raise BadMove("no piece can leave this board; it is stored as it is and the next one follows")
        if type(bucket) is not int or not 0 <= bucket <= 3:
            raise BadMove("bucket must be an integer 0..3 (0 top-left, 1 top-right, 2 bottom-right, 3 bottom-left)")
        if type(piece_id) is not int or self.game.piece(piece_id) is None:
            raise BadMove(f"no piece {piece_id!r} on the board; pieces: {sorted(p.id for p in self.game.pieces())}")
        before = list(self._steps)
        result = self.game.move(piece_id, bucket)
        step = {"move": {"id": piece_id, "bucket": bucket}, **_state(self.game, result.code, result.accepted),
                "ms": round(1000 * (time.monotonic() - self._started))}
        self._steps = [*before, step]
        ends = self.game.finish != Finish.NO or len(self._steps) >= self.stages[self.stage].max_moves
        try:
            if ends:
                self.store.save(self._record())
            else:
                self.store.save_progress(self.player, {"stage": self.stage, "episode": self.episode,
                                                       "cgs_args": self._cgs_args(), "started": self._started_at,
                                                       "steps": self._steps})
        except (OSError, ZooError) as exc:
            self._replay(before)
            raise NotStored(f"your move could not be saved ({getattr(exc, 'strerror', None) or exc}); "
                            "it was not counted: please try again, or tell the researcher") from exc
        outcome: dict[str, Any] = {"accepted": bool(result.accepted)}
        if ends:
            outcome["board_over"] = self._end_episode()
            try:
                self.settle()
            except NotStored:
                pass  # this move is stored; the next request stores the boards no piece can leave, or says why not
        return outcome

    def settle(self) -> bool:
        """Store the boards in play that no piece can leave (zero-move episodes) and move past them; True when
        there were any. Raises :class:`NotStored` (the session unchanged) when one cannot be written."""
        settled = False
        while not self.finished and self.game.game_over and not self._steps:
            try:
                self.store.save(self._record())
            except (OSError, ZooError) as exc:
                raise NotStored(f"your next board could not be saved ({getattr(exc, 'strerror', None) or exc}); "
                                "please try again in a moment, or tell the researcher") from exc
            self._end_episode()
            settled = True
        return settled

    def _record(self) -> dict[str, Any]:
        """The transcript of the board in play."""
        stage = self.stages[self.stage]
        return {"player": self.player, "rule": stage.rule, "stage": self.stage, "practice": stage.practice,
                "rules": self.rule_paths[stage.rule], "cgs_args": self._cgs_args(),
                "episode": self.episode, "initial": self._initial, "steps": self._steps,
                "final_finish": int(self.game.finish), "n_moves": len(self._steps),
                "n_accepted": sum(step["accepted"] for step in self._steps), "max_moves": stage.max_moves,
                "started": self._started_at, "seconds": round(time.monotonic() - self._started, 3)}

    def _end_episode(self) -> dict[str, int]:
        """Move on to the next board (or stage) after the board in play was stored."""
        moves = len(self._steps)
        accepted = sum(step["accepted"] for step in self._steps)
        try:
            self.store.clear_progress(self.player)
        except OSError:
            pass  # a stale progress file is ignored on resume
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

    def _history_entry(self, step: dict[str, Any]) -> dict[str, Any]:
        """A move as the page lists it: the piece as it was seen, the bucket, the verdict."""
        piece = next(p for p in self._pieces if p.id == step["move"]["id"])
        return {"shape": piece.shape, "color": piece.color, "x": piece.x, "y": piece.y,
                "bucket": step["move"]["bucket"], "accepted": step["accepted"]}

    def view(self) -> dict[str, Any]:
        """What the browser may know: the pieces as seen, where the player is, the counts so far."""
        view: dict[str, Any] = {"player": self.player, "finished": self.finished, "stages": len(self.stages),
                                "total_moves": self.totals["moves"], "total_errors": self.totals["errors"]}
        if not self.finished:
            view.update(stage=self.stage + 1, board=self.episode + 1, boards=self.stages[self.stage].boards,
                        practice=self.stages[self.stage].practice,
                        moves=len(self._steps), errors=sum(not step["accepted"] for step in self._steps),
                        history=[self._history_entry(step) for step in self._steps],
                        pieces=[{"id": p.id, "x": p.x, "y": p.y, "shape": p.shape, "color": p.color}
                                for p in self.game.pieces()])
        return view
