"""Which plugin's code failed while a run trained, said in one line; and cheap checks of what envs return.

The kernel calls an agent (which calls its env and meta-controller) and a report calls its reporters.
An exception out of such a call is blamed at that boundary (:func:`blame`): on the env when it left
one of the env's checked methods, else on the env or meta-controller whose package holds the frame
that raised (when that package is not the agent's own), else on the agent. The result is a
:class:`PluginFailed`, ``plugin P, agent A, learn: IndexError: ... (FILE:LINE)``; the original
exception is its cause, which ``--debug`` shows.

:func:`checked_env` makes every env a run builds check its outputs: a reward that is not a finite
number on any step, and an observation outside the declared space on reset and every
:data:`CHECK_EVERY`-th step (every step when the environment variable ``ZOO_CHECK_EVERY`` is 1).
"""

from __future__ import annotations

import math
import os
import traceback
from dataclasses import dataclass
from typing import Any

import numpy as np

from .errors import RunFailed, one_line

#: observations are checked on reset and on every CHECK_EVERY-th step unless ``ZOO_CHECK_EVERY`` says otherwise
CHECK_EVERY = 100
#: the characters of an exception's message a failure quotes (some libraries' messages run to thousands)
MESSAGE_LIMIT = 300
#: an attribute of an exception raised by an env's checked method: (plugin, entry, call)
_ENV_FAULT = "__zoo_env_fault__"


class PluginFailed(RunFailed):
    """A plugin's env, agent, meta-controller or reporter raised: one line naming the plugin, the entry and the call."""


@dataclass(frozen=True)
class Suspect:
    """An entry a run calls: its kind, name, plugin and the top-level package its code lives in."""

    kind: str
    name: str
    plugin: str
    package: str


def suspect(kind: str, entry: Any, function: Any) -> Suspect:
    """`entry` (of `kind`) as a suspect, its code being where `function` (its factory, its report) is defined."""
    return Suspect(kind, entry.name, entry.plugin, _package(getattr(function, "__module__", "") or ""))


def blame(exc: BaseException, agent: Suspect, others: tuple[Suspect, ...] = ()) -> PluginFailed | None:
    """`exc` as the failure of the plugin whose code raised it; None when neither a checked env method nor the code
    of `agent` or `others` is in its traceback (the kernel's own bug, or a library's)."""
    fault = getattr(exc, _ENV_FAULT, None)
    frames = [frame for frame in _frames(exc) if not _is_kernel(frame)]
    if fault is not None:
        plugin, name, call = fault
        return _failure(f"plugin {plugin}, env {name}, {call}", exc, frames)
    for culprit in (*(other for other in others if other.package != agent.package), agent):
        own = [frame for frame in frames if _package(frame[0]) == culprit.package]
        if own:
            return _failure(f"plugin {culprit.plugin}, {_label(culprit.kind)} {culprit.name}, {own[0][2]}", exc, own)
    return None


def checked_env(env: Any, plugin: str, name: str) -> Any:
    """`env` with its ``reset`` and ``step`` checked (see the module's docstring): the same object, so that agents
    still see every attribute of the env's class, and it copies and pickles as before. An env whose methods
    cannot be replaced trains unchecked."""
    every = _check_every()
    own = getattr(env, "__dict__", None)
    if own is None or "reset" in own or "step" in own:
        return env  # no instance attributes (slots, a compiled class), or methods replaced already
    try:
        for call in ("reset", "step"):
            setattr(env, call, _CheckedCall(env, call, plugin, name, every))
    except (AttributeError, TypeError):
        pass
    return env


class _CheckedCall:
    """An env's own ``reset`` or ``step`` (of its class), marking what it raises and checking what it returns."""

    def __init__(self, env: Any, call: str, plugin: str, name: str, every: int):
        self.env, self.call, self.plugin, self.name, self.every, self.steps = env, call, plugin, name, every, 0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            result = getattr(type(self.env), self.call)(self.env, *args, **kwargs)
        except Exception as exc:
            if not hasattr(exc, _ENV_FAULT):
                try:
                    setattr(exc, _ENV_FAULT, (self.plugin, self.name, self.call))
                except AttributeError:  # an exception type with slots cannot carry the mark
                    pass
            raise
        if self.call == "step":
            reward = result[1]
            finite = math.isfinite(reward) if isinstance(reward, (int, float)) else np.isfinite(reward).all()
            if not finite:
                raise PluginFailed(f"plugin {self.plugin}, env {self.name}, step: "
                                   f"the reward {reward!r} is not a finite number")
            self.steps += 1
        if self.call == "reset" or self.steps % self.every == 0:
            self._check_observation(result[0])
        return result

    def _check_observation(self, observation: Any) -> None:
        space = getattr(self.env, "observation_space", None)  # batched for a vector env
        if space is None or in_space(space, observation):
            return
        shape = getattr(observation, "shape", None)
        raise PluginFailed(f"plugin {self.plugin}, env {self.name}, {self.call}: the observation "
                           f"({type(observation).__name__}{f' of shape {shape}' if shape is not None else ''})"
                           f" is not in its observation space {space}")


def in_space(space: Any, observation: Any) -> bool:
    """Whether `observation` is in `space`, letting a Box's values come in another numeric dtype (float64 for float32)."""
    if space.contains(observation):
        return True
    shape, dtype = getattr(space, "shape", None), getattr(space, "dtype", None)
    if type(space).__name__ != "Box" or np.shape(observation) != shape:
        return False
    values = np.asarray(observation)
    return values.dtype.kind in "biuf" and bool(np.all(np.isfinite(values))) and space.contains(values.astype(dtype))


def _check_every() -> int:
    value = os.environ.get("ZOO_CHECK_EVERY", "")
    return int(value) if value.isdigit() and int(value) > 0 else CHECK_EVERY


def _frames(exc: BaseException) -> list[tuple[str, traceback.FrameSummary, str]]:
    """(module, frame, function) of each frame of `exc`'s traceback, outermost first."""
    return [(frame.f_globals.get("__name__", ""), summary, summary.name)
            for (frame, _), summary in zip(traceback.walk_tb(exc.__traceback__),
                                          traceback.extract_tb(exc.__traceback__))]


def _is_kernel(frame: tuple[str, traceback.FrameSummary, str]) -> bool:
    module = frame[0]
    return module == "zoo" or module.startswith("zoo.")


def _package(module: str) -> str:
    return module.partition(".")[0]


def _label(kind: str) -> str:
    return kind.replace("_", "-")


def _failure(head: str, exc: BaseException, frames: list) -> PluginFailed:
    """The one line: `head`, the exception (its message cut at MESSAGE_LIMIT characters) and the innermost of `frames`."""
    where = f" ({frames[-1][1].filename}:{frames[-1][1].lineno})" if frames else ""
    message = one_line(str(exc))
    if len(message) > MESSAGE_LIMIT:
        message = message[:MESSAGE_LIMIT] + "... (--debug shows all of it)"
    return PluginFailed(f"{head}: {type(exc).__name__}: {message}{where}")
