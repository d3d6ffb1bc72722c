"""Replay golden transcripts of the reference server and report the first difference.

Two formats (docs/algorithms/gohr-rules.md, "Conformance"): random-game transcripts
(``*.jsonl`` / ``*.jsonl.gz``, one episode a line) and hand-made ``edge/`` cases
(``NAME.rules.txt``, ``NAME.board.json``, ``NAME.moves.txt``, ``NAME.expected.jsonl``).
"""
from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from pathlib import Path

from .board import BoardGenerator, board_from_json
from .game import Code, Game
from .parser import load_rules

_EDGE_PARTS = (".rules.txt", ".board.json", ".moves.txt", ".expected.jsonl")
#: what every line of a random-game transcript holds
TRANSCRIPT_KEYS = ("cgs_args", "episode", "initial", "steps")
#: what a transcript is, for messages
TRANSCRIPT = (f"a transcript is a .jsonl or .jsonl.gz file with one JSON object per episode ({', '.join(TRANSCRIPT_KEYS)}), "
              f"or an edge case NAME{', NAME'.join(_EDGE_PARTS)}")


class NotATranscript(ValueError):
    """A file that conformance replay cannot read as a transcript; the message names it and the line."""


@dataclass
class EpisodeOutcome:
    name: str
    episode: int
    passed: bool
    difference: str | None = None
    steps: int = 0

    def __str__(self) -> str:
        status = "PASS" if self.passed else f"FAIL: {self.difference}"
        return f"{self.name} episode {self.episode}: {status}"


class _Mismatch(Exception):
    pass


def _compare_board(where: str, expected: list[dict], got: list[dict]) -> None:
    if [p["id"] for p in expected] != [p["id"] for p in got]:
        raise _Mismatch(f"{where}: piece ids: expected {[p['id'] for p in expected]}, "
                        f"got {[p['id'] for p in got]}")
    for e, g in zip(expected, got):
        for k, v in e.items():
            if g.get(k) != v:
                raise _Mismatch(f"{where}: piece {e['id']} field {k!r}: expected {v!r}, got {g.get(k)!r}")


def _compare(where: str, expected: dict, got: dict) -> None:
    for k in ("code", "accepted", "finish", "attempts"):
        if k in expected and expected[k] != got[k]:
            raise _Mismatch(f"{where}: {k!r}: expected {expected[k]!r}, got {got[k]!r}")
    if "board" in expected:
        _compare_board(where, expected["board"], got["board"])


def _state(game: Game, code: int, accepted: bool) -> dict:
    return {"code": int(code), "accepted": accepted, "finish": int(game.finish),
            "attempts": game.attempts, "board": game.board_json()}


def _initial_state(game: Game) -> dict:
    code = Code.STALEMATE if game.game_over else Code.NEW_GAME
    return _state(game, code, False)


def _play(game: Game, move: dict) -> dict:
    b = move["bucket"]
    r = game.move_at(move["pos"], b) if "pos" in move else game.move(move["id"], b)
    return _state(game, r.code, r.accepted)


def _replay(name: str, episode: int, rules, board, initial: dict, steps: list[dict],
            final_finish: int | None = None) -> EpisodeOutcome:
    k = 0
    try:
        game = Game(rules, board)
        _compare("initial board", initial, _initial_state(game))
        for k, step in enumerate(steps, 1):
            _compare(f"step {k} (move {json.dumps(step['move'])})", step, _play(game, step["move"]))
        if final_finish is not None and final_finish != game.finish:
            raise _Mismatch(f"final finish: expected {final_finish}, got {int(game.finish)}")
    except _Mismatch as m:
        return EpisodeOutcome(name, episode, False, str(m), k)
    except Exception as exc:  # an engine crash is a failed episode, reported with its cause
        return EpisodeOutcome(name, episode, False, f"step {k}: {type(exc).__name__}: {exc}", k)
    return EpisodeOutcome(name, episode, True, None, len(steps))


def _range(arg: str) -> tuple[int, int]:
    lo, _, hi = arg.partition(":")
    return int(lo), int(hi or lo)


def generator_from_cgs_args(args: list[str]) -> BoardGenerator:
    """A board generator from CGS arguments after the rule file: ``N [S C]`` (each ``n`` or ``a:b``)
    plus ``seed=``, ``shapes=``, ``colors=``, ``crowded=`` options."""
    nums = [a for a in args if "=" not in a]
    opts = dict(a.lstrip("-D").split("=", 1) for a in args if "=" in a)
    ranges = [_range(a) for a in nums] + [(0, 0)] * (3 - len(nums))
    kw = {}
    if "shapes" in opts:
        kw["shapes"] = opts["shapes"].split(";")
    if "colors" in opts:
        kw["colors"] = opts["colors"].split(";")
    (o1, o2), (s1, s2), (c1, c2) = ranges[:3]
    return BoardGenerator(o1, o2, s1, s2, c1, c2, seed=int(opts.get("seed", 0)) or None,
                          crowded=opts.get("crowded", "false").lower() == "true", **kw)


