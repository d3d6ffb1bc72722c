"""The ray backend on a cluster of two nodes on this machine (Ray's own `ray.cluster_utils.Cluster`).

The head serves the Ray Client; the second node trains in its own temp folder, so nothing the driver
reads is on a filesystem the workers write. `zoo train` joins by each form of address and gets the
local backend's numbers in its run folder; a node removed mid-trial has its trial restart on the other
node from the checkpoint the driver holds, ending with the uninterrupted numbers; and the cluster
commands of docs/ray.md run as written against it.
"""

from __future__ import annotations

import logging
import re
import shlex
import socket
import threading
import time
from pathlib import Path

import pytest
import ray
from ray.cluster_utils import Cluster
from ray_runs import LOCAL, RAY, numbers, train, write_spec
from zoo_ray.backend import connect
from zoo_ray.params import RayParams

from zoo import execute_run, prepare_run
from zoo.cli import main
from zoo.registry import get_registry

pytestmark = pytest.mark.slow  # starts Ray

DOCS = Path(__file__).parents[3] / "docs" / "ray.md"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A head of 1 CPU serving the Ray Client, and a second node of 1 CPU, with a custom resource, whose temp folder
    is its own."""
    client_port = free_port()
    cluster = Cluster(initialize_head=True, head_node_args={
        "num_cpus": 1, "ray_client_server_port": client_port, "include_dashboard": False})
    scratch = tmp_path_factory.mktemp("second-node-tmp")
    second = cluster.add_node(num_cpus=1, resources={"second-node": 1}, env_vars={"TMPDIR": str(scratch)})
    cluster.wait_for_nodes()
    cluster.client_port, cluster.second, cluster.second_scratch = client_port, second, scratch
    yield cluster
    cluster.shutdown()


@pytest.fixture(autouse=True)
def disconnect():
    """Each test's `zoo train` joins the cluster afresh, as a new process would."""
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The local backend's numbers for two trials of 12 and of 60 episodes."""
    tmp_path = tmp_path_factory.mktemp("reference")
    short, _ = train(tmp_path, "short", LOCAL, trials=2)
    long, _ = train(tmp_path, "long", LOCAL, trials=2, episodes=60, every=6)
    return {"short": numbers(short.path), "long": numbers(long.path)}


@pytest.mark.parametrize("form", ["ray://127.0.0.1:{client}", "auto", "{gcs}"])
def test_zoo_train_joins_the_cluster_by_any_address_and_the_results_land_in_its_run_folder(
        form, cluster, reference, tmp_path, monkeypatch):
    monkeypatch.setenv("RAY_ADDRESS", cluster.address)  # what 'auto' finds (not another Ray on this machine)
    address = form.format(client=cluster.client_port, gcs=cluster.address)
    spec = write_spec(tmp_path, "spec", LOCAL, trials=2)
    run = tmp_path / "driver" / "run"
    code = main(["train", str(spec), "--address", address, "--set", "backend.workers=2", "--run-dir", str(run),
                 "--no-progress"])
    assert code == 0
    assert "type: ray" in (run / "spec.yaml").read_text()
    assert numbers(run) == reference["short"]


def test_trial_groups_that_ask_for_a_custom_resource_train_on_the_node_that_has_it(cluster, reference, tmp_path):
    backend = f"{{type: ray, address: 'ray://127.0.0.1:{cluster.client_port}', workers: 2, resources: {{second-node: 1}}}}"
    spec = write_spec(tmp_path, "spec", backend, trials=2)
    seen, done = set(), threading.Event()

    def watch_the_second_node():
        while not done.is_set():
            seen.update(path.name for path in cluster.second_scratch.glob("zoo-ray-*"))
            time.sleep(0.005)

    watcher = threading.Thread(target=watch_the_second_node, daemon=True)
    watcher.start()
    try:
        assert main(["train", str(spec), "--run-dir", str(tmp_path / "run"), "--no-progress"]) == 0
    finally:
        done.set()
        watcher.join()
    assert len(seen) == 2, f"not both trials trained on the node with the resource: {sorted(seen)}"
    assert numbers(tmp_path / "run") == reference["short"]


def test_a_resource_no_node_has_is_refused_before_the_run_folder_is_made(cluster, tmp_path, capsys):
    backend = f"{{type: ray, address: '{cluster.address}', resources: {{no-such-node: 1}}}}"
    spec = write_spec(tmp_path, "spec", backend)
    assert main(["train", str(spec), "--run-dir", str(tmp_path / "run"), "--no-progress"]) == 2
    assert capsys.readouterr().err.strip() == ("error: backend.resources: no node of the Ray cluster has 'no-such-node'; "
                                               "give a node it with ray start --resources, or leave it out")
    assert not (tmp_path / "run").exists()


