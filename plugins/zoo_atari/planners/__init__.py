"""The ALE paper's planning agents (Bellemare et al. 2013, Section 3.2): breadth-first search and UCT,
which use the emulator itself as a generative model through clone/restore of its state.

``model`` adapts an ALE-like game to the small protocol the planners search over; ``bfs`` and ``uct``
choose one action from a state; ``agent`` plays whole episodes with either.
"""
