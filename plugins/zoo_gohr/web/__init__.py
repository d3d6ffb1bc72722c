"""``zoo gohr serve``: people play hidden rules in a browser, and every episode is kept as a transcript.

``experiment`` (what is played), ``session`` (one player's games), ``store`` (the transcripts),
``app`` (the Starlette app; imported only when serving), ``recorded`` (the agent ``human``: a store's
players as trials), ``runs`` (transcripts as runs of agent ``human``).
"""
