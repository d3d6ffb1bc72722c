"""The README and the example spec of the main job state the same duration."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DURATION = re.compile(r"about ([a-z0-9 -]+?) (?:of training|on one core)")


def test_the_readme_and_the_main_jobs_spec_agree_on_its_duration():
    readme = DURATION.findall((ROOT / "README.md").read_text())
    spec = DURATION.findall((ROOT / "examples" / "cartpole-ppo.yaml").read_text().splitlines()[0])
    assert readme and spec and set(readme) == set(spec) == {"half a minute"}