def _episodes(path: Path) -> list[dict]:
    """The episodes of a random-game transcript; NotATranscript at the first line that is not one."""
    opener = gzip.open if path.name.endswith(".gz") else open
    episodes = []
    number = 0
    try:
        with opener(path, "rt", encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    episode = json.loads(line)
                except json.JSONDecodeError:
                    raise NotATranscript(f"{path}:{number}: not a transcript (the line is not JSON); {TRANSCRIPT}") from None
                missing = [k for k in TRANSCRIPT_KEYS if k not in episode] if isinstance(episode, dict) else TRANSCRIPT_KEYS
                if missing:
                    raise NotATranscript(f"{path}:{number}: not a transcript (no {', '.join(missing)}); {TRANSCRIPT}")
                episodes.append(episode)
    except (UnicodeDecodeError, gzip.BadGzipFile, EOFError) as exc:
        kind = "not UTF-8 text" if isinstance(exc, UnicodeDecodeError) else "not a complete gzip file"
        raise NotATranscript(f"{path}:{number + 1}: not a transcript ({kind}); {TRANSCRIPT}") from None
    return episodes


def _replay_random(path: Path, rules_root: Path) -> list[EpisodeOutcome]:
    episodes = _episodes(path)
    out: list[EpisodeOutcome] = []
    gens: dict = {}
    rules_cache: dict = {}
    for ep in episodes:
        rel, *args = ep["cgs_args"]
        key = tuple(args)
        if key not in gens:
            gens[key] = [generator_from_cgs_args(args), 0]
        if rel not in rules_cache:
            rules_cache[rel] = load_rules(rules_root / rel)
        gen = gens[key]
        board = None
        while gen[1] <= ep["episode"]:
            board = gen[0].next_board()
            gen[1] += 1
        if board is None:
            raise ValueError(f"{path}: episodes out of order at episode {ep['episode']}")
        out.append(_replay(path.name, ep["episode"], rules_cache[rel], board, ep["initial"],
                           ep["steps"], ep.get("final_finish")))
    return out


def _parse_moves(text: str) -> list[dict]:
    moves = []
    for tok in text.split():
        target, _, bucket = tok.partition(":")
        if target.startswith("@"):
            moves.append({"pos": int(target[1:]), "bucket": int(bucket)})
        else:
            moves.append({"id": int(target), "bucket": int(bucket)})
    return moves


def replay_edge_case(stem: Path) -> EpisodeOutcome:
    """Replay one ``edge/NAME`` case (``stem`` is the path without the part suffix)."""
    name = stem.name
    rules = load_rules(stem.with_name(name + ".rules.txt"))
    board = board_from_json(json.loads(stem.with_name(name + ".board.json").read_text()))
    lines = [json.loads(s) for s in stem.with_name(name + ".expected.jsonl").read_text().splitlines()
             if s.strip()]
    moves = _parse_moves(stem.with_name(name + ".moves.txt").read_text())
    init, steps = lines[0], lines[1:]
    if len(steps) != len(moves):
        raise ValueError(f"{name}: {len(moves)} moves but {len(steps)} expected lines")
    for m, s in zip(moves, steps):
        s.setdefault("move", m)
    return _replay(name, 0, rules, board, init, steps)


def replay_file(path, rules_root) -> list[EpisodeOutcome]:
    """Replay a transcript file, an edge case (any of its files) or a directory tree of these."""
    path, rules_root = Path(path), Path(rules_root)
    if path.is_dir():
        out: list[EpisodeOutcome] = []
        stems = sorted({p.name[: -len(".rules.txt")] for p in path.glob("*.rules.txt")})
        for s in stems:
            out.append(replay_edge_case(path / s))
        for p in sorted(path.glob("*.jsonl*")):
            if not p.name.endswith(".expected.jsonl"):
                out += _replay_random(p, rules_root)
        for sub in sorted(p for p in path.iterdir() if p.is_dir()):
            out += replay_file(sub, rules_root)
        return out
    for part in _EDGE_PARTS:
        if path.name.endswith(part):
            return [replay_edge_case(path.with_name(path.name[: -len(part)]))]
    return _replay_random(path, rules_root)
