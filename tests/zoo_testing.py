"""What many tests share: the env blocks, tiny substrate settings, a spec and trial builder, the in-process CLI."""

from __future__ import annotations

import io
from pathlib import Path
from unittest import mock

import numpy as np

from zoo import build_trial
from zoo.cli import main
from zoo.registry import get_registry
from zoo.spec import SpecBase, load_spec_text
from zoo.trials import Built

CARTPOLE = "env: {type: gym, id: CartPole-v1}\n"
#: a GOHR task short enough for checkpoint and resume tests (episodes of 30 moves)
GOHR_COLOR_MATCH = "env: {type: gohr, rule: paper/color_match, horizon: 30}\n"
#: the smallest substrate agent settings (inside an agent's flow mapping): 2 envs, batches of 2 sequences of 5
TINY_SUBSTRATE = "num_envs: 2, batch: 2, length: 5, burn_in: 2, network: {hidden: [16], lstm: 8}"


def spec(text: str) -> SpecBase:
    """The spec of this YAML text, checked against the installed entries."""
    return load_spec_text(text, get_registry())


def cartpole_spec(agent: str, steps: int = 2000, extra: str = "") -> SpecBase:
    """CartPole with the agent block `agent` (a YAML flow mapping), a step budget and `extra` top-level YAML."""
    return spec(f"{CARTPOLE}agent: {agent}\nbudget: {{steps: {steps}}}\n{extra}")


def trial(built_spec: SpecBase, directory: Path, seed: int = 0, **options) -> Built:
    """Trial 0 of `built_spec` in `directory`, without TensorBoard; `options` go to build_trial."""
    return build_trial(built_spec, get_registry(), seed=seed, trial=0, directory=directory,
                       **options)


def run_cli(argv: list[str], capsys) -> tuple[int, str, str]:
    """``zoo ARGV`` in this process: its exit code, stdout and stderr. Interactive commands see end of input."""
    with mock.patch("sys.stdin", io.StringIO("")):
        code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


class HiddenSlips:
    """A mixin for the example plugin's corridor env: its slips come from a generator of its own, seeded only
    by a seeded reset (as MinAtar's games draw), which the corridor's `get_state` leaves out."""

    def __init__(self, params):
        super().__init__(params)
        self.slips = np.random.RandomState(0)

    def reset(self, *, seed=None, options=None):
        if seed is not None:
            self.slips = np.random.RandomState(seed)
        return super().reset(seed=seed, options=options)

    def step(self, action):
        return super().step(action if self.slips.rand() >= 0.3 else 1 - action)
