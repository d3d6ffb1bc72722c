"""Every report says what its numbers do not cover: each run's caveats (unfinished, lost metrics rows),
on stderr, at the top of each Markdown file and in each JSON summary the report wrote."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from zoo import RunFolder, atomic_write_text, caveats

log = logging.getLogger("zoo")


def annotate_report(written: list[Path], runs: list[RunFolder]) -> None:
    """Say each run's caveats on stderr, at the top of every Markdown file of its report and in every JSON summary."""
    notes = {run.manifest()["id"]: lines for run in runs if (lines := caveats(run))}
    for lines in notes.values():
        for line in lines:
            log.warning("%s", line)
    if not notes:
        return
    for path in written:
        if path.suffix == ".md":
            _prepend_markdown(path, [line for lines in notes.values() for line in lines])
        elif path.suffix == ".json":
            _add_to_json(path, notes)


def _prepend_markdown(path: Path, lines: list[str]) -> None:
    text = path.read_text(encoding="utf-8")
    title, rest = (text.split("\n", 1) + [""])[:2] if text.startswith("# ") else ("", text)
    block = "> **Not final.** These figures do not cover everything a finished run would:\n>\n" + "".join(
        f"> - {line}\n" for line in lines)
    atomic_write_text(path, (f"{title}\n\n" if title else "") + block + "\n" + rest.lstrip("\n"))


def _add_to_json(path: Path, notes: dict[str, list[str]]) -> None:
    document = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(document, dict):
        document["caveats"] = notes
    elif isinstance(document, list):
        for row in document:
            if isinstance(row, dict) and row.get("run") in notes:
                row["caveats"] = notes[row["run"]]
    atomic_write_text(path, json.dumps(document, indent=2) + "\n")
