"""Meta-controllers: they pick a point of an agent's behavior space per episode from episode returns.

Built in: GDI's bandit population (``gdi_bandits``), ``fixed``, ``uniform``, ``ucb1``,
``sliding_window_ucb`` (Agent57) and ``thompson``. All but the first two are factorized: one bandit
per coordinate over that coordinate's blocks, every one updated with the same return; the
chosen point is drawn uniformly inside the chosen blocks.
"""
