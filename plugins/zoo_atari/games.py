"""Atari game names: the 57 standard games, the ALE paper's 55 and its train/test split.

A game is given by its display name (``Breakout``, ``MontezumaRevenge``) or its ale-py ROM id
(``breakout``, ``montezuma_revenge``); both resolve to the ROM id.
"""

from __future__ import annotations

import csv
from functools import lru_cache
from importlib import resources

from zoo import did_you_mean, require_extra


def read_table(name: str) -> list[dict[str, str]]:
    """Rows of a CSV shipped in ``zoo_atari/data``."""
    with resources.files("zoo_atari").joinpath("data", name).open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


@lru_cache(maxsize=1)
def atari57() -> tuple[str, ...]:
    """ROM ids of the 57 games of the Atari-57 benchmark (Agent57, GDI, LBC, DiCE)."""
    return tuple(row["game"] for row in read_table("gdi-scores.csv"))


@lru_cache(maxsize=1)
def ale_split() -> dict[str, str]:
    """ROM id -> 'train' or 'test' for the ALE paper's 55 games (5 training, 50 test)."""
    return {row["game"]: row["split"] for row in read_table("ale-scores.csv")}


def training_games() -> list[str]:
    return [game for game, split in ale_split().items() if split == "train"]


def test_games() -> list[str]:
    return [game for game, split in ale_split().items() if split == "test"]


def display_name(rom_id: str) -> str:
    """``montezuma_revenge`` -> ``MontezumaRevenge``."""
    return "".join(part.capitalize() for part in rom_id.split("_"))


@lru_cache(maxsize=1)
def _known() -> dict[str, str]:
    require_extra("ale_py", "atari", "the atari env")
    import ale_py.roms

    ids = set(ale_py.roms.get_all_rom_ids())
    return {_key(rom): rom for rom in ids}


def _key(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch.isalnum())


def resolve_game(name: str) -> str:
    """The ale-py ROM id of a game name; ValueError with a did-you-mean for an unknown one."""
    rom = _known().get(_key(name))
    if rom is None:
        standard = [display_name(g) for g in atari57()]
        others = sorted(display_name(g) for g in _known().values())
        raise ValueError(f"unknown Atari game '{name}'{did_you_mean(name, others)}; the 57 standard games: "
                         f"{', '.join(standard)}")
    return rom
