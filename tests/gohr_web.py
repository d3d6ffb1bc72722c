"""Helpers of the web tests: an experiment on a fresh store, a live uvicorn server on loopback, a player bot,
Debian's Chromium and the axe-core accessibility engine for the browser tests."""

from __future__ import annotations

import shutil
import socket
import subprocess
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


CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
BROWSER_PACKAGES = Path(__file__).with_name("browser")


def chromium_path() -> str:
    """Debian's chromium; a test fails (it does not skip) where it is missing, saying how to install it."""
    import pytest

    path = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
    if path is None:
        pytest.fail("the browser test needs Chromium: run 'apt-get update && apt-get install -y chromium' "
                    "(Debian/Ubuntu; .ci/run does this), then run the tests again")
    return path


def axe_source() -> str:
    """axe-core's browser bundle, installed from tests/browser/package-lock.json (``npm ci``) on first use."""
    import pytest

    bundle = BROWSER_PACKAGES / "node_modules/axe-core/axe.min.js"
    if not bundle.is_file():
        npm = shutil.which("npm")
        if npm is None:
            pytest.fail("the accessibility check needs axe-core from npm: install node and npm "
                        "(apt-get install -y npm), then run 'npm ci --prefix tests/browser'")
        subprocess.run([npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--prefix", str(BROWSER_PACKAGES)],
                       check=True, capture_output=True, timeout=300)
    return bundle.read_text(encoding="utf-8")
