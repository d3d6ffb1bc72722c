"""A person's game in a real browser: headless Chromium (Debian's package) driven by playwright drags
pieces onto buckets until the experiment ends; the transcript it leaves replays and is scored."""

from __future__ import annotations

from pathlib import Path

import gohr_web
import pytest
from gohr_web import CHROMIUM_ARGS, chromium_path, experiment, live_server
from zoo_gohr.web.app import create_app
from zoo_gohr.web.runs import human_runs
from zoo_gohr.web.store import TranscriptStore
from zoo_gohr_study.errors import read_run

from zoo.cli import main


def test_a_missing_chromium_fails_the_test_with_how_to_install_it(monkeypatch):
    monkeypatch.setattr(gohr_web.shutil, "which", lambda name: None)
    monkeypatch.setattr(Path, "exists", lambda self: False)
    with pytest.raises(pytest.fail.Exception, match=r"apt-get install -y chromium"):
        chromium_path()


@pytest.mark.slow  # headless Chromium
def test_a_player_drags_pieces_in_chromium_and_the_transcript_replays(tmp_path):
    from playwright.sync_api import sync_playwright

    store = tmp_path / "store"
    denied = moves = 0
    with live_server(create_app(experiment(store, rules=("paper/color_match 2",)))) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 640, "height": 720})
            page.goto(f"{base}/?player=tester")
            assert page.input_value("#player") == "tester"
            page.check("#consent")
            page.click("#begin")
            page.wait_for_url(f"{base}/play")
            bucket = 0
            while "/done" not in page.url:
                page.wait_for_selector("#board .piece")
                page.locator("#board .piece").first.drag_to(page.locator(f"#bucket-{bucket}"))
                page.wait_for_function("() => location.pathname === '/done' || /^(Accepted|Not accepted)/"
                                       ".test(document.getElementById('feedback').textContent)")
                moves += 1
                if "/done" in page.url:  # the last move cleared the last board
                    break
                accepted = page.inner_text("#feedback").startswith("Accepted.")
                denied += not accepted
                bucket = bucket if accepted else (bucket + 1) % 4
                assert moves < 200
            assert "tester" in page.inner_text("#finished")
        finally:
            browser.close()
    transcripts = sorted((store / "transcripts" / "tester").glob("*.jsonl"))
    assert len(transcripts) == 2
    assert main(["gohr", "conformance", "--rules-root", str(store), str(store / "transcripts")]) == 0
    [run] = human_runs(TranscriptStore(store), tmp_path / "runs")
    scored = read_run(run)
    assert scored.errors.shape == (1, 2) and scored.tce.tolist() == [denied]
    assert scored.errors.sum() + 2 * 4 == moves  # every error and the 4 accepted moves of each board
