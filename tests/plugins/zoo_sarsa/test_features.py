"""The ALE feature sets on synthetic screens and RAM with known answers (docs/algorithms/sarsa-ale.md)."""

from __future__ import annotations

import numpy as np
import pytest
from zoo_sarsa.disco import DiscoFeatures, discover_classes, shape_of
from zoo_sarsa.features import BasicFeatures, BassFeatures, LshFeatures, RamFeatures
from zoo_sarsa.pairs import pair_index, pairs_size, with_pairs
from zoo_sarsa.screens import background_mode, secam

BACKGROUND = np.tile(np.arange(0, 160, dtype=np.uint8) // 10 * 2, (210, 1))  # a striped, non-uniform scene


def test_sizes():
    assert BasicFeatures(BACKGROUND).size == 28_672
    assert BassFeatures(BACKGROUND).size == 1_606_528
    assert RamFeatures().size == 524_800
    lsh = LshFeatures()
    assert lsh.size == 100_000 and len(lsh.from_screen(BACKGROUND)) == 2000


def test_basic_on_known_screens():
    basic = BasicFeatures(BACKGROUND)
    assert len(basic.from_screen(BACKGROUND)) == 0
    screen = BACKGROUND.copy()
    screen[45:60, 50:60] = 0x44  # tile (row 3, col 5)
    assert basic.from_screen(screen).tolist() == [(3 * 16 + 5) * 128 + 0x22] == [6818]
    shifted = BACKGROUND.copy()
    shifted[45:60, 55:65] = 0x44  # straddles columns 5 and 6
    assert basic.from_screen(shifted).tolist() == [6818, 6818 + 128]


def test_secam_map():
    indices = np.arange(0, 256, 2, dtype=np.uint8)
    assert np.array_equal(secam(indices), (indices >> 1) & 7)
    assert len(np.unique(secam(indices))) == 8
    assert secam(np.uint8(0x44)) == secam(np.uint8(0x54))  # same luminance, different hue


def test_bass_pairs():
    bass = BassFeatures(BACKGROUND)
    screen = BACKGROUND.copy()
    screen[0:15, 0:10] = 0x44  # tile 0, SECAM colour 2
    screen[195:210, 150:160] = 0x0E  # tile 223, SECAM colour 7
    i, j = 0 * 8 + 2, 223 * 8 + 7
    assert bass.from_screen(screen).tolist() == [i, j, int(pair_index(i, j, 1792))]


def test_pair_index_is_a_bijection_onto_the_pair_range():
    n = 50
    i, j = np.triu_indices(n, k=1)
    index = pair_index(i, j, n)
    assert sorted(index.tolist()) == list(range(n, pairs_size(n)))
    assert len(with_pairs(np.array([1, 5, 7, 9]), n)) == 4 + 6


def test_ram():
    ram = RamFeatures()
    assert len(ram.from_ram(np.zeros(128, np.uint8))) == 0
    one = np.zeros(128, np.uint8)
    one[0] = 0b00000101
    assert ram.from_ram(one).tolist() == [0, 2, int(pair_index(0, 2, 1024))]
    assert len(ram.from_ram(np.full(128, 0xFF, np.uint8))) == 1024 + 523_776


def test_lsh_blocks_determinism_and_locality():
    lsh = LshFeatures(seed=3)
    active = lsh.from_screen(BACKGROUND)
    assert np.array_equal(active // 50, np.arange(2000))
    assert np.array_equal(active, LshFeatures(seed=3).from_screen(BACKGROUND.copy()))
    changed = BACKGROUND.copy()
    y, x = 2, 3
    changed[y, x] = 10  # c7 5, was c7 0
    old, new = x + 160 * y + 33600 * (int(BACKGROUND[y, x]) >> 1), x + 160 * y + 33600 * 5
    assert new == 168_323
    coords = lsh.coords  # support coordinates x + 160 y + 33600 c7
    touched = np.flatnonzero(((coords == old) | (coords == new)).any(axis=1))
    moved = np.flatnonzero(lsh.from_screen(changed) != active)
    assert set(moved) <= set(touched)


def test_lsh_matches_its_definition_on_random_screens():
    lsh = LshFeatures(tables=300, support=400, buckets=50, seed=1)
    rng = np.random.default_rng(2)
    for _ in range(3):
        screen = (rng.integers(0, 128, size=(210, 160)) * 2).astype(np.uint8)
        bits = np.zeros(128 * 210 * 160, bool)
        y, x = np.indices(screen.shape)
        bits[(x + 160 * y + 33600 * (screen.astype(np.int64) >> 1)).ravel()] = True
        expected = np.arange(300) * 50 + (lsh.hash * bits[lsh.coords]).sum(axis=1) % 50
        assert np.array_equal(lsh.from_screen(screen), expected)


def test_background_is_the_mode_and_the_sprite_is_foreground():
    rng = np.random.default_rng(0)
    scene = (rng.integers(0, 128, size=(210, 160)) * 2).astype(np.uint8)
    frames = []
    for t in range(200):
        frame = scene.copy()
        frame[100:110, t % 150:t % 150 + 8] = 0xFE
        frames.append(frame)
    background = background_mode([np.stack(frames[:120]), np.stack(frames[120:])])
    assert np.array_equal(background, scene)
    basic = BasicFeatures(background)
    assert len(basic.from_screen(frames[7])) > 0 and len(basic.from_screen(scene)) == 0


def test_grids_must_divide_the_screen():
    assert BassFeatures(BACKGROUND, cols=8, rows=7).size == pairs_size(8 * 7 * 8)
    with pytest.raises(ValueError, match="does not divide"):
        BassFeatures(BACKGROUND, cols=15)


def _disco_screens():
    frames = []
    for t in range(100):
        screen = np.zeros((210, 160), np.uint8)
        screen[5:8, 5:40] = 0x0E  # a static HUD bar: filtered out
        x = 20 + (2 * t) % 100
        screen[50:53, x:x + 3] = 0x44  # 3x3 squares, two of them
        screen[150:153, (3 * t) % 140:(3 * t) % 140 + 3] = 0x44
        screen[120 + t % 50:125 + t % 50, 30:32] = 0x86  # a 5-high, 2-wide bar
        frames.append(screen)
    return frames


def test_disco_discovers_classes_counts_instances_and_detects_approach():
    background = np.zeros((210, 160), np.uint8)
    classes = discover_classes(_disco_screens(), background)
    assert sorted(shape_of(c[0]).shape for c in classes) == [(3, 3), (5, 2)]
    disco = DiscoFeatures(background, classes, tilings=4, resolution=8)
    assert disco.size == 2 * (64 * 4 + 1) + 1 * 4 * 256 == 1538
    square = next(c for c, keys in enumerate(classes) if shape_of(keys[0]).shape == (3, 3))
    assert [len(p) for p in disco.instances(_disco_screens()[10])][square] == 2

    def screen(square_x):
        s = np.zeros((210, 160), np.uint8)
        s[50:53, square_x:square_x + 3] = 0x44
        s[49:54, 100:102] = 0x86
        return s

    sub_blocks = []
    for x in (20, 22, 24):  # the square drifts +2 px per decision towards the bar, same height
        pairs = disco.from_screen(screen(x))
        pairs = pairs[pairs >= disco.pairs_offset] - disco.pairs_offset
        sub_blocks.append(set(pairs // disco.block))
    assert sub_blocks == [{0}, {2}, {2}]  # approaching in x only once a previous screen exists


def test_disco_adds_instances_of_a_class_in_the_same_tile():
    background = np.zeros((210, 160), np.uint8)
    classes = discover_classes(_disco_screens(), background)
    disco = DiscoFeatures(background, classes, tilings=4, resolution=8)
    square = next(c for c, keys in enumerate(classes) if shape_of(keys[0]).shape == (3, 3))
    s = np.zeros((210, 160), np.uint8)
    s[50:53, 39:42] = 0x44  # centres x = 40 and 44: the same tile in all four tilings
    s[50:53, 43:46] = 0x44
    counts = np.bincount(disco.from_screen(s), minlength=disco.size)
    block = counts[square * (disco.block + 1): (square + 1) * (disco.block + 1)]
    assert sorted(block[block > 0].tolist()) == [2] * 4  # the same tile of each of the 4 tilings, twice
    assert block[disco.block] == 0  # present: its absent indicator is off


def _square_and_bar(square_x: int | None, bar: bool = True) -> np.ndarray:
    s = np.zeros((210, 160), np.uint8)
    if square_x is not None:
        s[50:53, square_x:square_x + 3] = 0x44
    if bar:
        s[49:54, 100:102] = 0x86
    return s


def test_disco_absent_indicator_is_on_exactly_for_the_classes_without_an_instance():
    background = np.zeros((210, 160), np.uint8)
    classes = discover_classes(_disco_screens(), background)
    disco = DiscoFeatures(background, classes, tilings=4, resolution=8)
    square = next(c for c, keys in enumerate(classes) if shape_of(keys[0]).shape == (3, 3))
    bar = 1 - square
    absent = [c * (disco.block + 1) + disco.block for c in range(2)]
    assert disco.from_screen(_square_and_bar(None, bar=False)).tolist() == sorted(absent)  # an empty screen
    disco.reset()
    only_bar = disco.from_screen(_square_and_bar(None))
    assert absent[square] in only_bar and absent[bar] not in only_bar
    assert len(only_bar) == 4 + 1  # the bar's 4 tilings and the square's absent indicator; no pair without a square
    disco.reset()
    both = disco.from_screen(_square_and_bar(20))
    assert not set(absent) & set(both.tolist())


def test_disco_reset_starts_an_episode_as_a_fresh_extractor():
    background = np.zeros((210, 160), np.uint8)
    classes = discover_classes(_disco_screens(), background)
    disco = DiscoFeatures(background, classes, tilings=4, resolution=8)
    for x in (16, 18, 20):  # episode 1: the square drifts towards the bar
        disco.from_screen(_square_and_bar(x))
    first_of_next = _square_and_bar(24)
    fresh = DiscoFeatures(background, classes, tilings=4, resolution=8).from_screen(first_of_next)
    carried_over = DiscoFeatures(background, classes, tilings=4, resolution=8)
    carried_over.from_screen(_square_and_bar(20))
    assert carried_over.from_screen(first_of_next).tolist() != fresh.tolist()  # the previous screen would matter
    disco.reset()  # episode 2
    assert disco.from_screen(first_of_next).tolist() == fresh.tolist()


def test_known_vectors_on_a_synthetic_atari_catch_screen():
    from zoo_atari.synthetic_env import SyntheticAtariEnv

    env = SyntheticAtariEnv("catch")
    env.reset(seed=0)
    screen, ram = env.ale.getScreen(), env.ale.getRAM()
    assert ram[:3].tolist() == [0, 4, 2]  # ball row 0, column 4; paddle column 2
    # the ball (0x44, 8 x 9 px) covers x 140-147, y 6-14: tile (0, 14); the paddle (0x1E, 32 x 6 px)
    # covers x 64-95, y 196-201: tiles (13, 6) to (13, 9)
    black = np.zeros((210, 160), np.uint8)
    paddle = [(13 * 16 + col) * 128 + 0x0F for col in range(6, 10)]
    assert BasicFeatures(black).from_screen(screen).tolist() == [14 * 128 + 0x22] + paddle
    bass_base = [14 * 8 + 2] + [(13 * 16 + col) * 8 + 7 for col in range(6, 10)]
    assert BassFeatures(black).from_screen(screen).tolist() == with_pairs(np.array(bass_base), 1792).tolist()
    ball_column_bit, paddle_column_bit = 8 * 1 + 2, 8 * 2 + 1  # 4 = 0b100 in byte 1, 2 = 0b10 in byte 2
    assert RamFeatures().from_ram(ram).tolist() == [ball_column_bit, paddle_column_bit,
                                                    int(pair_index(ball_column_bit, paddle_column_bit, 1024))]
