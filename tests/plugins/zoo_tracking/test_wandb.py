"""The wandb tracker: a trained trial's offline W&B run, read back from its ``.wandb`` file and files folder.

W&B writes an offline run as a ``run-ID.wandb`` file: a 7-byte header (``:W&B``, a magic number, a version) and
then LevelDB's log format, 32 KiB blocks of records (a 7-byte header: CRC, length, kind: full, first, middle or
last piece), each a protobuf ``Record`` of ``wandb.proto.wandb_internal_pb2``. `records` reads them back.
"""

from __future__ import annotations

import json
import struct
from collections import defaultdict

import pytest

from zoo.cli import main
from zoo.metrics import read_metrics

wandb = pytest.importorskip("wandb")

SPEC = """\
name: cart
env: {type: gym, id: CartPole-v1}
agent: {type: ppo, n_steps: 32, batch_size: 32, n_epochs: 1}
budget: {steps: 128, eval_episodes: 3}
logging: {tensorboard: false, progress: false, trackers: [wandb], wandb: {project: tests}}
"""

BLOCK, HEADER = 32768, 7
FULL, FIRST, MIDDLE, LAST = 1, 2, 3, 4


def records(path):
    """The protobuf records of an offline run's ``.wandb`` file, in order."""
    from wandb.proto import wandb_internal_pb2

    data = path.read_bytes()
    assert data[:4] == b":W&B"
    position, pieces = HEADER, b""
    while position + HEADER <= len(data):
        left = BLOCK - position % BLOCK
        length, kind = struct.unpack("<HB", data[position + 4:position + HEADER]) if left >= HEADER else (0, 0)
        if kind == 0:  # the zero padding at the end of a block
            position += left
            continue
        body = data[position + HEADER:position + HEADER + length]
        position += HEADER + length
        pieces = body if kind in (FULL, FIRST) else pieces + body
        if kind in (FULL, LAST):
            record = wandb_internal_pb2.Record()
            record.ParseFromString(pieces)
            yield record


def _items(items) -> dict:
    return {item.key or "/".join(item.nested_key): json.loads(item.value_json) for item in items}


@pytest.mark.slow  # W&B starts its service process (several seconds)
def test_a_trial_is_an_offline_wandb_run_holding_its_params_metrics_result_and_files(tmp_path, capfd):
    spec = tmp_path / "cart.yaml"
    spec.write_text(SPEC)
    run = tmp_path / "cart-run"
    assert main(["train", str(spec), "--run-dir", str(run), "--no-progress"]) == 0
    assert [line.split(":")[0] for line in capfd.readouterr().err.splitlines()] == ["run folder", "finished"]  # W&B is quiet
    [offline] = (run / "wandb").glob("offline-run-*")
    [log] = offline.glob("run-*.wandb")
    found = defaultdict(list)
    for record in records(log):
        found[record.WhichOneof("record_type")].append(record)

    [header] = found["run"]
    assert header.run.project == "tests" and header.run.display_name == "cart-run-trial-0"
    config = _items(header.run.config.update)
    result = json.loads((run / "trials" / "000" / "result.json").read_text())
    assert config["agent.n_steps"] == 32 and config["env.id"] == "CartPole-v1" and config["seed"] == result["seed"]

    # W&B merges the rows logged at one step into one history row (a later value of a name wins)
    expected: dict[int, dict] = defaultdict(dict)
    for row in read_metrics(run / "trials" / "000" / "metrics.jsonl"):
        expected[row.pop("step")].update({k: v for k, v in row.items() if v is not None})
    history = {}
    for record in found["history"]:
        values = _items(record.history.item)
        history[values.pop("_step")] = {k: v for k, v in values.items() if not k.startswith("_")}
    assert history == {step: pytest.approx(values) for step, values in expected.items()}

    summary = {}
    for record in found["summary"]:
        summary |= _items(record.summary.update)
    assert summary["result/eval_mean"] == pytest.approx(result["eval_mean"])
    assert summary["result/eval_returns"] == pytest.approx(result["eval_returns"])

    saved = sorted(f.path for record in found["files"] for f in record.files.files if f.path.endswith((".json", ".yaml")))
    assert saved == ["result.json", "spec.yaml"]
    assert (offline / "files" / "spec.yaml").read_text() == (run / "spec.yaml").read_text()
    assert [e.exit.exit_code for e in found["exit"]] == [0]
