"""Pictures of the board: rgb_array frames, RecordVideo, the human window's refusal without a display."""

from __future__ import annotations

import os
import subprocess
import sys

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
