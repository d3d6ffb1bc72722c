"""Names have owners: `PLUGIN:NAME` reaches any entry, a bare name two third parties register belongs to neither,
and a run keeps the entries of the plugins it was created with."""

from __future__ import annotations

import json
import logging
import types

import pytest
from typer.testing import CliRunner

import zoo.registry
from zoo import EnvEntry, Interrupted, Params, execute_run, hookimpl, prepare_run, run_trials
from zoo.cli import app
from zoo.errors import SpecError, ZooError
from zoo.registry import Registry
from zoo.spec import load_spec_text

SPEC = """\
env: {{type: {env}, {field}: catch}}
agent: {{type: ale-baseline, policy: random}}
budget: {{episodes: 20, checkpoint_every: 5}}
seed: 3
logging: {{tensorboard: false, progress: false}}
"""


class FirstParams(Params):
    game: str = "catch"


class SecondParams(Params):
    level: str = "catch"


def catch_plugin(params: type[Params], built: list[str], owner: str) -> types.SimpleNamespace:
    """A plugin registering env 'catchy' (SyntheticAtari under its own params) that notes each env it builds."""

    def factory(p, seed):
        built.append(owner)
        from zoo_atari.plugin import SyntheticAtariParams, make_synthetic_env

        return make_synthetic_env(SyntheticAtariParams(game="catch"), seed)

    @hookimpl
    def register_envs(register):
        register(EnvEntry(name="catchy", params=params, factory=factory, description=f"catch of {owner}"))

    return types.SimpleNamespace(register_envs=register_envs)


def registry_with(*plugins: tuple[str, types.SimpleNamespace]) -> Registry:
    registry = Registry()
    registry.load_entry_points()
    for name, plugin in plugins:
        registry.add(name, plugin)
    return registry


@pytest.fixture
def built() -> list[str]:
    return []


@pytest.fixture
def first(built):
    return "first", catch_plugin(FirstParams, built, "first")


@pytest.fixture
def second(built):
    return "second", catch_plugin(SecondParams, built, "second")


def test_a_bare_name_two_third_parties_register_is_refused_naming_both(first, second, caplog):
    with caplog.at_level(logging.WARNING, logger="zoo"):
        registry = registry_with(first, second)
    message = ("environment 'catchy' is registered by plugins 'first' and 'second'; "
               "write 'first:catchy' or 'second:catchy'")
    assert f"{message}; specs must name one of them" in caplog.text
    with pytest.raises(SpecError) as refused:
        load_spec_text(SPEC.format(env="catchy", field="game"), registry)
    assert str(refused.value).count("\n") == 0 and message in str(refused.value)
    with pytest.raises(ZooError, match="registered by plugins 'first' and 'second'"):
        registry.get("env", "catchy")


def test_qualified_names_reach_each_plugins_entry(first, second):
    registry = registry_with(first, second)
    assert load_spec_text(SPEC.format(env="first:catchy", field="game"), registry).env.type == "first:catchy"
    assert load_spec_text(SPEC.format(env="second:catchy", field="level"), registry).env.type == "second:catchy"
    with pytest.raises(SpecError, match="level"):  # the params are those of the plugin named
        load_spec_text(SPEC.format(env="first:catchy", field="level"), registry)
    # a name its plugin owns is written back bare, so that run folders name it one way
    assert load_spec_text(SPEC.format(env="atari:synthetic-atari", field="game"), registry).env.type == "synthetic-atari"


def test_the_cli_shows_the_clash_and_describes_qualified_names(first, second, monkeypatch):
    monkeypatch.setattr(zoo.registry, "_default", registry_with(first, second))
    runner = CliRunner()
    listing = runner.invoke(app, ["list", "env"])
    assert "first:catchy" in listing.output and "second:catchy" in listing.output
    assert "clash: environment 'catchy' is registered by plugins 'first' and 'second'" in listing.output
    shown = json.loads(runner.invoke(app, ["plugins", "--json"]).output)
    assert shown["clashes"] == {"env": {"catchy": ["first", "second"]}}
    described = json.loads(runner.invoke(app, ["describe", "env", "second:catchy", "--json"]).output)
    assert described["plugin"] == "second" and [row["name"] for row in described["parameters"]] == ["level"]


def test_a_run_resumes_with_its_own_plugin_after_a_clashing_one_is_installed(first, second, built, tmp_path,
                                                                            monkeypatch):
    source = tmp_path / "catchy.yaml"
    source.write_text(SPEC.format(env="catchy", field="game"))
    monkeypatch.setattr(zoo.registry, "_default", registry_with(first))
    folder = prepare_run(source, zoo.registry.get_registry(), tmp_path / "runs", tmp_path / "runs" / "catchy")
    answers = iter([False] * 7)
    with pytest.raises(Interrupted):
        run_trials(folder.path, [0], should_stop=lambda: next(answers, True))
    assert set(built) == {"first"}

    built.clear()
    clashing = registry_with(first, second)
    monkeypatch.setattr(zoo.registry, "_default", clashing)
    assert execute_run(folder, clashing, progress=False) == "finished"
    assert built and set(built) == {"first"}

    gone = registry_with(second)
    monkeypatch.setattr(zoo.registry, "_default", gone)
    with pytest.raises(ZooError, match="the run's env 'catchy' comes from plugin 'first', which is not loaded"):
        execute_run(folder, gone, progress=False)
