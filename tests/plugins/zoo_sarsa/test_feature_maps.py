"""The kind ``feature`` is the SARSA plugin's (``zoo_sarsa.feature_maps``), not the kernel's; plugins register
feature maps through its hook as before, GOHR's ``gohr-paper`` among them."""

from __future__ import annotations

import importlib.util
import logging

from zoo_sarsa.feature_maps import FeatureEntry, FeatureMap

import zoo
from zoo import hookspecs
from zoo.registry import KINDS, Registry, get_registry


def test_the_kernel_no_longer_holds_the_feature_map_contract():
    assert not hasattr(zoo, "FeatureEntry") and "FeatureEntry" not in zoo.__all__
    assert importlib.util.find_spec("zoo.features") is None
    assert not hasattr(hookspecs, "register_features") and "feature" not in KINDS


def test_the_sarsa_plugin_declares_the_kind_and_gohr_registers_through_its_hook():
    registry = get_registry()
    assert registry.kinds["feature"] == ("register_features", FeatureEntry, "feature map")
    assert registry.get("kind", "feature").plugin == "sarsa"
    assert {registry.get("feature", name).plugin for name in ("basic", "bass", "disco", "lsh", "ram")} == {"sarsa"}
    paper = registry.get("feature", "gohr-paper")
    assert paper.plugin == "gohr" and isinstance(paper, FeatureEntry)
    assert isinstance(paper.factory(paper.params(), None), FeatureMap)
    assert "register_features" in registry.plugins["gohr"].hooks


def test_the_built_in_plugins_load_without_a_warning(monkeypatch, caplog):
    # GOHR loads before SARSA (by name) and implements the hook of SARSA's kind: no "is no zoo hook" warning
    monkeypatch.delenv("ZOO_PLUGINS", raising=False)
    monkeypatch.delenv("ZOO_DISABLE_PLUGINS", raising=False)
    with caplog.at_level(logging.WARNING, logger="zoo"):
        Registry().load_entry_points()
    assert caplog.messages == []


def test_without_the_sarsa_plugin_there_is_no_feature_kind(monkeypatch, caplog):
    monkeypatch.setenv("ZOO_PLUGINS", "gohr")
    monkeypatch.delenv("ZOO_DISABLE_PLUGINS", raising=False)
    registry = Registry()
    with caplog.at_level(logging.WARNING, logger="zoo"):
        registry.load_entry_points()
    assert "feature" not in registry.kinds
    assert caplog.messages == ["plugin 'gohr': function 'register_features' is marked with @zoo.hookimpl but is no "
                               "zoo hook (did you mean 'register_trackers'?), so the zoo never calls it"]
