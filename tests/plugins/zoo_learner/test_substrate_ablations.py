"""benchmarks/substrate_ablations.py: its specs, its rank test, its table and its resumable cells."""

from __future__ import annotations

import importlib.util
import itertools
import re
import sys
from pathlib import Path

import numpy as np
import pytest

SCRIPT = Path(__file__).resolve().parents[3] / "benchmarks" / "substrate_ablations.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("substrate_ablations", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


def exact_u_p(a, b) -> float:
    """Slow reference: the share of all splits of the pooled values whose U(a > b) is at least the observed one."""
    def u(x, y):
        return sum((xi > yi) + 0.5 * (xi == yi) for xi in x for yi in y)

    pooled, observed = [*a, *b], u(a, b)
    splits = list(itertools.combinations(range(len(pooled)), len(a)))
    hits = 0
    for chosen in splits:
        x = [pooled[i] for i in chosen]
        y = [pooled[i] for i in range(len(pooled)) if i not in chosen]
        hits += u(x, y) >= observed
    return hits / len(splits)


def test_one_sided_p_is_the_exact_permutation_p_in_the_agents_favour(bench):
    rng = np.random.default_rng(3)
    for _ in range(5):
        a, b = rng.normal(0.5, 1, 5), rng.normal(0, 1, 5)
        assert bench.one_sided_p(a, b) == pytest.approx(exact_u_p(a, b))
    higher, lower = [5.0, 6, 7, 8, 9], [0.0, 1, 2, 3, 4]
    assert bench.one_sided_p(higher, lower) == pytest.approx(1 / 252)  # the smallest p of 5 against 5
    assert bench.one_sided_p(lower, higher) == pytest.approx(1.0)


def test_table_rows_carry_each_variants_summary_and_the_pairs_p(bench):
    scores = {"gdi-i3": {"eval_mean": [5.0, 6, 7, 8, 9]}, "gdi-i3-without-E": {"eval_mean": [0.0, 1, 2, 3, 4]},
              "lbc": {"eval_mean": [1.0, 2, 3]}, "lbc-random": {"eval_mean": [1.5, 2.5, 3.5]}}
    lines = bench.table(scores, "eval_mean").splitlines()
    assert len(lines) == 2 + 4  # header, rule, two rows per pair measured (gdi-i3-fixed is missing)
    assert lines[2].startswith("| gdi-i3 vs gdi-i3-without-E | gdi-i3 | 5 | 7.00 [")
    assert re.search(r"\| 7\.00 \[[\d.]+, [\d.]+\] \| 7\.00 \[", lines[2])
    assert lines[3].startswith("| | gdi-i3-without-E | 5 | 2.00 [") and lines[3].endswith("| 0.004 | 1 |")
    assert lines[5].startswith("| | lbc-random | 3 | 2.50 [")
    assert lines[5].endswith(f"| {exact_u_p([1, 2, 3], [1.5, 2.5, 3.5]):.2g} | {exact_u_p([1.5, 2.5, 3.5], [1, 2, 3]):.2g} |")


def test_every_cell_is_a_valid_spec_and_the_variants_differ_only_in_the_ablation(bench):
    from zoo.registry import get_registry
    from zoo.spec import load_spec_text

    registry = get_registry()
    for world in bench.WORLDS.values():
        specs = {variant: load_spec_text(bench.spec_text(world, variant, 4, world.steps), registry)
                 for variant in bench.VARIANTS}
        for agent, ablation in bench.PAIRS:
            mine, theirs = specs[agent].model_dump(), specs[ablation].model_dump()
            assert mine["budget"] == theirs["budget"] and mine["budget"]["steps"] == world.steps
            assert mine["seeds"] == theirs["seeds"] == [4]
            assert mine["agent"]["ablation"] == "none" and theirs["agent"]["ablation"] == bench.VARIANTS[ablation][1]
            assert {**mine["agent"], "ablation": None, "name": None} == {**theirs["agent"], "ablation": None, "name": None}


def test_a_cell_trains_once_and_is_read_back(bench, tmp_path):
    world = bench.WORLDS["minatar"]
    folder = tmp_path / "minatar" / "gdi-i3-fixed" / "seed-1"
    bench.train_cell(folder, bench.spec_text(world, "gdi-i3-fixed", 1, 300))
    result = folder / "trials" / "000" / "result.json"
    first = result.stat().st_mtime_ns
    cell = bench.read_cell(folder)
    assert set(cell) == {"eval_mean", "auc", "cpu_seconds", "wall_seconds"}
    assert np.isfinite(cell["eval_mean"]) and np.isfinite(cell["auc"]) and cell["eval_mean"] >= 0
    bench.train_cell(folder, bench.spec_text(world, "gdi-i3-fixed", 1, 300))  # finished: read, not retrained
    assert result.stat().st_mtime_ns == first
    # the same folder asked for with other settings (as after a preset changed) stops the script, naming them
    other = bench.spec_text(world, "gdi-i3-fixed", 1, 300).replace("preset: cpu_small", "preset: cpu_small, gamma: 0.95")
    assert other != bench.spec_text(world, "gdi-i3-fixed", 1, 300)
    with pytest.raises(SystemExit, match=r"seed-1: made with other settings than its cell gives now \(agent\.gamma\)"):
        bench.train_cell(folder, other)
    assert result.stat().st_mtime_ns == first


def test_changed_settings_names_every_differing_or_missing_key(bench):
    stored = {"agent": {"type": "gdi-i3", "network": {"lstm": 64}}, "seed": 0}
    now = {"agent": {"type": "gdi-i3", "network": {"lstm": 32}, "bandit_scale": "linear"}, "seed": 0}
    assert bench.changed_settings(stored, now) == ["agent.bandit_scale", "agent.network.lstm"]
    assert bench.changed_settings(now, now) == []
