"""The registry: isolation of broken plugins, restriction by env vars, lookups with did-you-mean."""

from __future__ import annotations

import logging
import types
from importlib import metadata

import pytest

from zoo import EnvEntry, Params, hookimpl
from zoo.errors import ZooError
from zoo.registry import Registry


def plugin(**hooks) -> types.SimpleNamespace:
    return types.SimpleNamespace(**{name: hookimpl(fn) for name, fn in hooks.items()})


def env_plugin(*names):
    def register_envs(register):
        for name in names:
            register(EnvEntry(name=name, params=Params, factory=lambda p, s: None))

    return plugin(register_envs=register_envs)


def test_entries_are_registered_with_their_plugin():
    registry = Registry()
    assert registry.add("mine", env_plugin("chain", "grid"), version="1.2")
    assert registry.names("env") == ["chain", "grid"]
    assert registry.get("env", "grid").plugin == "mine"
    assert registry.plugins["mine"].hooks == ("register_envs",)
    assert registry.plugins["mine"].version == "1.2"


def test_unknown_name_suggests_the_closest():
    registry = Registry()
    registry.add("mine", env_plugin("chain", "grid"))
    with pytest.raises(ZooError, match=r"unknown environment 'chian' \(did you mean 'chain'\?\); installed: chain, grid"):
        registry.get("env", "chian")


def test_a_plugin_failing_to_register_is_reported_and_the_rest_works(caplog):
    def broken(register):
        raise RuntimeError("boom")

    registry = Registry()
    with caplog.at_level(logging.WARNING, logger="zoo"):
        assert not registry.add("bad", plugin(register_envs=broken))
    assert registry.add("good", env_plugin("chain"))
    line = broken.__code__.co_firstlineno + 1
    assert f"plugin 'bad' failed while registering ({__file__}:{line}): RuntimeError: boom" in caplog.text
    assert registry.names("env") == ["chain"]
    assert "bad" not in registry.plugins and "bad" in registry.failures


def test_a_hook_with_a_wrong_signature_is_rejected(caplog):
    def register_agents(register, extra):
        pass

    registry = Registry()
    with caplog.at_level(logging.WARNING, logger="zoo"):
        assert not registry.add("odd", plugin(register_agents=register_agents))
    assert "plugin 'odd' is not a valid plugin" in caplog.text


def test_registering_the_wrong_entry_type_is_an_error(caplog):
    def register_agents(register):
        register(EnvEntry(name="oops", params=Params))

    registry = Registry()
    with caplog.at_level(logging.WARNING, logger="zoo"):
        registry.add("confused", plugin(register_agents=register_agents))
    assert "register_agents must register AgentEntry objects, got EnvEntry" in caplog.text
    assert registry.names("agent") == [] and registry.names("env") == []


def test_a_duplicate_name_keeps_the_first(caplog):
    registry = Registry()
    registry.add("first", env_plugin("chain"))
    with caplog.at_level(logging.WARNING, logger="zoo"):
        registry.add("second", env_plugin("chain", "grid"))
    assert registry.get("env", "chain").plugin == "first"
    assert registry.get("env", "grid").plugin == "second"
    assert "already registered by plugin 'first'" in caplog.text


class _FakeEntryPoint:
    def __init__(self, name, target):
        self.name, self.value, self.dist, self._target = name, f"fake:{name}", None, target

    def load(self):
        if isinstance(self._target, Exception):
            raise self._target
        return self._target

    RAISES_AT = load.__code__.co_firstlineno + 2


@pytest.fixture
def fake_entry_points(monkeypatch):
    points = [
        _FakeEntryPoint("alpha", env_plugin("a-env")),
        _FakeEntryPoint("beta", env_plugin("b-env")),
        _FakeEntryPoint("broken", ImportError("No module named 'missing_dependency'")),
    ]
    monkeypatch.setattr(metadata, "entry_points", lambda group: points if group == "zoo" else [])
    return points


def test_entry_points_load_and_a_broken_import_is_named(fake_entry_points, monkeypatch, caplog):
    monkeypatch.delenv("ZOO_PLUGINS", raising=False)
    monkeypatch.delenv("ZOO_DISABLE_PLUGINS", raising=False)
    registry = Registry()
    with caplog.at_level(logging.WARNING, logger="zoo"):
        registry.load_entry_points()
    assert sorted(registry.plugins) == ["alpha", "beta"]
    assert f"plugin 'broken' failed to import fake:broken ({__file__}:{_FakeEntryPoint.RAISES_AT}): " \
           "ImportError: No module named 'missing_dependency'" in caplog.text
    with pytest.raises(ZooError, match="plugins that failed to load: broken"):
        registry.get("env", "c-env")


def test_zoo_plugins_restricts(fake_entry_points, monkeypatch):
    monkeypatch.setenv("ZOO_PLUGINS", "beta")
    registry = Registry()
    registry.load_entry_points()
    assert list(registry.plugins) == ["beta"] and not registry.failures


def test_zoo_disable_plugins_blocks(fake_entry_points, monkeypatch):
    monkeypatch.delenv("ZOO_PLUGINS", raising=False)
    monkeypatch.setenv("ZOO_DISABLE_PLUGINS", "broken, alpha")
    registry = Registry()
    registry.load_entry_points()
    assert list(registry.plugins) == ["beta"] and not registry.failures


def test_builtins_load_through_the_entry_point_group():
    from zoo.registry import get_registry

    registry = get_registry()
    assert {"gym", "sb3"} <= set(registry.plugins)
    names = {ep.name for ep in metadata.entry_points(group="zoo")}
    assert {"gym", "sb3"} <= names
    assert {"ppo", "dqn", "a2c"} <= set(registry.names("agent"))
