"""zoo enjoy: a trained agent plays its run's env, prints each episode and films it into an mp4."""

from __future__ import annotations

import json
import re

import pytest

import zoo
from zoo.cli import main

CARTPOLE = """\
env: {type: gym, id: CartPole-v1}
agent: {type: ppo, n_steps: 32, batch_size: 32, n_epochs: 1}
budget: {steps: 64, eval_episodes: 3}
logging: {tensorboard: false, progress: false}
"""

GOHR = """\
env: {type: gohr, rule: paper/clockwise, horizon: 12, board: {min_objects: 4, min_shapes: 2, min_colors: 2}}
agent: {type: maskable-ppo, n_steps: 32, batch_size: 32, n_epochs: 1}
budget: {steps: 64}
logging: {tensorboard: false, progress: false}
"""

LINE = re.compile(r"episode (\d+): return (-?[\d.]+) in (\d+) steps(?:, (\d+) errors)?")


def train(tmp_path, text: str, name: str):
    spec = tmp_path / f"{name}.yaml"
    spec.write_text(text)
    run = tmp_path / "runs" / name
    assert main(["train", str(spec), "--run-dir", str(run), "--no-progress"]) == 0
    return run


@pytest.fixture
def cartpole(tmp_path):
    return train(tmp_path, CARTPOLE, "cartpole")


def episodes(out: str) -> list[tuple[float, int, int | None]]:
    return [(float(r), int(n), int(e) if e else None) for _, r, n, e in LINE.findall(out)]


def read_video(path):
    from moviepy import VideoFileClip

    with VideoFileClip(str(path)) as clip:
        return list(clip.iter_frames()), clip.size


def test_enjoy_plays_the_runs_final_evaluation_again(cartpole, capsys):
    capsys.readouterr()
    assert main(["enjoy", str(cartpole), "--episodes", "3"]) == 0
    played = episodes(capsys.readouterr().out)
    result = json.loads((cartpole / "trials/000/result.json").read_text())
    assert [r for r, _, _ in played] == result["eval_returns"]  # the same seed, the same greedy episodes
    assert all(r == n for r, n, _ in played)  # CartPole pays 1 per step; no errors column
    assert main(["enjoy", "cartpole", "--episodes", "3", "--seed", "12345"]) == 0  # by id, another seed
    agent = zoo.load_agent(cartpole)
    assert [r for r, _, _ in episodes(capsys.readouterr().out)] == agent.evaluate(3, seed=12345)
    agent.close()


def test_enjoy_films_cartpole_into_an_mp4(cartpole, tmp_path, capsys):
    import gymnasium

    video = tmp_path / "films" / "cartpole.mp4"
    video.parent.mkdir()
    capsys.readouterr()
    assert main(["enjoy", str(cartpole), "--episodes", "2", "--video", str(video)]) == 0
    out = capsys.readouterr().out
    played = episodes(out)
    frames, size = read_video(video)
    assert len(frames) == sum(n + 1 for _, n, _ in played)  # each episode's reset and every step
    env = gymnasium.make("CartPole-v1", render_mode="rgb_array")
    env.reset(seed=0)
    assert tuple(size) == (600, 400) == env.render().shape[1::-1]
    assert f"{video}: {len(frames)} frames of 600x400 at 50 fps" in out
    assert [p.name for p in video.parent.iterdir()] == ["cartpole.mp4"]


def test_enjoy_films_a_gohr_run_and_counts_its_errors(tmp_path, capsys):
    from zoo_gohr.render import board_image

    run = train(tmp_path, GOHR, "gohr")
    video = tmp_path / "gohr.mp4"
    capsys.readouterr()
    assert main(["enjoy", str(run), "--episodes", "2", "--video", str(video)]) == 0
    played = episodes(capsys.readouterr().out)
    assert len(played) == 2 and all(errors == -r for r, _, errors in played)  # GOHR pays -1 per rejected move
    frames, size = read_video(video)
    assert len(frames) == sum(n + 1 for _, n, _ in played)
    assert tuple(size) == board_image([], None).shape[1::-1]


def test_bad_input_is_one_line_and_writes_nothing(cartpole, tmp_path, capsys, monkeypatch):
    minatar = train(tmp_path, CARTPOLE.replace("{type: gym, id: CartPole-v1}", "{type: minatar, game: breakout}"),
                    "minatar")
    video = tmp_path / "out" / "film.mp4"
    video.parent.mkdir()
    cases = [
        (["enjoy", "no-such-run"], "no-such-run"),
        (["enjoy", str(minatar), "--video", str(video)],
         "env 'minatar' draws no rgb_array pictures (its render modes: none); --video needs them"),
        (["enjoy", str(cartpole), "--video", str(tmp_path / "missing" / "film.mp4")], "no such folder"),
        (["enjoy", str(cartpole), "--video", str(tmp_path / "film.avi")], "the video is an .mp4 file"),
        (["enjoy", str(cartpole), "--checkpoint", "best"], "has no best checkpoint yet"),
        (["enjoy", str(cartpole), "--checkpoint", "first"], "checkpoint 'first': valid: last, best"),
        (["enjoy", str(cartpole), "--trial", "1"], "no trial 1; the run has trials 0 to 0"),
    ]
    for args, message in cases:
        capsys.readouterr()
        assert main(args) == 2, args
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1, (args, err)
    monkeypatch.setitem(__import__("sys").modules, "moviepy", None)  # the video extra is not installed
    assert main(["enjoy", str(cartpole), "--video", str(video)]) == 2
    assert "--video needs moviepy: pip install 'zoo-rl[video]'" in capsys.readouterr().err
    assert list(video.parent.iterdir()) == []


def test_an_interrupted_film_leaves_no_partial_video(cartpole, tmp_path, capsys, monkeypatch):
    from zoo_playback import enjoy

    step = enjoy.Watched.step

    def interrupted(self, action):
        if self.watcher.film.frames >= 5:
            raise KeyboardInterrupt
        return step(self, action)

    monkeypatch.setattr(enjoy.Watched, "step", interrupted)
    assert main(["enjoy", str(cartpole), "--video", str(tmp_path / "film.mp4")]) == 130
    assert not list(tmp_path.glob("*.mp4")) and not list(tmp_path.glob(".*"))
