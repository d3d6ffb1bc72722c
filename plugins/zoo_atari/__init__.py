"""The zoo's Atari plugin: games by name, named protocols, score tables and normalised-score reports.

``env: {type: atari, game: Breakout, protocol: {name: dqn2015}}`` builds a protocol's gymnasium
pipeline (or ale-py's AtariVectorEnv for agents that step many copies);
``env: {type: synthetic-atari, game: catch}`` the spec's SyntheticAtari games without ale-py;
``zoo_atari.scores`` has HNS, HWRNS/SABER, HWRB and the ALE paper's normalisations.
"""