def test_a_ray_client_whose_server_failed_to_start_connects_again(cluster, monkeypatch):
    init, calls = ray.init, []

    def init_failing_first(*args, **kwargs):  # as the head's client server does now and then (ray-project/ray#63202)
        calls.append(kwargs["address"])
        if len(calls) == 1:
            raise ConnectionAbortedError("Initialization failure from server: Starting Ray client server failed.")
        return init(*args, **kwargs)

    monkeypatch.setattr(ray, "init", init_failing_first)
    address = f"ray://127.0.0.1:{cluster.client_port}"
    assert connect(RayParams(address=address)) is ray
    # the first call fails; a real client server may fail once more on its own, which connect retries too
    assert len(calls) >= 2 and set(calls) == {address} and ray.is_initialized()


def cluster_commands() -> list[list[str]]:
    """The zoo commands of docs/ray.md's block that needs a Ray cluster."""
    text = DOCS.read_text(encoding="utf-8")
    block = re.search(r"<!-- not-run: needs a Ray cluster -->\n```console\n(.*?)```", text, re.DOTALL)
    assert block, "docs/ray.md has no console block marked 'needs a Ray cluster'"
    return [shlex.split(line[2:]) for line in block[1].splitlines() if line.startswith("$ zoo ")]


SMALL = {"train": ["--set", "budget.steps=1024", "--set", "budget.checkpoint_every=512", "--set", "budget.eval_episodes=1"],
         "study": ["--set", "trials=2", "--set", "budget.episodes=4", "--set", "budget.checkpoint_every=2"]}


def test_the_cluster_commands_of_the_ray_page_run_as_written(cluster, tmp_path, monkeypatch):
    """Each command as docs/ray.md gives it, with this cluster's client port for the head's and a small budget
    (before the test that removes the second node)."""
    monkeypatch.setenv("RAY_ADDRESS", cluster.address)
    monkeypatch.chdir(Path(__file__).parents[3])
    commands = cluster_commands()
    assert [words[1] for words in commands] == ["train", "study"]
    for words in commands:
        words = [word.replace("HEAD_IP:10001", f"127.0.0.1:{cluster.client_port}") for word in words]
        assert main([*words[1:], *SMALL[words[1]], "--runs-dir", str(tmp_path / "runs"), "--no-progress"]) == 0, words
        ray.shutdown()
    results = list((tmp_path / "runs").glob("*/trials/*/result.json"))
    assert len(results) == 1 + 4 * 2  # the PPO run's trial, and two trials of each of the study's four runs


class _Warnings(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record):
        self.lines.append(record.getMessage())


def test_a_node_removed_mid_trial_has_its_trial_restart_on_the_other_node_with_the_uninterrupted_numbers(
        cluster, reference, tmp_path):
    connect(RayParams(address=f"ray://127.0.0.1:{cluster.client_port}"))  # the driver is off the cluster
    source = write_spec(tmp_path, "spec", RAY, trials=2, episodes=60, every=6)
    folder = prepare_run(source, get_registry(), tmp_path / "runs", tmp_path / "driver" / "run")
    second, seen = cluster.second, {}

    def remove_once_the_second_nodes_trial_has_a_checkpoint_on_the_driver():
        # the trial on the second node, not just any, must have a checkpoint mirrored to the driver before the
        # node goes: waiting for both trials' checkpoints let a quick trial finish there (and its scratch
        # folder vanish) first
        deadline = time.time() + 120
        while time.time() < deadline:
            there = {int(path.parent.parent.name)
                     for path in cluster.second_scratch.glob("zoo-ray-*/trials/*/checkpoints/episode-*")}
            if any(any(folder.trial_dir(t).glob("checkpoints/episode-*")) for t in there):
                break
            time.sleep(0.02)
        seen["scratch"] = sorted(path.name for path in cluster.second_scratch.glob("zoo-ray-*"))
        cluster.remove_node(second)

    warnings = _Warnings()
    logging.getLogger("zoo").addHandler(warnings)
    remover = threading.Thread(target=remove_once_the_second_nodes_trial_has_a_checkpoint_on_the_driver, daemon=True)
    remover.start()
    try:
        assert execute_run(folder, get_registry(), progress=False) == "finished"
    finally:
        logging.getLogger("zoo").removeHandler(warnings)
    remover.join()
    assert seen["scratch"], "no trial was training in the second node's own temp folder"
    lost = [line for line in warnings.lines if "died" in line]
    assert len(lost) == 1 and f"node {second.node_id}" in lost[0], warnings.lines
    resumed = folder.manifest()["resumed"]
    assert sorted(trial for trial, checkpoint in resumed.items() if checkpoint) in (["0"], ["1"])
    assert numbers(folder.path) == reference["long"]
