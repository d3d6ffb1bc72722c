"""A study file for the web tests (two rules counterbalanced, a practice board, questions, a completion code),
and a participant who plays a whole study through the API."""

from __future__ import annotations

from pathlib import Path

STUDY = """\
title: Hidden rules, test study
consent:
  version: v3-2026-11
  text: |
    This is a test study.

    You may stop at any time.
rules:
  - {rule: paper/color_match, boards: 1}
  - {rule: paper/clockwise, boards: 1}
order: counterbalanced
board: {min_objects: 4}
max_moves: 40
practice: {rule: paper/color_match, boards: 1}
rule_questions:
  - {id: guess, text: "What do you think the rule was?"}
  - {id: sure, text: "How sure are you?", kind: likert, scale: 5, labels: [not at all, completely]}
final_questions:
  - {id: strategy, text: "Which strategy did you use?", kind: choice, choices: [trial and error, a plan]}
  - {id: comments, text: "Anything else?", required: false}
completion: {code: TEST-CODE-42}
"""


def write_study(folder: Path, text: str = STUDY) -> Path:
    path = Path(folder) / "study.yaml"
    path.write_text(text)
    return path


def play_study(client, rng, answers_for=lambda state: None) -> list[dict]:
    """Play a participant's whole study through the API with random moves; returns every state seen."""
    states = [client.get("/api/state").json()]
    while states[-1]["phase"] != "done":
        state = states[-1]
        if state["phase"] == "play":
            piece = state["pieces"][int(rng.integers(len(state["pieces"])))]["id"]
            reply = client.post("/api/move", json={"piece": piece, "bucket": int(rng.integers(4))})
        else:
            reply = client.post("/api/answers", json={"answers": answers_for(state)})
        assert reply.status_code == 200, reply.text
        states.append(reply.json()["state"])
        assert len(states) < 3000
    return states


def answers(state: dict) -> dict:
    if state["phase"] == "questions":
        return {"guess": f"rule {state['rule_number']} is about colors", "sure": state["rule_number"] + 2}
    return {"strategy": "a plan", "comments": "=HYPERLINK(\"x\")"}
