"""Agent-level ablations of the substrate: GDI-I3 against "without E" and fixed selection, LBC against random selection.

Each variant trains the same number of steps on each world (a GOHR rule and a MinAtar game), one
``zoo`` run per (world, variant, seed) under OUT/WORLD/STEPS-steps/VARIANT/seed-S, through the same code as
``zoo train`` (`zoo.prepare_run` and `execute_run`). A run already finished under OUT is read,
not trained again, and an unfinished one is resumed, so the benchmark can be run in pieces; a run whose
resolved spec differs from the one its cell resolves to now (a preset changed since) stops the script. The
metrics are the mean return of the final evaluation (`budget.eval_episodes` episodes after the
last step, the agent's own evaluation protocol) and the area under the learning curve, the mean
return of every training episode (on GOHR minus the errors per board). For each pair (agent,
ablation) the script prints a markdown table: per variant the median and mean over seeds with 95%
percentile-bootstrap intervals, and the one-sided Mann-Whitney U tests that the agent's scores
tend to be higher than the ablation's, and lower (scipy's exact test when there are no ties).

The variants (the papers' ablations, each with the meta-controller its plugin gives it):

* gdi-i3: GDI's bandit population E chooses (1/tau1, 1/tau2, eps) per episode;
* gdi-i3-without-E: `ablation: random_selection`, behaviors drawn uniformly (GDI, Table 20);
* gdi-i3-fixed: `ablation: fixed_selection`, one fixed behavior;
* lbc: LBC's voting bandits choose (tau_i, omega_i) per episode;
* lbc-random: `ablation: random_selection`, uniformly random (LBC, Table 12).

    OMP_NUM_THREADS=1 nice -n 19 python benchmarks/substrate_ablations.py OUT [--seeds 8] [--worlds gohr,minatar,gohr-searched,minatar-searched]
    python benchmarks/substrate_ablations.py OUT --smoke    # 2 seeds x a tiny budget: checks the machinery
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import json
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).parent))
from leaderboard_walltime import cpu_description  # noqa: E402
from zoo_report.stats import bootstrap_ci  # noqa: E402

from zoo import ZooError  # noqa: E402


@dataclass(frozen=True)
class World:
    """An env block and the substrate settings of examples/ for it, with the benchmark's budget."""

    env: str
    gdi: str
    lbc: str
    steps: int
    eval_episodes: int
    smoke_steps: int


_CELLS = "reuse: 8, length: 10, burn_in: 5, network: {torso: cells, hidden: [64], embedding: 64, lstm: 64}"
_MINATAR = "reuse: 4, length: 10, burn_in: 5, network: {torso: minatar, embedding: 128, lstm: 64}"

#: the settings of examples/gohr-gdi-i3.yaml, gohr-lbc.yaml, minatar-gdi-i3.yaml and minatar-lbc.yaml
WORLDS = {
    "gohr": World(env="{type: gohr, rule: paper/color_match, horizon: 100, "
                      "board: {min_objects: 9, min_shapes: 4, min_colors: 4}}",
                  gdi=f"preset: cpu_small, gamma: 0.9, {_CELLS}",
                  lbc=f"preset: cpu_small, {_CELLS}, members: [{{gamma: 0.9, shaping: rs1}}, "
                      "{gamma: 0.95, shaping: rs2}, {gamma: 0.85, shaping: rs3}]",
                  steps=20_000, eval_episodes=8, smoke_steps=1_000),
    "minatar": World(env="{type: minatar, game: breakout}", gdi=f"preset: cpu_small, {_MINATAR}",
                     lbc=f"preset: cpu_small, {_MINATAR}", steps=25_000, eval_episodes=16, smoke_steps=400),
    # GOHR again, with the agents' searched `gohr` presets (masked moves; docs/substrate.md)
    "gohr-searched": World(env="{type: gohr, rule: paper/color_match, horizon: 100, "
                               "board: {min_objects: 9, min_shapes: 4, min_colors: 4}}",
                           gdi="preset: gohr", lbc="preset: gohr", steps=20_000, eval_episodes=8, smoke_steps=1_000),
    # MinAtar again, with the agents' `minatar` presets (docs/substrate.md)
    "minatar-searched": World(env="{type: minatar, game: breakout}", gdi="preset: minatar", lbc="preset: minatar",
                              steps=25_000, eval_episodes=16, smoke_steps=400),
}

