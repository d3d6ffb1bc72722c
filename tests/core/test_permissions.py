"""Run folders and their files get the permissions of the user's umask, so teammates can read results."""

from __future__ import annotations

import os
import stat

import pytest

from zoo.cli import main

SPEC = """\
env: {type: gym, id: CartPole-v1}
agent: {type: ppo, n_steps: 32, batch_size: 32, n_epochs: 1}
budget: {steps: 64, checkpoint_every: 32}
logging: {tensorboard: false, progress: false}
"""


@pytest.fixture
def umask():
    def set_mask(mask: int) -> None:
        os.umask(mask)

    previous = os.umask(0o022)
    yield set_mask
    os.umask(previous)


@pytest.mark.parametrize("mask", [0o022, 0o027])
def test_every_folder_and_file_of_a_run_follows_the_umask(tmp_path, umask, mask):
    umask(mask)
    source = tmp_path / "spec.yaml"
    source.write_text(SPEC)
    run = tmp_path / "runs" / "run"
    assert main(["train", str(source), "--run-dir", str(run), "--no-progress"]) == 0
    paths = [run, *run.rglob("*")]
    assert any(p.name == "result.json" for p in paths) and any(p.name.startswith("step-") for p in paths)
    for path in paths:
        mode = stat.S_IMODE(path.stat().st_mode)
        expected = (0o777 if path.is_dir() else 0o666) & ~mask
        assert mode == expected, f"{path.relative_to(tmp_path)}: {oct(mode)}, not {oct(expected)}"
