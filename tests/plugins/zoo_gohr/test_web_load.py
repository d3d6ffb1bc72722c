"""Many players at once against a live server on loopback: every board of every player is stored, once,
and replays; nobody's moves land in somebody else's games."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import httpx2
import numpy as np
import pytest
from gohr_web import experiment, live_server, play_everything
from zoo_gohr.engine.conformance import replay_file
from zoo_gohr.web.app import create_app

pytestmark = pytest.mark.slow  # a load test: 40 players on a live server

PLAYERS, THREADS = 40, 16


def _player(base: str, player: str) -> dict:
    with httpx2.Client(base_url=base, timeout=30, headers={"origin": base}) as client:
        start = client.post("/start", data={"player": player, "consent": "yes"})
        assert start.status_code == 303 and start.headers["location"] == "/play"
        replies = play_everything(client, np.random.default_rng(int(player[1:])))
    return {"moves": len(replies), "errors": sum(not reply["accepted"] for reply in replies),
            "final": replies[-1]["state"]}


def test_concurrent_players_lose_nothing(tmp_path):
    with live_server(create_app(experiment(tmp_path, sign_ins=(PLAYERS, 60)))) as base:  # all from one address
        with ThreadPoolExecutor(THREADS) as pool:
            names = [f"p{k}" for k in range(PLAYERS)]
            results = dict(zip(names, pool.map(lambda name: _player(base, name), names)))
    for name, result in results.items():
        records = [json.loads(p.read_text()) for p in sorted((tmp_path / "transcripts" / name).glob("*.jsonl"))]
        assert [(r["stage"], r["episode"], r["player"]) for r in records] == [(0, 0, name), (0, 1, name), (1, 0, name)]
        assert sum(r["n_moves"] for r in records) == result["moves"] == result["final"]["total_moves"]
        errors = sum(r["n_moves"] - r["n_accepted"] for r in records)
        assert errors == result["errors"] == result["final"]["total_errors"]
    outcomes = replay_file(tmp_path / "transcripts", tmp_path)
    assert len(outcomes) == 3 * PLAYERS and all(o.passed for o in outcomes)
    assert not list(tmp_path.rglob("*.tmp"))
