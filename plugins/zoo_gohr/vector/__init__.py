"""The numpy layer under the GOHR gymnasium envs: the observation layout, many boards drawn at once
(``board_batch``), rule sets as numpy tables (``rule_tables``) and the games played on them
(``table_games``), one engine game per env for everything else (``game_list``), the vector env
that steps them (``vector_env``) and the GOHR paper's feature map (``features``).
"""