#: variant -> (agent type, ablation)
VARIANTS = {
    "gdi-i3": ("gdi-i3", "none"),
    "gdi-i3-without-E": ("gdi-i3", "random_selection"),
    "gdi-i3-fixed": ("gdi-i3", "fixed_selection"),
    "lbc": ("lbc", "none"),
    "lbc-random": ("lbc", "random_selection"),
}
#: (agent, its ablation): the tests ask whether the agent scores higher
PAIRS = [("gdi-i3", "gdi-i3-without-E"), ("gdi-i3", "gdi-i3-fixed"), ("lbc", "lbc-random")]
METRICS = {"eval_mean": "final evaluation return", "auc": "area under the learning curve (mean training return)"}


def spec_text(world: World, variant: str, seed: int, steps: int) -> str:
    """The run spec of one cell: one trial with seed `seed`."""
    kind, ablation = VARIANTS[variant]
    settings = world.gdi if kind.startswith("gdi") else world.lbc
    return (f"name: {variant}-seed-{seed}\nenv: {world.env}\nagent: {{type: {kind}, ablation: {ablation}, {settings}}}\n"
            f"budget: {{steps: {steps}, eval_episodes: {world.eval_episodes}, checkpoint_every: {max(steps // 4, 1)}}}\n"
            f"trials: 1\nseeds: [{seed}]\n"
            "logging: {tensorboard: false, progress: false, keep_checkpoints: 1}\n")


ABSENT = object()


def changed_settings(stored: dict, now: dict, prefix: str = "") -> list[str]:
    """The dotted keys whose values differ between two resolved specs (a key only one of them has included)."""
    changed = []
    for key in sorted(set(stored) | set(now)):
        old, new = stored.get(key, ABSENT), now.get(key, ABSENT)
        if isinstance(old, dict) and isinstance(new, dict):
            changed += changed_settings(old, new, f"{prefix}{key}.")
        elif old != new:
            changed.append(f"{prefix}{key}")
    return changed


def train_cell(folder: Path, text: str) -> None:
    """Create the run at `folder` from `text` unless it exists, then train what is left of it (nothing once finished).
    An existing run must have been made from the spec `text` resolves to now."""
    import yaml

    from zoo import RESOLVED_SPEC, RunFolder, execute_run, get_registry, load_spec_text, prepare_run

    registry = get_registry()
    run = RunFolder(folder)
    if run.manifest_path.exists():
        stored = yaml.safe_load((folder / RESOLVED_SPEC).read_text())
        changed = changed_settings(stored, load_spec_text(text, registry).model_dump(mode="json"))
        if changed:
            raise SystemExit(f"{folder}: made with other settings than its cell gives now ({', '.join(changed)}); "
                             "move it away (or name another OUT) to train the cell anew")
    else:
        folder.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="zoo-ablation-") as scratch:
            source = Path(scratch) / f"{folder.name}.yaml"
            source.write_text(text)
            run = prepare_run(source, registry, folder.parent, folder)
    status = execute_run(run, registry, progress=False)
    if status != "finished":
        raise SystemExit(f"{folder}: the run ended {status}; run the script again to resume it")


def read_cell(folder: Path) -> dict[str, float]:
    """A finished cell's final evaluation return, area under its learning curve and CPU seconds."""
    from zoo import RunFolder

    trial = RunFolder(folder).trial_dir(0)
    result = json.loads((trial / "result.json").read_text())
    returns = [json.loads(line).get("episode_return") for line in (trial / "metrics.jsonl").read_text().splitlines()]
    returns = [g for g in returns if g is not None]
    return {"eval_mean": float(result["eval_mean"]), "auc": float(np.mean(returns)) if returns else float("nan"),
            "cpu_seconds": float(result["cpu_seconds"]), "wall_seconds": float(result["wall_seconds"])}


def one_sided_p(agent, ablation) -> float:
    """p of the one-sided Mann-Whitney U test that `agent`'s values tend to exceed `ablation`'s."""
    return float(stats.mannwhitneyu(agent, ablation, alternative="greater").pvalue)


