"""Helpers of the web tests: an experiment on a fresh store, a live uvicorn server on loopback, a player bot."""

from __future__ import annotations

import socket
import threading
import time
from contextlib import contextmanager
from pathlib import Path

from zoo_gohr.web.app import Experiment
from zoo_gohr.web.experiment import rule_list
from zoo_gohr.web.store import TranscriptStore
from zoo_gohr.web.study import Study

#: the origin of starlette's TestClient (state-changing requests must come from the server's own origin)
ORIGIN = {"origin": "http://testserver"}


def experiment(store: Path, rules=("paper/color_match 2", "paper/clockwise 1"), pieces: int = 4,
               max_moves: int = 100, **settings) -> Experiment:
    stages = rule_list(list(rules), boards=1, pieces=pieces, max_moves=max_moves)
    return Experiment(Study.of_stages(stages), TranscriptStore(store), **settings)


def signed_in(app, player: str | None, **client_settings):
    """A TestClient (sending the server's own Origin) signed in as `player` (None: an id is made up)."""
    from starlette.testclient import TestClient

    client = TestClient(app, headers=ORIGIN, **client_settings)
    reply = client.post("/start", data={"player": player or "", "consent": "yes"}, follow_redirects=False)
    assert reply.status_code == 303 and reply.headers["location"] == "/play", reply.text
    return client


@contextmanager
def live_server(app):
    """``app`` served by uvicorn on a free loopback port, in a thread; yields the base URL."""
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


def play_everything(client, rng, *, max_requests: int = 5000) -> list[dict]:
    """Play every board of the player's experiment with random moves through the API; returns the replies."""
    replies = []
    state = client.get("/api/state").json()
    while not state["finished"]:
        piece = state["pieces"][int(rng.integers(len(state["pieces"])))]
        reply = client.post("/api/move", json={"piece": piece["id"], "bucket": int(rng.integers(4))})
        assert reply.status_code == 200, reply.text
        replies.append(reply.json())
        state = replies[-1]["state"]
        assert len(replies) < max_requests
    return replies

