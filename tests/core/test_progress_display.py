"""The progress display: it fits an 80-column terminal, writes plain lines to a file, and counts the steps that ran."""

from __future__ import annotations

import io
import re

from rich.console import Console

from zoo.console import ProgressBar, short_name
from zoo.metrics import Running

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
LABEL = "rlzoo-ppo-MountainCarContinuous-v0-20261128-031345"


def _terminal_lines(width: int) -> list[str]:
    out = io.StringIO()
    console = Console(file=out, width=width, force_terminal=True, color_system=None)
    with ProgressBar(enabled=True, label=LABEL, trials=3, amount=1_000_000, unit="steps", console=console) as bar:
        bar.update(0, 200_000, Running(-1234.5, -1234.5))
        bar.update(1, 1_000_000, Running(-1.5, None))
    return [line for line in ANSI.sub("", out.getvalue()).replace("\r", "\n").split("\n") if line.strip()]


def test_at_80_columns_the_name_is_short_and_the_count_and_returns_are_whole():
    lines = _terminal_lines(80)
    assert max(len(line) for line in lines) <= 80
    assert lines[-1].startswith("rlzoo-ppo-MountainC… 1200000/3000000 steps") and lines[-1].endswith("return -618.0 eval -1234.5")


def test_a_wide_terminal_also_gets_the_bar_and_both_times():
    last = _terminal_lines(200)[-1]
    assert "━" in last and len(re.findall(r"\d:\d\d:\d\d", last)) == 2 and "1200000/3000000 steps" in last
    assert "━" not in _terminal_lines(80)[-1] and len(re.findall(r"\d:\d\d:\d\d", _terminal_lines(50)[-1])) == 0


def test_without_a_terminal_it_writes_a_plain_line_per_tenth_of_the_budget():
    out = io.StringIO()
    console = Console(file=out, width=80, force_terminal=False)
    with ProgressBar(enabled=True, label="run-20261128-031345", trials=1, amount=3000, unit="steps", console=console) as bar:
        for done in range(0, 3072 + 1, 128):
            bar.update(0, done, Running(float(done), None))
    lines = out.getvalue().splitlines()
    assert "\x1b" not in out.getvalue() and "\r" not in out.getvalue()
    assert [int(re.search(r"\((\d+)%\)", line).group(1)) // 10 for line in lines] == list(range(11))  # one per tenth
    assert lines[0] == "run: 0/3000 steps (0%) 0:00:00 return 0.0"
    assert lines[-1] == "run: 3072/3072 steps (100%) 0:00:00 return 3072.0"


def test_the_total_grows_to_the_steps_a_trial_ran_past_its_budget():
    bar = ProgressBar(enabled=False, label="run", trials=2, amount=3000, unit="steps")
    bar.update(0, 3072)
    assert (bar.done, bar.total) == (3072, 6072)
    bar.update(1, 3072)
    assert (bar.done, bar.total) == (6144, 6144)


def test_short_names_drop_the_folder_time_and_cut_with_an_ellipsis():
    assert short_name("cartpole-ppo-20261128-031345", 20) == "cartpole-ppo"
    assert short_name("cartpole-ppo-20261128-031345-2", 20) == "cartpole-ppo"
    assert short_name("a" * 30, 20) == "a" * 19 + "…"
