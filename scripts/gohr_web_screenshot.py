"""Take the screenshots of docs/human-play.md: the consent page and a board in play, in headless Chromium.

    python scripts/gohr_web_screenshot.py [--chromium /usr/bin/chromium] [--out docs/figures/human-play]

Serves paper/clockwise on a temporary store (loopback, a free port), opens the pages with playwright,
makes two moves by dragging (the second usually denied) and saves consent.png and play.png.
"""

from __future__ import annotations

import argparse
import socket
import tempfile
import threading
import time
from pathlib import Path

import uvicorn
from playwright.sync_api import sync_playwright
from zoo_gohr.web.app import Experiment, create_app
from zoo_gohr.web.experiment import rule_list
from zoo_gohr.web.store import TranscriptStore
from zoo_gohr.web.study import Study

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--out", type=Path, default=Path("docs/figures/human-play"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as store:
        experiment = Experiment(Study.of_stages(rule_list(["paper/clockwise"], boards=3, pieces=9, max_moves=100)),
                                TranscriptStore(Path(store)))
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        server = uvicorn.Server(uvicorn.Config(create_app(experiment), log_level="warning", lifespan="off"))
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        while not server.started:
            time.sleep(0.05)
        base = f"http://127.0.0.1:{sock.getsockname()[1]}"
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=args.chromium, args=ARGS)
            page = browser.new_page(viewport={"width": 640, "height": 900})
            page.goto(f"{base}/?player=P-017")
            page.screenshot(path=args.out / "consent.png")
            page.check("#consent")
            page.click("#begin")
            page.wait_for_selector("#board .piece")
            for moves, bucket in enumerate((1, 1), 1):  # clockwise: the first move goes anywhere, the same bucket
                page.locator("#board .piece").first.drag_to(page.locator(f"#bucket-{bucket}"))  # again does not
                page.wait_for_function("(n) => document.getElementById('history').children.length === n", arg=moves)
            page.screenshot(path=args.out / "play.png")
            browser.close()
        server.should_exit = True
        thread.join(10)
    print(f"wrote {args.out / 'consent.png'} and {args.out / 'play.png'}")


if __name__ == "__main__":
    main()
