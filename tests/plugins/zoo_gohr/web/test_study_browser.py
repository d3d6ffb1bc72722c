"""A whole study in Chromium, as participants take it: consent, a practice board, two rules and their
questions, the end questions and the completion code; once with a mouse, once with the keyboard alone,
once on a phone-sized touch screen. The transcripts replay, the consents and answers are in the exports,
and axe-core finds no serious or critical accessibility violation on any page."""

from __future__ import annotations

import csv
import io

import httpx2
import pytest
from gohr_web import CHROMIUM_ARGS, axe_source, chromium_path, live_server
from gohr_web_study import write_study
from zoo_gohr.web.app import Experiment, create_app
from zoo_gohr.web.store import TranscriptStore
from zoo_gohr.web.study import load_study

from zoo.cli import main

pytestmark = pytest.mark.slow

STUDY = """\
title: Hidden rules in the browser
consent: {version: browser-1, text: "A test study.\\n\\nYou may stop at any time."}
rules: [{rule: paper/color_match, boards: 1}, {rule: paper/clockwise, boards: 1}]
board: {min_objects: 4}
max_moves: 60
practice: {rule: paper/color_match, boards: 1}
rule_questions:
  - {id: guess, text: "What do you think the rule was?"}
  - {id: sure, text: "How sure are you?", kind: likert, scale: 5, labels: [not at all, completely]}
final_questions:
  - {id: strategy, text: "Which strategy did you use?", kind: choice, choices: [trial and error, a plan]}
completion: {code: BROWSER-DONE-7}
"""
TOKEN = "browser-admin-token-0123456"


class Participant:
    """Drives one participant's page; ``how`` is mouse, keyboard or touch."""

    def __init__(self, page, how: str, axe: str):
        self.page, self.how, self.axe = page, how, axe
        self.bucket = 0
        self.moves = 0

    def check_accessibility(self, where: str) -> None:
        self.page.evaluate(self.axe)  # evaluated by the driver, not through the page's script policy
        found = self.page.evaluate("async () => (await axe.run(document)).violations.map("
                                   "v => ({id: v.id, impact: v.impact, nodes: v.nodes.length}))")
        serious = [v for v in found if v["impact"] in ("serious", "critical")]
        assert not serious, (where, self.how, serious)

    def tab_to(self, css: str, limit: int = 80) -> None:
        """Press Tab until the focused element matches `css` (proving it is reachable by keyboard)."""
        for _ in range(limit):
            if self.page.evaluate("(css) => document.activeElement && document.activeElement.matches(css)", css):
                return
            self.page.keyboard.press("Tab")
        raise AssertionError(f"{css} not reachable with Tab")

    def consent(self, base: str, player: str) -> None:
        page = self.page
        page.goto(f"{base}/?player={player}")
        assert page.input_value("#player") == player
        self.check_accessibility("consent page")
        if self.how == "keyboard":
            self.tab_to("#consent")
            page.keyboard.press("Space")
            self.tab_to("#begin")
            page.keyboard.press("Enter")
        elif self.how == "touch":
            page.tap("#consent")
            page.tap("#begin")
        else:
            page.check("#consent")
            page.click("#begin")
        page.wait_for_url(f"{base}/play")
        page.wait_for_function("() => document.getElementById('status').textContent !== 'loading...'")

    def move(self) -> None:
        """One move: the first piece to the bucket after the last one refused (the way of a trial-and-error player)."""
        page = self.page
        before = page.evaluate("() => document.getElementById('history').children.length")
        bucket = f"#bucket-{self.bucket}"
        if self.how == "keyboard":
            self.tab_to("#board .piece")
            page.keyboard.press("Enter")
            assert page.get_attribute("#board .piece:focus", "aria-pressed") == "true"
            self.tab_to(bucket)
            page.keyboard.press("Space")
        elif self.how == "touch":
            page.tap("#board .piece >> nth=0")
            page.tap(bucket)
        elif self.moves % 2:
            page.locator("#board .piece").first.drag_to(page.locator(bucket))
        else:
            page.click("#board .piece >> nth=0")
            page.click(bucket)
        self.moves += 1
        page.wait_for_function(
            "(before) => !document.getElementById('play-area') || document.getElementById('play-area').hidden"
            " || /^(Accepted|Not accepted)/.test(document.getElementById('feedback').textContent)"
            " && document.getElementById('history').children.length !== before || location.pathname === '/done'",
            arg=before)
        text = page.inner_text("#feedback") if "/done" not in page.url else "Accepted."
        if not text.startswith("Accepted"):
            self.bucket = (self.bucket + 1) % 4

    def answer(self, final: bool) -> None:
        page = self.page
        page.wait_for_selector("#questions:not([hidden])")
        self.check_accessibility("questions")
        heading = page.inner_text("#questions-heading")
        if self.how == "keyboard":
            if final:
                self.tab_to("#q-strategy-1")  # Tab enters a radio group at its first option
                page.keyboard.press("ArrowRight")  # the arrows choose within it
            else:
                self.tab_to("#q-guess")
                page.keyboard.type(f"{self.how}: colors")
                self.tab_to("input[name=sure]")
                page.keyboard.press("ArrowRight")  # the second point of the scale
                page.keyboard.press("ArrowRight")
            self.tab_to("#submit-answers")
            page.keyboard.press("Enter")
        else:
            act = page.tap if self.how == "touch" else page.click
            if final:
                act("#q-strategy-2")
            else:
                page.fill("#q-guess", f"{self.how}: colors")
                act("#q-sure-4")
            act("#submit-answers")
        page.wait_for_function("(heading) => location.pathname === '/done' || document.getElementById('questions').hidden"
                               " || document.getElementById('questions-heading').textContent !== heading", arg=heading)

    def take_part(self, base: str, player: str) -> None:
        self.consent(base, player)
        assert self.page.inner_text("#status").startswith("Practice")
        self.check_accessibility("practice board")
        seen_history = False
        while "/done" not in self.page.url:
            if not self.page.is_hidden("#questions"):
                self.answer(final="Last questions" in self.page.inner_text("#status"))
                continue
            self.move()
            if not seen_history and "/done" not in self.page.url and self.page.is_hidden("#questions"):
                items = self.page.locator("#history li")
                if items.count() >= 1:  # this board's moves, numbered from 1, buckets as people count them
                    assert self.page.evaluate("() => document.getElementById('history').tagName") == "OL"
                    assert "to bucket" in items.first.inner_text()
                    assert "bucket 0" not in items.first.inner_text()
                    seen_history = True
            assert self.moves < 300
        assert seen_history
        assert "BROWSER-DONE-7" in self.page.inner_text("#code")
        self.check_accessibility("completion page")