def describe(values) -> str:
    """'median [low, high] | mean [low, high]' with 95% percentile-bootstrap intervals."""
    values = np.asarray(values, float)
    parts = []
    for statistic in (np.median, np.mean):
        with warnings.catch_warnings():  # equal values give a zero-width interval, which scipy warns about
            warnings.simplefilter("ignore", stats.DegenerateDataWarning)
            low, high = bootstrap_ci(values, statistic)
        parts.append(f"{statistic(values):.2f} [{float(low):.2f}, {float(high):.2f}]")
    return " | ".join(parts)


def table(scores: dict[str, dict[str, list[float]]], metric: str) -> str:
    """Markdown: one row per (pair, variant) with median and mean over seeds, and the pair's one-sided p both ways."""
    lines = ["| agent vs ablation | variant | seeds | median [95% CI] | mean [95% CI] | p (agent > ablation) "
             "| p (ablation > agent) |", "|---|---|---|---|---|---|---|"]
    for agent, ablation in PAIRS:
        if agent not in scores or ablation not in scores:
            continue
        a, b = scores[agent][metric], scores[ablation][metric]
        lines.append(f"| {agent} vs {ablation} | {agent} | {len(a)} | {describe(a)} | | |")
        lines.append(f"| | {ablation} | {len(b)} | {describe(b)} | {one_sided_p(a, b):.2g} | {one_sided_p(b, a):.2g} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="folder of the runs (finished runs in it are read, not retrained)")
    parser.add_argument("--seeds", type=int, default=8)
    parser.add_argument("--worlds", default=",".join(WORLDS), help=f"comma-separated, of: {', '.join(WORLDS)}")
    parser.add_argument("--variants", default=",".join(VARIANTS), help=f"comma-separated, of: {', '.join(VARIANTS)}")
    parser.add_argument("--steps", type=int, default=None, help="steps per run instead of each world's budget")
    parser.add_argument("--smoke", action="store_true", help="2 seeds x a tiny budget, to check the machinery")
    args = parser.parse_args()
    worlds, variants = args.worlds.split(","), args.variants.split(",")
    for given, known, what in ((worlds, WORLDS, "world"), (variants, VARIANTS, "variant")):
        unknown = [name for name in given if name not in known]
        if unknown:
            parser.error(f"unknown {what} {unknown[0]!r}; the {what}s are {', '.join(known)}")
    seeds = 2 if args.smoke else args.seeds
    if seeds < 2:
        parser.error("--seeds must be at least 2 (the tests compare samples)")
    if args.steps is not None and args.steps < 1:
        parser.error("--steps must be at least 1")
    if args.out.exists() and not args.out.is_dir():
        parser.error(f"{args.out} is a file; OUT is the folder of the runs")

    import torch

    torch.set_num_threads(1)
    print(f"cpu: {cpu_description()}")
    for name in worlds:
        world = WORLDS[name]
        steps = args.steps or (world.smoke_steps if args.smoke else world.steps)
        started = time.perf_counter()
        scores: dict[str, dict[str, list[float]]] = {}
        for variant in variants:
            cells = []
            for seed in range(seeds):
                folder = args.out / name / f"{steps}-steps" / variant / f"seed-{seed}"
                try:
                    train_cell(folder, spec_text(world, variant, seed, steps))
                except ZooError as exc:
                    raise SystemExit(f"{folder}: {exc}") from None
                cells.append(read_cell(folder))
            scores[variant] = {key: [cell[key] for cell in cells] for key in cells[0]}
        cpu, wall = (sum(sum(s[key]) for s in scores.values()) for key in ("cpu_seconds", "wall_seconds"))
        print(f"\n{name}: env {world.env}, {steps} steps per run, {seeds} seeds (0-{seeds - 1}), "
              f"{world.eval_episodes} evaluation episodes; training over all runs: {cpu / 60:.1f} CPU-min, "
              f"{wall / 60:.1f} wall-min; this invocation: {(time.perf_counter() - started) / 60:.1f} wall-min")
        for metric, title in METRICS.items():
            print(f"\n{name}, {title}:\n\n{table(scores, metric)}")


if __name__ == "__main__":
    main()
