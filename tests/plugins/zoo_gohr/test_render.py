"""Pictures of the board: rgb_array frames, RecordVideo, the human window on a virtual X display (Xvfb)
and its refusal without a display."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from contextlib import contextmanager

import gymnasium
import numpy as np
import pytest
import zoo_gohr  # noqa: F401
from gymnasium.utils.passive_env_checker import env_render_passive_checker
from zoo_gohr.render import ACCEPTED, BACKGROUND, DENIED, PIECE_COLORS, SIZE, bucket_box, cell_center


def _first_move(info, accepted: bool, env):
    """An action on an occupied cell that the rule accepts (or denies), found by trying copies of the game."""
    for action in np.flatnonzero(info["action_mask"]):
        game = env.unwrapped.game.copy()
        if game.move_at(int(action) // 4 + 1, int(action) % 4).accepted == accepted:
            return int(action)
    raise AssertionError("no such move on this board")


def _pixel(frame, xy):
    return tuple(int(v) for v in frame[int(xy[1]), int(xy[0])])


def test_frame_shows_each_piece_in_its_color_and_nothing_on_empty_cells():
    env = gymnasium.make("GOHR/ColorMatch-v0", render_mode="rgb_array")
    env.reset(seed=4)
    frame = env.render()
    assert frame.shape == (SIZE, SIZE, 3) and frame.dtype == np.uint8
    occupied = {piece.pos: piece for piece in env.unwrapped.game.pieces()}
    assert len(occupied) == 9
    for pos in range(1, 37):
        expected = PIECE_COLORS[occupied[pos].color] if pos in occupied else BACKGROUND
        assert _pixel(frame, cell_center(pos)) == expected, pos


@pytest.mark.parametrize("accepted", [True, False])
def test_frame_shows_the_last_move_and_its_verdict(accepted):
    env = gymnasium.make("GOHR/Clockwise-v0", render_mode="rgb_array")
    _, info = env.reset(seed=2)
    if not accepted:  # the clockwise rule accepts any bucket first; the second move must go clockwise
        env.step(_first_move(info, True, env))
        info = env.unwrapped._info(None)
    action = _first_move(info, accepted, env)
    pos, bucket = action // 4 + 1, action % 4
    piece = next(p for p in env.unwrapped.game.pieces() if p.pos == pos)
    env.step(action)
    frame = env.render()
    left, top, right, bottom = bucket_box(bucket)
    verdict = ACCEPTED if accepted else DENIED
    assert _pixel(frame, (left + 1, (top + bottom) / 2)) == verdict  # the bucket's outline
    bucket_center = ((left + right) / 2, (top + bottom) / 2)
    cx, cy = cell_center(pos)
    if accepted:
        assert _pixel(frame, bucket_center) == PIECE_COLORS[piece.color]
        cell = frame[int(cy) - 15:int(cy) + 15, int(cx) - 15:int(cx) + 15].reshape(-1, 3)
        assert not (cell == PIECE_COLORS[piece.color]).all(axis=1).any()  # the piece left its cell
    else:
        assert _pixel(frame, (cx, cy)) == PIECE_COLORS[piece.color]
        ring = [_pixel(frame, (cx + dx, cy)) for dx in range(20, 28)]
        assert verdict in ring
    env.reset()
    cleared = env.render()
    assert _pixel(cleared, (left + 1, (top + bottom) / 2)) != verdict  # a new board has no last move


def test_render_modes_pass_gymnasiums_render_checker():
    for mode in ("rgb_array", "ansi"):
        env = gymnasium.make("GOHR/Clockwise-v0", render_mode=mode)
        env.reset(seed=0)
        env_render_passive_checker(env.unwrapped)
    assert isinstance(env.render(), str)


def test_record_video_writes_a_video_of_an_episode(tmp_path):
    from moviepy import VideoFileClip

    env = gymnasium.make("GOHR/Clockwise-v0", render_mode="rgb_array")
    env = gymnasium.wrappers.RecordVideo(env, str(tmp_path / "videos"), episode_trigger=lambda episode: True,
                                         disable_logger=True)
    _, info = env.reset(seed=0)
    first = env.unwrapped.render()
    steps, done = 0, False
    while not done:
        _, _, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        steps, done = steps + 1, terminated or truncated
    env.close()
    videos = list((tmp_path / "videos").glob("*.mp4"))
    assert len(videos) == 1
    with VideoFileClip(str(videos[0])) as clip:
        frames = list(clip.iter_frames())
        assert len(frames) == steps + 1 and frames[0].shape == first.shape
        assert np.abs(frames[0].astype(int) - first).mean() < 3  # the encoder is lossy


def test_human_mode_without_a_display_fails_with_a_clear_message():
    code = ("import gymnasium, zoo_gohr\n"
            "env = gymnasium.make('GOHR/Clockwise-v0', render_mode='human')\n"
            "env.reset(seed=0)\n")
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")} | {"MPLBACKEND": "Agg"}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
    assert result.returncode != 0
    assert "render_mode='human' needs a display" in result.stderr and "rgb_array" in result.stderr


@contextmanager
def virtual_display():
    """A fresh Xvfb display (its number picked by the server); yields ``DISPLAY``. Fails (it does not skip)
    where Xvfb is missing, saying how to install it."""
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        pytest.fail("the window test needs Xvfb: run 'apt-get update && apt-get install -y xvfb' "
                    "(Debian/Ubuntu; .ci/run does this), then run the tests again")
    read, write = os.pipe()
    server = subprocess.Popen([xvfb, "-displayfd", str(write), "-screen", "0", "800x700x24", "-nolisten", "tcp"],
                              pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    try:
        with os.fdopen(read) as numbers:
            number = numbers.readline().strip()
        assert number.isdigit(), "Xvfb did not start"
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(10)


def test_a_missing_xvfb_fails_the_window_test_with_how_to_install_it(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(pytest.fail.Exception, match=r"apt-get install -y xvfb"), virtual_display():
        pass


# Runs in a child process on the virtual display: screenshots of the whole screen (Pillow's X11 grab) before
# the env exists, after reset, after a denied move and after close, as counts of the picture's colors.
WINDOW_SCRIPT = """
import json, os, sys
import gymnasium, matplotlib, numpy as np, zoo_gohr
from PIL import ImageGrab
from zoo_gohr.render import DENIED

