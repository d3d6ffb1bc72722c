"""``zoo enjoy``: a trained agent plays its run's env, episode by episode, optionally on video.

The agent is `zoo.load_agent`'s and plays through its own ``evaluate`` (greedy where the agent has
a greedy mode). Every env it builds for that is watched by a `Watched` wrapper, which counts each
episode's return and length (and, for envs whose steps say whether a move was ``accepted``, as
GOHR's do, the moves that were not) and hands the pictures of the first env to a `Film`. The film
is written beside its target and moved into place only when complete: an error or Ctrl-C leaves
no partial video.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np

from zoo import Registry, RunFolder, ZooError, default_runs_dir, find_run, load_agent, load_run_spec

from .offscreen import draw_offscreen


@dataclass(frozen=True)
class Episode:
    """One episode as the env saw it."""

    episode_return: float
    length: int
    errors: int | None  # rejected moves, for envs whose steps report ``info["accepted"]``


@dataclass
class Show:
    """What ``zoo enjoy`` played: the episodes, and the video written (its frames, width, height, fps)."""

    episodes: list[Episode]
    video: Path | None = None
    frames: int = 0
    size: tuple[int, int] = (0, 0)
    fps: float = 0.0


def check_video_target(path: Path) -> None:
    """Refuse a video path that cannot be written, or a missing ``video`` extra, before anything is played."""
    if path.suffix.lower() != ".mp4":
        raise ZooError(f"--video {path}: the video is an .mp4 file")
    if not path.parent.is_dir():
        raise ZooError(f"--video {path}: no such folder {path.parent}")
    if not os.access(path.parent, os.W_OK | os.X_OK):
        raise ZooError(f"--video {path}: the folder {path.parent} is not writable")
    if path.is_dir():
        raise ZooError(f"--video {path}: is a folder")
    try:
        import moviepy  # noqa: F401
    except ImportError:
        raise ZooError("--video needs moviepy: pip install 'zoo-rl[video]'") from None


class Film:
    """Frames written to an mp4 through moviepy's ffmpeg writer as they come, into a hidden file until `finish`.

    `fps` is the filmed env's ``render_fps`` (30 when it names none).
    """

    def __init__(self, target: Path):
        self.target, self.fps = Path(target), 30.0
        self.partial = self.target.with_name(f".{self.target.stem}.partial.mp4")
        self.frames, self.size = 0, (0, 0)
        self._writer = None

    def add(self, frame: Any) -> None:
        frame = np.asarray(frame)
        if frame.ndim != 3 or frame.shape[2] != 3:
            raise ZooError(f"the env's rgb_array picture has shape {frame.shape}; a video takes (height, width, 3)")
        if self._writer is None:
            from moviepy.video.io.ffmpeg_writer import FFMPEG_VideoWriter

            self.size = (frame.shape[1], frame.shape[0])
            self._writer = FFMPEG_VideoWriter(str(self.partial), self.size, self.fps, codec="libx264", threads=1)
        elif (frame.shape[1], frame.shape[0]) != self.size:
            raise ZooError(f"the env's pictures changed size from {self.size} to {frame.shape[1::-1]}; a video keeps one")
        self._writer.write_frame(frame.astype(np.uint8, copy=False))
        self.frames += 1

    def finish(self) -> None:
        if self._writer is None:
            raise ZooError("no frame to film: the agent played no step on a watched env")
        self._writer.close()
        os.replace(self.partial, self.target)

    def discard(self) -> None:
        if self._writer is not None:
            self._writer.close()
        self.partial.unlink(missing_ok=True)


@dataclass
class Watcher:
    """Watches the envs built once `armed`: keeps the first `wanted` episodes, films the first env's."""

    wanted: int
    env_name: str
    film: Film | None = None
    armed: bool = False
    episodes: list[Episode] = field(default_factory=list)
    camera: Any = None

    def wrap(self, env):
        if not self.armed:
            return env
        watched = Watched(env, self)
        if self.camera is None:
            self.camera = watched
            if self.film is not None:
                self.film.fps = float(env.metadata.get("render_fps") or 30)
        return watched

    def filming(self, watched: Watched) -> bool:
        return self.film is not None and watched is self.camera and len(self.episodes) < self.wanted


class Watched(gymnasium.Wrapper):
    """Counts an env's episodes for a `Watcher`; when filming, switches the env to ``rgb_array`` pictures."""

    def __init__(self, env, watcher: Watcher):
        super().__init__(env)
        self.watcher = watcher
        if watcher.film is not None:
            modes = list(env.metadata.get("render_modes") or [])
            if "rgb_array" not in modes:
                raise ZooError(f"env '{watcher.env_name}' draws no rgb_array pictures (its render modes: "
                               f"{', '.join(modes) or 'none'}); --video needs them")
            env.unwrapped.render_mode = "rgb_array"
            draw_offscreen()
        self._return, self._length, self._errors, self._reports = 0.0, 0, 0, False

    def reset(self, **kwargs):
        result = self.env.reset(**kwargs)
        self._return, self._length, self._errors, self._reports = 0.0, 0, 0, False
        if self.watcher.filming(self):
            self.watcher.film.add(self._picture())
        return result

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._return += float(reward)
        self._length += 1
        if "accepted" in info:
            self._reports = True
            self._errors += not info["accepted"]
        if self.watcher.filming(self):
            self.watcher.film.add(self._picture())
        if (terminated or truncated) and len(self.watcher.episodes) < self.watcher.wanted:
            self.watcher.episodes.append(Episode(self._return, self._length, self._errors if self._reports else None))
        return obs, reward, terminated, truncated, info

    def _picture(self):
        try:
            return self.env.render()
        except gymnasium.error.DependencyNotInstalled as exc:
            raise ZooError(f"env '{self.watcher.env_name}' cannot draw pictures: {exc}") from None


def enjoy(run: str | Path, *, trial: int = 0, episodes: int = 1, checkpoint: str = "last", video: Path | None = None,
          seed: int | None = None, registry: Registry, runs_dir: Path | None = None) -> Show:
    """Play `episodes` episodes of `trial`'s agent of `run` (default seed: the run's final evaluation's); film them
    into `video` when given."""
    if video is not None:
        check_video_target(Path(video))
    folder = RunFolder(find_run(str(run), Path(runs_dir) if runs_dir else default_runs_dir()))
    spec = load_run_spec(folder, registry)
    watcher = Watcher(episodes, spec.env.type)
    agent = load_agent(folder.path, trial, checkpoint, registry=registry, wrap_env=watcher.wrap)
    seeds = folder.manifest(require=("seeds",))["seeds"]
    watcher.film = Film(Path(video)) if video is not None else None
    watcher.armed = True
    try:
        try:
            agent.evaluate(episodes, seed=seeds[trial] + 1 if seed is None else seed)
        except NotImplementedError:
            raise ZooError(f"agent '{spec.agent.type}' has no evaluation mode; zoo enjoy plays agents that have one") from None
        if len(watcher.episodes) < episodes:
            raise ZooError(f"agent '{spec.agent.type}' played {len(watcher.episodes)} of {episodes} episodes on envs "
                           "built by its run's env factory; zoo enjoy watches only those")
        if watcher.film is not None:
            watcher.film.finish()
    except BaseException:
        if watcher.film is not None:
            watcher.film.discard()
        raise
    finally:
        agent.close()
    film = watcher.film
    if film is None:
        return Show(watcher.episodes)
    return Show(watcher.episodes, film.target, film.frames, film.size, film.fps)
