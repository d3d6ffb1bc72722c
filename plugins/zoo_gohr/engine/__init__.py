"""A pure-Python port of the authors' Captive Game Server (CGS): rule files from text to a
compiled rule set (``lexer``, ``parser``, ``syntax``, ``ruleset``, ``expressions``, ``compiler``,
``orders``), the board and its generator (``board``, ``javarandom``, ``ipb``), one episode's move
processing (``game``, ``memory``) and the replay of the server's transcripts (``conformance``).

Nothing here imports gymnasium or the zoo core; docs/algorithms/gohr-rules.md walks through it.
"""