BUCKET = (235, 228, 210)

def count(color):
    screen = np.asarray(ImageGrab.grab(xdisplay=os.environ["DISPLAY"]).convert("RGB")).astype(int)
    return int((np.abs(screen - color).max(axis=2) <= 2).sum())

counts = {"blank": count(BUCKET)}
env = gymnasium.make("GOHR/Clockwise-v0", render_mode="human")
_, info = env.reset(seed=2)
counts.update(shown=count(BUCKET), denied_before=count(DENIED))
env.step(int(np.flatnonzero(info["action_mask"])[0]))  # clockwise accepts any bucket first
game = env.unwrapped.game
action = next(int(a) for a in np.flatnonzero(env.unwrapped.action_masks())
              if not game.copy().move_at(int(a) // 4 + 1, int(a) % 4).accepted)
_, _, _, _, info = env.step(action)
counts.update(accepted=info["accepted"], denied_after=count(DENIED), backend=matplotlib.get_backend())
env.close()
counts["closed"] = count(BUCKET)
print(json.dumps(counts))
"""


@pytest.mark.slow  # a window on Xvfb
def test_human_mode_shows_the_board_and_each_verdict_in_a_window():
    with virtual_display() as display:
        env = {k: v for k, v in os.environ.items() if k != "WAYLAND_DISPLAY"} | {"DISPLAY": display,
                                                                                 "MPLBACKEND": "TkAgg"}
        result = subprocess.run([sys.executable, "-c", WINDOW_SCRIPT], capture_output=True, text=True, timeout=120,
                                env=env)
    assert result.returncode == 0, result.stderr
    counts = json.loads(result.stdout.splitlines()[-1])
    assert counts["backend"].lower() == "tkagg" and counts["accepted"] is False
    # the empty screen has no bucket; the window shows all four (56 x 56 pixels each in the picture, scaled)
    assert counts["blank"] == 0 and counts["shown"] > 4 * 40 * 40
    # a denied move redraws the window: a red line, the bucket's red outline and the verdict text
    assert counts["denied_after"] - counts["denied_before"] > 300
    assert counts["closed"] == 0  # close() takes the window away
