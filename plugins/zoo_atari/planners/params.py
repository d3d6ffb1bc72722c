"""The planners' parameters, with the source of each default."""

from __future__ import annotations

from pydantic import Field

from zoo import Params

GAMMA = Field(default=0.999, gt=0.0, le=1.0, description=(
    "discount per decision; the ALE paper uses its learners' discount (Section 3.2.2), which the paper's text "
    "lost: 0.999 as the zoo's SARSA agents (third-party ALE code uses 0.995 to 0.999)"))


class BFSParams(Params):
    """Breadth-first search (the ALE paper, Section 3.2.1)."""

    max_frames: int = Field(default=100_000, ge=1, le=10**9, description=(
        "emulated frames per decision; the node budget is this over the env's frames per decision "
        "(100,000 frames, 20,000 nodes at 5 frames: the ALE paper's Section 3.2.1)"))
    gamma: float = GAMMA


class UCTParams(Params):
    """UCT with UCB1 selection (the ALE paper, Section 3.2.1 and Appendix B)."""

    simulations: int = Field(default=500, ge=1, le=10**7, description=(
        "simulations per decision (500: the paper's Appendix C as quoted by third-party ALE search code, "
        "and an independent UCT replication)"))
    horizon_frames: int = Field(default=300, ge=1, le=10**6, description=(
        "search horizon in frames from the root, tree and rollout together (300 frames = 60 decisions at 5 "
        "frames; same sources as simulations)"))
    exploration: float = Field(default=0.1, ge=0.0, le=1e6, description=(
        "UCB1's exploration constant C on normalised rewards (0.1: same sources as simulations)"))
    gamma: float = GAMMA
    prune_duplicates: bool = Field(default=True, description=(
        "actions leading to the same emulator state enter the tree once (the paper's optimisation, Section 3.2.1)"))
    reuse_tree: bool = Field(default=True, description="the played action's subtree is the next root (Section 3.2.1)")
    normalise_rewards: bool = Field(default=True, description=(
        "rewards divided by the magnitude of the first non-zero reward the search simulates in the episode (an "
        "option of the ALE search code; C = 0.1 assumes it)"))
