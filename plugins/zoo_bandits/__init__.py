"""Meta-controllers: they pick a point of an agent's behavior space per episode from episode returns.

Built in: GDI's bandit population (``gdi_bandits``), ``fixed``, ``uniform``, ``ucb1``,
``sliding_window_ucb`` (Agent57) and ``thompson``. All but the first two are factorized: one bandit
per coordinate over that coordinate's blocks, every one updated with the same return; the
chosen point is drawn uniformly inside the chosen blocks.

For evaluation every controller but ``uniform`` has ``best(rng)``: a point drawn uniformly inside
the region it values most, with no exploration bonus and no change of state. ``gdi_bandits``: per
ensemble the block with the highest mean over its bandits of V; ``fixed``: its point; the others:
per coordinate the block with the highest mean return (never-tried blocks last). Ties are broken
uniformly at random with the given rng.
"""