def test_a_whole_study_by_mouse_keyboard_and_touch(tmp_path):
    from playwright.sync_api import sync_playwright

    axe = axe_source()
    store = tmp_path / "store"
    experiment = Experiment(load_study(write_study(tmp_path, STUDY)), TranscriptStore(store))
    devices = {"mouse": {"viewport": {"width": 900, "height": 900}},
               "keyboard": {"viewport": {"width": 900, "height": 900}},
               "touch": {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True,
                         "device_scale_factor": 2}}
    with live_server(create_app(experiment, admin_token=TOKEN)) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:
            for how, settings in devices.items():
                context = browser.new_context(**settings)
                try:
                    Participant(context.new_page(), how, axe).take_part(base, f"by-{how}")
                finally:
                    context.close()
        finally:
            browser.close()
        admin = httpx2.Client(base_url=base, headers={"authorization": f"Bearer {TOKEN}"})
        consents = list(csv.DictReader(io.StringIO(admin.get("/admin/export/consents.csv").text)))
        answers = list(csv.DictReader(io.StringIO(admin.get("/admin/export/answers.csv").text)))
    assert [(c["player"], c["consent_version"], c["completed"] != "") for c in consents] == [
        ("by-keyboard", "browser-1", True), ("by-mouse", "browser-1", True), ("by-touch", "browser-1", True)]
    got = {(a["player"], a["after"], a["question"]): a["answer"] for a in answers}
    for how, sure in (("mouse", "4"), ("keyboard", "3"), ("touch", "4")):
        assert got[(f"by-{how}", "paper/clockwise", "guess")] == f"{how}: colors"
        assert got[(f"by-{how}", "paper/color_match", "sure")] == sure
        assert got[(f"by-{how}", "final", "strategy")] == "a plan"
    transcripts = sorted((store / "transcripts").rglob("*.jsonl"))
    assert len(transcripts) == 3 * 3  # practice and two rules each
    assert main(["gohr", "conformance", "--rules-root", str(store), str(store / "transcripts")]) == 0
