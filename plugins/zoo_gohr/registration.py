"""GOHR in gymnasium's registry: ``gymnasium.make("zoo_gohr:GOHR/Clockwise-v0")``.

Importing ``zoo_gohr`` registers, as ale-py does for ``ALE/...``:

* ``GOHR/<Name>-v0`` for each rule of the GOHR paper (``rules/paper``) and of the authors' MLC
  benchmark (``rules/gohr/rules/MLC/BMK``), on the benchmark's boards (9 pieces, 4 shapes, 4 colors);
* ``GOHR/Rule-v0``, which takes ``rule=`` (a rule name or rule file) and optionally ``horizon=``,
  ``board={...}`` or the board settings themselves (``min_objects=6``, ...), as in a spec's env block.

Every id also has a ``vector_entry_point``, so ``gymnasium.make_vec(id, n,
vectorization_mode="vector_entry_point")`` returns the numpy :class:`~zoo_gohr.vector.vector_env.GohrVectorEnv`.
Nothing heavier than gymnasium is imported until an env is made.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

import gymnasium

NAMESPACE = "GOHR"
GENERIC = f"{NAMESPACE}/Rule-v0"

#: the rule sets with one id per rule: (rule-name prefix, folder under the shipped rules/)
ID_SETS = (("paper", "paper"), ("gohr/MLC/BMK", "gohr/rules/MLC/BMK"))


def env_name(stem: str) -> str:
    """The id name of a rule file stem: ``color_match`` -> ``ColorMatch``, ``colOrd_RBYK`` -> ``ColOrdRBYK``."""
    return "".join(part[:1].upper() + part[1:] for part in stem.replace("-", "_").split("_") if part)


def named_rules() -> dict[str, str]:
    """``GOHR/<Name>-v0`` -> rule name, for every rule of the paper and of the MLC benchmark."""
    root = Path(str(resources.files("zoo_rules")))
    ids: dict[str, str] = {}
    for prefix, folder in ID_SETS:
        for path in sorted((root / folder).glob("*.txt")):
            env_id = f"{NAMESPACE}/{env_name(path.stem)}-v0"
            if env_id in ids:
                raise RuntimeError(f"two GOHR rules map to the gymnasium id {env_id}: "
                                   f"{ids[env_id]} and {prefix}/{path.stem}")
            ids[env_id] = f"{prefix}/{path.stem}"
    return ids


def _params(rule: str | None, horizon: int, board: dict[str, Any] | None, board_settings: dict[str, Any]):
    """The validated spec block these kwargs describe (the same checks and messages as a spec's)."""
    from pydantic import ValidationError

    from .params import GohrEnvParams

    if rule is None:
        raise ValueError(f"{GENERIC} needs rule=: a rule name such as 'paper/clockwise' ('zoo gohr rules' lists them) "
                         "or the path of a rule file")
    try:
        return GohrEnvParams(rule=rule, horizon=horizon, board={**(board or {}), **board_settings})
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'env'}: {e['msg']}" for e in exc.errors())
        raise ValueError(f"GOHR env: {problems}") from None


def make_env(rule: str | None = None, horizon: int = 100, board: dict[str, Any] | None = None,
             render_mode: str | None = None, **board_settings: Any):
    """The :class:`~zoo_gohr.env.GohrEnv` of a rule (``entry_point`` of every GOHR id)."""
    from .board_sources import board_source
    from .env import GohrEnv
    from .named_rules import load_named_rules

    params = _params(rule, horizon, board, board_settings)
    return GohrEnv(load_named_rules(params.rule), board_source(params.board), horizon=params.horizon,
                   shapes=tuple(params.board.shapes), colors=tuple(params.board.colors), render_mode=render_mode)


def make_vector_env(num_envs: int, rule: str | None = None, horizon: int = 100, board: dict[str, Any] | None = None,
                    render_mode: str | None = None, **board_settings: Any):
    """The numpy :class:`~zoo_gohr.vector.vector_env.GohrVectorEnv` of a rule (``vector_entry_point`` of every id)."""
    from .factories import make_vector_env as make_from_params

    if render_mode is not None:
        raise ValueError("the numpy GOHR vector env draws no pictures; for frames of many boards use "
                         "vectorization_mode='sync' (each GohrEnv renders)")

    return make_from_params(_params(rule, horizon, board, board_settings), num_envs, seed=None)


def register_envs() -> None:
    """Register the GOHR ids (idempotent: ids already registered are left alone)."""
    entries = {GENERIC: {}} | {env_id: {"rule": rule} for env_id, rule in named_rules().items()}
    for env_id, kwargs in entries.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(env_id, entry_point=f"{__name__}:make_env",
                               vector_entry_point=f"{__name__}:make_vector_env", kwargs=kwargs)
