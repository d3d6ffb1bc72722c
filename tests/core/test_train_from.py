"""``zoo train --from RUN``: a finished run continued from its final checkpoints is a new run that records its parent,
and for an agent that resumes exactly it ends where training to the same budget in one go ends."""

from __future__ import annotations

import json

import torch

from zoo.cli import main
from zoo.metrics import read_metrics

# PPO with a constant learning rate; every chunk of either budget is shorter than a rollout, so each learn() call
# collects one rollout of 32 steps and updates once, wherever the budget is cut
SPEC = """\
name: cart
env: {type: gym, id: CartPole-v1}
agent: {type: ppo, n_steps: 32, batch_size: 32, n_epochs: 2}
budget: {steps: 256}
seed: 7
logging: {tensorboard: false, progress: false}
"""


def _train(*args: str) -> None:
    assert main(["train", *args, "--no-progress"]) == 0


def _final(run) -> tuple[dict, list]:
    [checkpoint] = sorted((run / "trials" / "000" / "checkpoints").glob("step-*"))[-1:]
    policy = torch.load(checkpoint / "agent" / "policy.pt", weights_only=True)
    returns = [(r["step"], r["episode_return"]) for r in read_metrics(run / "trials" / "000" / "metrics.jsonl")
               if "episode_return" in r]
    return policy, returns


def test_continuing_to_n_steps_equals_training_to_n_steps_in_one_go(tmp_path):
    spec = tmp_path / "cart.yaml"
    spec.write_text(SPEC)
    _train(str(spec), "--run-dir", str(tmp_path / "first"))
    _train("--from", str(tmp_path / "first"), "--set", "budget.steps=512", "--run-dir", str(tmp_path / "continued"))
    _train(str(spec), "--set", "budget.steps=512", "--run-dir", str(tmp_path / "one-go"))
    continued, one_go = _final(tmp_path / "continued"), _final(tmp_path / "one-go")
    assert continued[0].keys() == one_go[0].keys()
    assert all(torch.equal(continued[0][name], one_go[0][name]) for name in one_go[0])
    assert continued[1] == one_go[1] and continued[1][-1][0] > 256  # the same episodes, past the parent's budget
    manifest = json.loads((tmp_path / "continued" / "run.json").read_text())
    assert manifest["parent"]["id"] == "first" and manifest["parent"]["checkpoints"] == {"0": "step-000000000256"}
    assert manifest["name"] == "cart" and manifest["steps"] == 512
    resumes = (tmp_path / "continued" / "trials" / "000" / "resumes.jsonl").read_text().splitlines()
    assert [json.loads(line)["checkpoint"] for line in resumes] == ["step-000000000256"]  # continued, not retrained


def test_what_cannot_be_continued_is_refused_and_nothing_is_written(tmp_path, capsys):
    spec = tmp_path / "cart.yaml"
    spec.write_text(SPEC)
    _train(str(spec), "--run-dir", str(tmp_path / "first"))
    capsys.readouterr()
    assert main(["train", "--from", str(tmp_path / "first"), "--run-dir", str(tmp_path / "same")]) == 2
    assert "ran 256 steps already; give a larger budget (--set budget.steps=N with N > 256)" in capsys.readouterr().err
    assert main(["train", "--from", str(tmp_path / "first"), "--seed", "3", "--set", "budget.steps=512"]) == 2
    assert "--seed and --trials do not apply" in capsys.readouterr().err
    assert main(["train", str(spec), "--from", str(tmp_path / "first")]) == 2
    assert "give a spec to train, or --from RUN" in capsys.readouterr().err
    run = json.loads((tmp_path / "first" / "run.json").read_text())
    (tmp_path / "first" / "run.json").write_text(json.dumps({**run, "status": "interrupted"}))
    assert main(["train", "--from", str(tmp_path / "first"), "--set", "budget.steps=512"]) == 2
    assert "the run is interrupted, not finished; finish it with zoo resume" in capsys.readouterr().err
    assert not (tmp_path / "same").exists() and [p.name for p in tmp_path.iterdir() if p.is_dir()] == ["first"]


def test_continuing_from_the_best_checkpoint_starts_at_its_step(tmp_path, capsys):
    spec = tmp_path / "cart.yaml"
    spec.write_text(SPEC.replace("budget: {steps: 256}", "budget: {steps: 256, eval_every: 64, eval_episodes: 2}"))
    _train(str(spec), "--run-dir", str(tmp_path / "first"))
    [best] = list((tmp_path / "first" / "trials" / "000" / "checkpoints-best").glob("step-*"))
    best_step = int(best.name.removeprefix("step-"))
    assert best_step < 256  # this seed's best evaluation comes before the end, so best and last differ
    _train("--from", str(tmp_path / "first"), "--checkpoint", "best", "--set", "budget.steps=320",
           "--run-dir", str(tmp_path / "from-best"))
    manifest = json.loads((tmp_path / "from-best" / "run.json").read_text())
    assert manifest["parent"]["checkpoint"] == "best" and manifest["parent"]["checkpoints"] == {"0": best.name}
    resumes = (tmp_path / "from-best" / "trials" / "000" / "resumes.jsonl").read_text().splitlines()
    assert [json.loads(line)["checkpoint"] for line in resumes] == [best.name]
    parent_rows = read_metrics(tmp_path / "first" / "trials" / "000" / "metrics.jsonl")
    rows = read_metrics(tmp_path / "from-best" / "trials" / "000" / "metrics.jsonl")
    # PPO resumes exactly: retrained from the best step, the child replays the parent's later rows, then goes on
    assert rows[:len(parent_rows)] == parent_rows and rows[-1]["step"] > 256

    spec.write_text(SPEC)
    _train(str(spec), "--run-dir", str(tmp_path / "no-evaluations"))
    capsys.readouterr()
    assert main(["train", "--from", str(tmp_path / "no-evaluations"), "--checkpoint", "best",
                 "--set", "budget.steps=512"]) == 2
    assert "no complete best checkpoint to continue from (a best checkpoint needs budget.eval_every)" in capsys.readouterr().err
    assert main(["train", "--from", str(tmp_path / "first"), "--checkpoint", "first", "--set", "budget.steps=512"]) == 2
    assert "--checkpoint first: valid: last, best" in capsys.readouterr().err
    assert main(["train", str(spec), "--checkpoint", "best"]) == 2
    assert "--checkpoint chooses the checkpoint of --from RUN" in capsys.readouterr().err
