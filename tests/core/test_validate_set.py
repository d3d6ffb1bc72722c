"""``zoo validate --set`` checks a spec with the overrides ``zoo train --set`` would apply."""

from __future__ import annotations

from zoo.cli import main

SPEC = "env: {type: gym, id: CartPole-v1}\nagent: {type: ppo}\nbudget: {steps: 100}\n"


def test_overrides_are_applied_before_the_check(tmp_path, capsys):
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC)
    assert main(["validate", str(spec), "--set", "budget.steps=300", "--set", "trials=2"]) == 0
    assert "2 trial(s) x 300 steps" in capsys.readouterr().out
    assert main(["validate", str(spec), "--set", "agent.gamma=1.5"]) == 2
    err = capsys.readouterr().err
    assert "agent.gamma: Input should be less than or equal to 1 (given 1.5)" in err and "--set agent.gamma=1.5" in err
    assert main(["validate", str(spec), "--set", "agent.gama=0.9"]) == 2
    assert "unknown field 'gama' (did you mean 'gamma'?)" in capsys.readouterr().err
