"""The tracker hook: the logging block picks trackers and holds their settings, the metric logger hands them its
rows, the trial's result and the run's files, and a tracker that cannot start stops the run with one clear line."""

from __future__ import annotations

import json
import types

import pytest
from pydantic import Field
from zoo_testing import CARTPOLE

from zoo import NoParams, Params, TrackerEntry, hookimpl
from zoo.errors import SpecError, ZooError
from zoo.metrics import MetricLogger
from zoo.registry import Registry
from zoo.spec import load_spec_text
from zoo.tracking import flatten
from zoo.trials import RESULT, run_trials

AGENT = "agent: {type: ppo, n_steps: 32, batch_size: 32, n_epochs: 1}\n"


class Recorder:
    """A tracker that writes down every call (the class-level list is shared by every instance)."""

    calls: list = []

    def __init__(self, params, record):
        self.calls.append(("open", params.label, record.trial, record.params["agent.n_steps"], record.resume_step))

    def log(self, step, scalars):
        self.calls.append(("log", step, dict(scalars)))

    def flush(self):
        pass

    def finish(self, result, files):
        self.calls.append(("finish", result["steps"], sorted(p.name for p in files)))

    def close(self):
        self.calls.append(("close",))


class RecorderParams(Params):
    label: str = Field(default="plain", max_length=10)


def _broken(params, record):
    raise RuntimeError("no store at that address")


def _plugin():
    @hookimpl
    def register_trackers(register):
        register(TrackerEntry(name="recorder", params=RecorderParams, factory=Recorder))
        register(TrackerEntry(name="broken", params=NoParams, factory=_broken))

    return types.SimpleNamespace(register_trackers=register_trackers)


@pytest.fixture
def registry():
    """A registry of the installed plugins and the test's trackers."""
    registry = Registry()
    registry.load_entry_points()
    assert registry.add("test-trackers", _plugin())
    Recorder.calls = []
    return registry


def _text(logging: str) -> str:
    return f"{CARTPOLE}{AGENT}budget: {{steps: 64}}\nlogging: {logging}\n"


def _spec(registry, logging: str):
    return load_spec_text(_text(logging), registry)


def _run(registry, tmp_path, logging: str):
    """A prepared run of CartPole with this logging block."""
    from zoo import prepare_run

    path = tmp_path / "cart.yaml"
    path.write_text(_text(logging))
    return prepare_run(path, registry, tmp_path / "runs", run_dir=tmp_path / "run")


def _problem(registry, logging: str) -> str:
    with pytest.raises(SpecError) as caught:
        _spec(registry, logging)
    return str(caught.value)


def test_the_logging_block_names_installed_trackers_and_holds_their_settings(registry):
    spec = _spec(registry, "{trackers: [recorder], recorder: {label: x}}")
    assert spec.logging.trackers == ["recorder"] and spec.logging.recorder.label == "x"
    assert "unknown tracker 'recordr' (did you mean 'recorder'?)" in _problem(registry, "{trackers: [recordr]}")
    assert "not in trackers; add it: trackers: [recorder]" in _problem(registry, "{recorder: {label: x}}")
    assert "switched by 'tensorboard: true|false'" in _problem(registry, "{trackers: [tensorboard]}")
    assert "listed twice" in _problem(registry, "{trackers: [recorder, recorder]}")
    assert "label" in _problem(registry, "{trackers: [recorder], recorder: {label: much-too-long-a-label}}")
    assert "lable" in _problem(registry, "{trackers: [recorder], recorder: {lable: x}}")


def test_the_metric_logger_hands_finite_rows_the_result_and_files_to_its_trackers(tmp_path):
    calls = []
    tracker = types.SimpleNamespace(log=lambda step, scalars: calls.append((step, dict(scalars))),
                                    flush=lambda: None, close=lambda: calls.append("close"),
                                    finish=lambda result, files: calls.append(("finish", result, files)))
    logger = MetricLogger(tmp_path, trackers=[tracker])
    logger.log(3, episode_return=1.5, loss=float("nan"))
    logger.finish({"steps": 3}, [tmp_path / RESULT])
    logger.close()
    assert calls == [(3, {"episode_return": 1.5}), ("finish", {"steps": 3}, [tmp_path / RESULT]), "close"]
    assert json.loads((tmp_path / "metrics.jsonl").read_text()) == {"step": 3, "episode_return": 1.5, "loss": None}


def test_a_trained_trial_reaches_its_tracker_with_params_rows_result_and_files(registry, tmp_path):
    folder = _run(registry, tmp_path, "{tensorboard: false, progress: false, trackers: [recorder], recorder: {label: y}}")
    run_trials(folder.path, [0], registry=registry)
    assert Recorder.calls[0] == ("open", "y", 0, 32, None)
    rows = [json.loads(line) for line in (folder.trial_dir(0) / "metrics.jsonl").read_text().splitlines()]
    logged = [(call[1], call[2]) for call in Recorder.calls if call[0] == "log"]
    assert logged == [(row.pop("step"), {k: v for k, v in row.items() if v is not None}) for row in rows]
    assert Recorder.calls[-2:] == [("finish", 64, ["result.json", "spec.yaml"]), ("close",)]


def test_a_tracker_that_cannot_start_stops_the_trial_with_one_line_and_closes_the_others(registry, tmp_path):
    folder = _run(registry, tmp_path, "{tensorboard: false, progress: false, trackers: [recorder, broken]}")
    with pytest.raises(ZooError, match="the broken tracker could not start: RuntimeError: no store at that address"):
        run_trials(folder.path, [0], registry=registry)
    assert Recorder.calls == [("open", "plain", 0, 32, None), ("close",)]


def test_flatten_joins_nested_keys_with_dots_and_keeps_lists_as_values():
    assert flatten({"a": {"b": 1, "c": {"d": [1, 2]}}, "e": "x"}) == {"a.b": 1, "a.c.d": [1, 2], "e": "x"}


def test_without_the_tracking_plugin_a_run_trains_without_tensorboard_and_says_so(tmp_path, caplog):
    import zoo_gym.plugin
    import zoo_sb3.plugin

    from zoo import preflight

    registry = Registry()
    assert registry.add("gym", zoo_gym.plugin) and registry.add("sb3", zoo_sb3.plugin)
    folder = _run(registry, tmp_path, "{progress: false}")
    with caplog.at_level("WARNING", logger="zoo"):
        preflight(_spec(registry, "{progress: false}"), registry)
    assert "no TensorBoard events: the tracker 'tensorboard' (plugin 'tracking') is not loaded" in caplog.text
    run_trials(folder.path, [0], registry=registry)
    assert (folder.trial_dir(0) / RESULT).is_file() and not (folder.trial_dir(0) / "tb").exists()
