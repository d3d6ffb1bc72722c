"""scripts/mutation.py's choice of the mutants to run again, on a hand-made Cosmic Ray session."""

import importlib.util
import sys
from pathlib import Path

import pytest
from cosmic_ray.work_db import WorkDB, use_db
from cosmic_ray.work_item import MutationSpec, WorkerOutcome, WorkItem, WorkResult
from cosmic_ray.work_item import TestOutcome as Outcome  # not collected as a test class

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "mutation.py"


@pytest.fixture(scope="module")
def mutation():
    spec = importlib.util.spec_from_file_location("mutation_script", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["mutation_script"] = module
    spec.loader.exec_module(module)
    return module


# (job, file, operator, occurrence, line, outcome) of the session below
MUTANTS = [
    ("a", "pkg/base.py", "core/NumberReplacer", 0, 31, Outcome.KILLED),
    ("b", "pkg/base.py", "core/NumberReplacer", 1, 45, Outcome.SURVIVED),
    ("c", "pkg/base.py", "core/NumberReplacer", 2, 46, Outcome.KILLED),
    ("d", "pkg/other.py", "core/NumberReplacer", 0, 40, Outcome.SURVIVED),
    ("e", "pkg/other.py", "core/ReplaceTrueWithFalse", 0, 50, Outcome.SURVIVED),
]


@pytest.fixture
def session(tmp_path):
    path = tmp_path / "pkg.sqlite"
    with use_db(str(path), WorkDB.Mode.create) as db:
        for job, file, operator, occurrence, line, outcome in MUTANTS:
            spec = MutationSpec(file, operator, occurrence, (line, 4), (line, 8))
            db.add_work_item(WorkItem(mutations=(spec,), job_id=job))
            db.set_result(job, WorkResult(worker_outcome=WorkerOutcome.NORMAL, test_outcome=outcome))
    return path


def pending(path):
    with use_db(str(path), WorkDB.Mode.open) as db:
        return sorted(item.job_id for item in db.pending_work_items)


def test_retest_lines_drops_every_outcome_inside_the_range_of_that_file_only(mutation, session):
    assert mutation.forget_results(session, "pkg", mutation.within([("pkg/base.py", 31, 45)])) == 2
    assert pending(session) == ["a", "b"]


def test_retest_survivors_drops_the_survivors_not_listed_as_equivalent(mutation, session):
    equivalent = {("pkg/other.py", "core/ReplaceTrueWithFalse", 0): "a flag no code reads"}
    assert mutation.forget_results(session, "pkg", mutation.surviving(equivalent)) == 2
    assert pending(session) == ["b", "d"]


def test_line_ranges_are_parsed_or_refused_with_the_expected_form(mutation):
    assert mutation.line_range("plugins/zoo_bandits/base.py:31-45") == ("plugins/zoo_bandits/base.py", 31, 45)
    assert mutation.line_range("plugins/zoo_report/stats/ranking.py:50") == ("plugins/zoo_report/stats/ranking.py", 50, 50)
    for text in ["base.py", "base.py:45-31", "base.py:a-b", ":3-4"]:
        with pytest.raises(Exception, match="expected FILE:FIRST-LAST"):
            mutation.line_range(text)


@pytest.mark.parametrize("args, message", [
    (["plugins/zoo_report/stats/ranking.py", "--retest-lines", "plugins/zoo_report/stats/bands.py:1-9"], "not in any module named"),
    (["plugins/zoo_report/stats/ranking.py", "--fresh", "--retest-lines", "plugins/zoo_report/stats/ranking.py:1-9"], "not with --fresh"),
    (["--retest-lines", "ranking.py"], "expected FILE:FIRST-LAST"),
])
def test_a_bad_retest_lines_call_says_why_and_runs_nothing(mutation, args, message, tmp_path, monkeypatch, capsys):
    def run_module(*_):
        raise AssertionError("a bad call ran a session")

    monkeypatch.setattr(mutation, "WORK", tmp_path)  # whatever happens, the checkout's sessions stay untouched
    monkeypatch.setattr(mutation, "run_module", run_module)
    monkeypatch.setattr(sys, "argv", [str(SCRIPT), *args])
    with pytest.raises(SystemExit) as exit_:
        mutation.main()
    assert exit_.value.code == 2 and message in capsys.readouterr().err and not any(tmp_path.iterdir())
