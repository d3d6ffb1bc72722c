"""``zoo gohr serve``: people play hidden rules in a browser, in a study, and every move is kept.

``study`` (the study file: consent, rules and their orders, practice, questions, completion),
``experiment`` (stages from rule names and lists), ``session`` (one player's games, every move stored
before it counts), ``store`` (the transcripts and boards in play), ``participants`` (consents, orders,
answers, withdrawals), ``security`` (signed tokens, sign-in limits, Origin checks, headers, bounded
JSON), ``app`` and ``admin`` (the Starlette app and its researcher's side; imported only when
serving), ``recorded`` (the agent ``human``: a store's players as trials), ``runs`` (transcripts as
runs of agent ``human``).
"""
