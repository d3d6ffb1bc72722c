"""``zoo export``: an SB3 agent's checkpoint as stable-baselines3's own ``.zip``."""

from __future__ import annotations

from pathlib import Path

from zoo import Agent, ZooError


def export_sb3(agent: Agent, output: Path) -> list[Path]:
    """Write an SB3 agent in stable-baselines3's own ``.zip`` format (``PPO.load`` reads it); returns the files.

    With VecNormalize, its statistics go beside it in SB3's ``.pkl`` form (``VecNormalize.load``).
    """
    from stable_baselines3.common.base_class import BaseAlgorithm

    model = getattr(agent, "model", None)
    if not isinstance(model, BaseAlgorithm):
        raise ZooError(f"export writes stable-baselines3's .zip; a {type(agent).__name__} is not an SB3 agent")
    output = Path(output)
    if output.suffix != ".zip":
        raise ZooError(f"{output}: the export is a .zip file (SB3 adds the suffix otherwise)")
    if not output.parent.is_dir():
        raise ZooError(f"{output.parent}: no such folder")
    model.save(output, exclude=list(getattr(agent, "UNSAVED", ())))
    written = [output]
    normalizer = agent._normalizer() if hasattr(agent, "_normalizer") else None
    if normalizer is not None:
        written.append(output.with_suffix(".vecnormalize.pkl"))
        normalizer.save(written[-1])
    return written
