"""A run's resolved spec is read without applying presets again: a run made before a preset changed keeps the
values it was made with, and a field the run predates takes its default, not the preset's value."""

from __future__ import annotations

import yaml

from zoo import RESOLVED_SPEC, RunFolder, get_registry, load_run_spec, load_spec_text, prepare_run

SPEC = """name: made-before
env: {type: minatar, game: breakout}
agent: {type: gdi-i3, preset: minatar}
budget: {steps: 100}
"""


def test_a_run_made_before_a_field_existed_keeps_the_fields_default_not_its_presets_value(tmp_path):
    registry = get_registry()
    source = tmp_path / "made-before.yaml"
    source.write_text(SPEC)
    run = prepare_run(source, registry, tmp_path / "runs")
    assert load_run_spec(run, registry).agent.bandit_scale == "linear"  # the minatar preset's, stored

    # the run as a zoo before `bandit_scale` existed wrote it: GDI's bandits then always saw App. G's x
    resolved = run.path / RESOLVED_SPEC
    data = yaml.safe_load(resolved.read_text())
    del data["agent"]["bandit_scale"]
    resolved.write_text(yaml.safe_dump(data, sort_keys=False))

    agent = load_run_spec(RunFolder(run.path), registry).agent
    assert agent.bandit_scale == "log1p"
    assert agent.num_envs == 16 and agent.reuse == 8  # the stored values, as before
    # read as a spec of a new run, the same text takes the preset's value
    assert load_spec_text(yaml.safe_dump(data), registry).agent.bandit_scale == "linear"
