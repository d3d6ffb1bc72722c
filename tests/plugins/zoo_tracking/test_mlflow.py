"""The mlflow tracker: a trained trial's params, metrics, result and files, read back from the run folder's store."""

from __future__ import annotations

import json

import pytest

from zoo.cli import main
from zoo.metrics import read_metrics

mlflow = pytest.importorskip("mlflow")

SPEC = """\
name: cart
env: {type: gym, id: CartPole-v1}
agent: {type: ppo, n_steps: 32, batch_size: 32, n_epochs: 1}
budget: {steps: 128, eval_episodes: 3}
logging: {tensorboard: false, progress: false, trackers: [mlflow]%s}
"""


def _train(tmp_path, settings: str = ""):
    spec = tmp_path / "cart.yaml"
    spec.write_text(SPEC % settings)
    run = tmp_path / "cart-run"
    assert main(["train", str(spec), "--run-dir", str(run), "--no-progress"]) == 0
    return run


def _only_run(client, experiment: str):
    [found] = client.search_runs([client.get_experiment_by_name(experiment).experiment_id])
    return found


@pytest.mark.slow  # MLflow creates its SQLite store (a few seconds)
def test_a_trial_is_an_mlflow_run_holding_its_params_metrics_result_and_files(tmp_path):
    from mlflow.tracking import MlflowClient

    run = _train(tmp_path)
    client = MlflowClient(f"sqlite:///{run / 'mlflow.db'}")
    found = _only_run(client, "cart-run")
    result = json.loads((run / "trials" / "000" / "result.json").read_text())
    assert found.info.status == "FINISHED" and found.info.run_name == "cart-run-trial-0"
    assert found.data.params["agent.n_steps"] == "32" and found.data.params["env.id"] == "CartPole-v1"
    assert found.data.params["seed"] == str(result["seed"]) and found.data.params["budget.steps"] == "128"

    rows = read_metrics(run / "trials" / "000" / "metrics.jsonl")
    for name in ("episode_return", "train/value_loss"):
        logged = [(m.step, m.value) for m in client.get_metric_history(found.info.run_id, name)]
        assert logged == [(r["step"], r[name]) for r in rows if r.get(name) is not None] and logged
    assert found.data.metrics["result/eval_mean"] == pytest.approx(result["eval_mean"])
    episodes = client.get_metric_history(found.info.run_id, "result/eval_return")
    assert [(m.step, m.value) for m in episodes] == list(enumerate(result["eval_returns"]))

    assert sorted(a.path for a in client.list_artifacts(found.info.run_id)) == ["result.json", "spec.yaml"]
    copy = client.download_artifacts(found.info.run_id, "spec.yaml", str(tmp_path))
    assert open(copy).read() == (run / "spec.yaml").read_text()


@pytest.mark.slow
def test_workers_share_a_given_tracking_uri_and_experiment(tmp_path):
    from mlflow.tracking import MlflowClient

    store = tmp_path / "shared.db"
    run = _train(tmp_path, f", mlflow: {{tracking_uri: 'sqlite:///{store}', experiment: shared}}}}\n"
                           "trials: 2\nbackend: {workers: 2")  # two processes open the new database at once
    assert not (run / "mlflow.db").exists()
    client = MlflowClient(f"sqlite:///{store}")
    found = client.search_runs([client.get_experiment_by_name("shared").experiment_id])
    assert sorted(r.data.tags["zoo.trial"] for r in found) == ["0", "1"]
    assert {r.info.status for r in found} == {"FINISHED"} and {r.data.params["agent.n_steps"] for r in found} == {"32"}
    assert (run / "mlartifacts").is_dir()  # a local database keeps the artifacts in the run folder


@pytest.mark.slow
def test_a_resumed_trial_continues_its_mlflow_run(tmp_path):
    from mlflow.tracking import MlflowClient
    from zoo_tracking.mlflow_tracker import MlflowTracker
    from zoo_tracking.params import MlflowParams

    from zoo import TrialRecord

    record = TrialRecord(run_name="r", run_dir=tmp_path, trial=0, seed=1, directory=tmp_path / "trials" / "000",
                         params={"agent.gamma": 0.99})
    first = MlflowTracker(MlflowParams(), record)
    first.log(10, {"loss": 1.0})
    first.close()  # stopped before its result
    client = MlflowClient(f"sqlite:///{tmp_path / 'mlflow.db'}")
    assert client.get_run(first._run_id).info.status == "KILLED"
    resumed = MlflowTracker(MlflowParams(), TrialRecord(**{**record.__dict__, "resume_step": 10}))
    assert resumed._run_id == first._run_id and client.get_run(first._run_id).info.status == "RUNNING"
    resumed.log(20, {"loss": 0.5})
    resumed.finish({"steps": 20}, [])
    resumed.close()
    assert [(m.step, m.value) for m in client.get_metric_history(first._run_id, "loss")] == [(10, 1.0), (20, 0.5)]
    assert client.get_run(first._run_id).info.status == "FINISHED"
