"""Run specs: tagged unions over installed plugins, resolved defaults, seeds and the JSON Schema."""

from __future__ import annotations

import types

import pytest
from pydantic import Field

from zoo import AgentEntry, EnvEntry, MetaControllerEntry, Params, hookimpl
from zoo.errors import SpecError
from zoo.registry import Registry, get_registry
from zoo.spec import json_schema, load_spec_text


class ChainParams(Params):
    length: int = Field(default=5, ge=2)


class LearnerParams(Params):
    rate: float = 0.1


def small_registry() -> Registry:
    def register_envs(register):
        register(EnvEntry(name="chain", params=ChainParams, factory=lambda p, s: None))

    def register_agents(register):
        register(AgentEntry(name="plain", params=LearnerParams, factory=lambda p, c: None))
        register(AgentEntry(name="chooser", params=LearnerParams, factory=lambda p, c: None, behavior_space=True))

    def register_meta_controllers(register):
        register(MetaControllerEntry(name="fixed", factory=lambda p, space, rng: None))

    registry = Registry()
    registry.add("test", types.SimpleNamespace(
        register_envs=hookimpl(register_envs), register_agents=hookimpl(register_agents),
        register_meta_controllers=hookimpl(register_meta_controllers),
    ))
    return registry


def test_plugin_blocks_validate_into_the_plugins_params():
    spec = load_spec_text("env: {type: chain, length: 9}\nagent: {type: chooser}\nbudget: {steps: 10}\n", small_registry())
    assert isinstance(spec.env, ChainParams) and spec.env.length == 9 and spec.env.type == "chain"
    assert isinstance(spec.agent, LearnerParams) and spec.agent.rate == 0.1
    assert spec.meta_controller is None


def test_resolved_spec_has_every_default():
    spec = load_spec_text("env: {type: chain}\nagent: {type: plain}\nbudget: {steps: 1000}\n", small_registry())
    dumped = spec.model_dump(mode="json")
    assert dumped["env"] == {"length": 5, "type": "chain"}
    assert dumped["backend"] == {"type": "local", "workers": 1, "torch_threads": 1}
    assert dumped["budget"]["checkpoint_every"] is None and spec.budget.checkpoint_interval == 100


def test_meta_controller_needs_an_agent_with_a_behavior_space():
    registry = small_registry()
    text = "env: {type: chain}\nagent: {type: %s}\nmeta_controller: {type: fixed}\nbudget: {steps: 10}\n"
    assert load_spec_text(text % "chooser", registry).meta_controller.type == "fixed"
    with pytest.raises(SpecError, match="agent 'plain' declares no behavior space.*use an agent that has one: chooser"):
        load_spec_text(text % "plain", registry, source="s.yaml")


def test_trial_seeds_are_derived_distinct_and_stable():
    registry = small_registry()
    spec = load_spec_text("env: {type: chain}\nagent: {type: plain}\nbudget: {steps: 1}\ntrials: 5\nseed: 7\n", registry)
    seeds = spec.trial_seeds()
    assert len(set(seeds)) == 5 and seeds == spec.trial_seeds()
    other = load_spec_text("env: {type: chain}\nagent: {type: plain}\nbudget: {steps: 1}\ntrials: 5\nseed: 8\n", registry)
    assert not set(seeds) & set(other.trial_seeds())
    explicit = load_spec_text("env: {type: chain}\nagent: {type: plain}\nbudget: {steps: 1}\ntrials: 2\nseeds: [3, 4]\n", registry)
    assert explicit.trial_seeds() == [3, 4]


def test_schema_lists_the_installed_plugins():
    schema = json_schema(get_registry())
    text = str(schema)
    for name in ("'ppo'", "'dqn'", "'a2c'", "'gym'", "learning_rate", "n_steps"):
        assert name in text
    assert schema["additionalProperties"] is False
    assert set(schema["required"]) >= {"env", "agent", "budget"}


def test_schema_command_writes_valid_json(tmp_path, capsys):
    import json

    from zoo.cli import main

    out = tmp_path / "schema.json"
    assert main(["schema", "-o", str(out)]) == 0
    assert json.loads(out.read_text())["title"] == "zoo run spec"
