"""Mutation testing of the algorithmic modules with Cosmic Ray: the score per module and its surviving mutants.

For each module named (or every module of MODULES), Cosmic Ray changes the file one operator at a
time (``+`` to ``-``, ``<`` to ``<=``, a constant to another, a statement removed, ...) and runs the
tests that cover the module against each change; a mutant is killed when the tests fail. The
score of a module is killed / (killed + surviving). Equivalent mutants count as neither: those
listed in ``scripts/mutation_equivalent.txt`` (changes that cannot alter any result, each with its
reason), and those inside function annotations of modules that postpone them, which are skipped.

Sessions live in ``.mutation/`` and resume where they stopped; ``--fresh`` starts a module over
(needed after the module changes); ``--retest-survivors`` runs only the surviving mutants again,
against the tests of the new commit (for tests added since, the module unchanged), and
``--retest-lines FILE:FIRST-LAST`` every mutant of those lines (for tests of that code edited
rather than added); ``--report`` prints the table of the sessions as they stand (mutants,
outcomes, score, CPU time of the runs) without running anything.

Cosmic Ray edits the module on disk while it runs, so each sitting works in a snapshot of the last
commit (the checkout is never changed): commit the module and its tests before running.

    python scripts/mutation.py [MODULE ...] [--fresh | --retest-survivors] [--retest-lines F:A-B] [--minutes M] [--list] [--report]
    flock /tmp/zoo-heavy.lock .venv/bin/python scripts/mutation.py plugins/zoo_learner/targets.py
"""

from __future__ import annotations

import argparse
import ast
import datetime
import io
import json
import os
import resource
import signal
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / ".mutation"
EQUIVALENT = Path(__file__).with_name("mutation_equivalent.txt")
LEARNER, GDI, DICE, LBC = "tests/plugins/zoo_learner", "tests/plugins/zoo_gdi", "tests/plugins/zoo_dice", "tests/plugins/zoo_lbc"
STUDY = ["tests/plugins/zoo_report/test_stats.py", "tests/plugins/zoo_gohr_study/test_tce_and_order.py", "tests/plugins/zoo_gohr_study/test_study.py"]
# Each mutant costs one pytest process, most of it start-up: third-party pytest plugins (playwright,
# hypothesis, ...) are not loaded, since none of the tests below needs one. No bytecode is written,
# so no test run can read a stale compiled copy of a mutant.
TEST_ENV = {"PYTHONDONTWRITEBYTECODE": "1", "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
DQN = "tests/plugins/zoo_dqn/test_linear_dqn_mechanisms.py"  # numpy only: the agent's mechanisms, whole updates, resume
# the meta-controllers' known-answer tests, fastest first; their learning runs (test_learning.py) take seconds each
BANDITS = [f"tests/plugins/zoo_bandits/test_{name}.py" for name in ("params", "classic", "controllers", "best", "population", "options")]
ENSEMBLES = "tests/plugins/zoo_bandits/test_ensemble_update.py"  # the whole ensemble learns every episode
MASKS = "tests/plugins/zoo_learner/test_action_masks.py"  # mask_actions in the policies and the agents' losses

#: module -> the tests that cover it
MODULES: dict[str, list[str]] = {
    "plugins/zoo_learner/targets.py": [f"{LEARNER}/test_targets.py", f"{GDI}/test_loss.py", f"{DICE}/test_loss.py",
                                       f"{LBC}/test_loss.py"],
    "plugins/zoo_learner/policy.py": [f"{LEARNER}/test_policy.py", f"{LEARNER}/test_losses.py", f"{GDI}/test_loss.py",
                                      f"{DICE}/test_loss.py", MASKS],
    "plugins/zoo_learner/losses.py": [f"{LEARNER}/test_losses.py", f"{GDI}/test_loss_wiring.py",
                                      f"{DICE}/test_loss_wiring.py", f"{LBC}/test_loss.py", f"{GDI}/test_loss.py",
                                      f"{DICE}/test_loss.py", f"{LEARNER}/test_auxiliary_tasks.py", MASKS],
    "plugins/zoo_learner/shaping.py": [f"{LEARNER}/test_shaping.py", f"{LBC}/test_loss.py"],
    "plugins/zoo_bandits": [*BANDITS, ENSEMBLES],
    "plugins/zoo_gdi/loss.py": [f"{GDI}/test_loss_wiring.py", f"{GDI}/test_loss.py", f"{LEARNER}/test_losses.py",
                                f"{LEARNER}/test_auxiliary_tasks.py", MASKS],
    "plugins/zoo_gdi/behavior.py": [f"{GDI}/test_behavior.py", f"{GDI}/test_loss.py"],
    "plugins/zoo_dice/loss.py": [f"{DICE}/test_loss_wiring.py", f"{DICE}/test_loss.py", f"{LEARNER}/test_losses.py",
                                 f"{DICE}/test_omega.py", f"{LEARNER}/test_auxiliary_tasks.py", MASKS],
    "plugins/zoo_dice/behavior.py": [f"{DICE}/test_family.py"],
    "plugins/zoo_lbc/loss.py": [f"{LBC}/test_loss.py", f"{LBC}/test_q_flattening.py", f"{LEARNER}/test_losses.py",
                                f"{LEARNER}/test_auxiliary_tasks.py", MASKS],
    "plugins/zoo_lbc/bandits.py": ["tests/plugins/zoo_bandits/test_params.py", f"{LBC}/test_voting.py", f"{LBC}/test_bandits.py",
                                   "tests/plugins/zoo_bandits/test_best.py", ENSEMBLES],
    "plugins/zoo_lbc/behavior.py": [f"{LBC}/test_mapping.py", f"{LBC}/test_loss.py", MASKS],
    "plugins/zoo_lbc/shaping.py": [f"{LBC}/test_loss.py", f"{LBC}/test_mapping.py"],
    "plugins/zoo_dqn/linear.py": ["tests/plugins/zoo_dqn/test_linear_q.py"],
    "plugins/zoo_dqn/agent.py": [DQN, "tests/plugins/zoo_dqn/test_bootstrap_max.py"],
    "plugins/zoo_dqn/replay.py": ["tests/plugins/zoo_dqn/test_linear_q.py", DQN],
    "plugins/zoo_gohr/vector/features.py": ["tests/plugins/zoo_gohr/test_features.py"],
    "plugins/zoo_gohr_study/errors.py": ["tests/plugins/zoo_gohr_study/test_errors.py", "tests/plugins/zoo_gohr_study/test_tce_and_order.py"],
    "plugins/zoo_gohr_study/reporter.py": ["tests/plugins/zoo_gohr_study/test_report_tables.py"],
    "plugins/zoo_report/stats/summary.py": ["tests/plugins/zoo_report/test_stats_summary.py",
                                            "tests/plugins/zoo_report/test_report.py", *STUDY],
    "plugins/zoo_report/stats/ranking.py": ["tests/plugins/zoo_report/test_stats.py"],
    "plugins/zoo_report/stats/bands.py": ["tests/plugins/zoo_report/test_bands.py"],
    "plugins/zoo_atari/scores.py": ["tests/plugins/zoo_atari/test_scores.py"],
}


def equivalent_mutants(path: Path = EQUIVALENT) -> dict[tuple[str, str, int], str]:
    """(module file, operator, occurrence) -> reason, from lines ``FILE OPERATOR OCCURRENCE: reason``."""
    listed = {}
    for number, line in enumerate(path.read_text().splitlines(), 1) if path.exists() else ():
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        key, _, reason = text.partition(":")
        parts = key.split()
        if len(parts) != 3 or not parts[2].isdigit() or not reason.strip():
            raise SystemExit(f"{path}:{number}: expected 'FILE OPERATOR OCCURRENCE: reason', found {line!r}")
        listed[(parts[0], parts[1], int(parts[2]))] = reason.strip()
    return listed


def config(module: str, tests: list[str], timeout: float) -> str:
    """Cosmic Ray's TOML configuration of one module."""
    command = " ".join([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests])
    return "\n".join(["[cosmic-ray]", f'module-path = "{module}"', f"timeout = {timeout:.0f}", "excluded-modules = []",
                      f'test-command = "{command}"', "", "[cosmic-ray.distributor]", 'name = "local"', ""])


def cosmic_ray(*args: str, cwd: Path, env: dict[str, str], minutes: float | None = None) -> bool:
    """Run a Cosmic Ray command; False if it was stopped after `minutes` (its session keeps what it finished)."""
    process = subprocess.Popen([sys.executable, "-m", "cosmic_ray.cli", *args], cwd=cwd, start_new_session=True, env=env)
    try:
        code = process.wait(timeout=None if minutes is None else 60 * minutes)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait()
        return False
    except BaseException:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait()
        raise
    if code != 0:
        raise SystemExit(f"cosmic-ray {args[0]} failed (exit {code})")
    return True


def signature_annotations(path: Path) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """(start, end) positions of the parameter and return annotations of a module's functions, when
    the module postpones annotations (``from __future__ import annotations``): text nothing evaluates."""
    tree = ast.parse(path.read_text())
    postponed = any(isinstance(node, ast.ImportFrom) and node.module == "__future__"
                    and any(alias.name == "annotations" for alias in node.names) for node in tree.body)
    spans = []
    for node in ast.walk(tree) if postponed else ():
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            arguments = node.args.posonlyargs + node.args.args + node.args.kwonlyargs + [node.args.vararg, node.args.kwarg]
            for annotation in [a.annotation for a in arguments if a is not None] + [node.returns]:
                if annotation is not None:
                    spans.append(((annotation.lineno, annotation.col_offset),
                                  (annotation.end_lineno, annotation.end_col_offset)))
    return spans


def skip_signature_annotations(session: Path) -> None:
    """Mark the mutants inside functions' annotations as skipped: with postponed annotations they
    are strings no code reads, so no test could tell them apart (equivalent by construction)."""
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import WorkerOutcome, WorkResult

    spans: dict[Path, list] = {}
    with use_db(str(session), WorkDB.Mode.open) as db:
        for item in db.work_items:
            mutation = item.mutations[0]
            path = (ROOT / mutation.module_path).resolve()
            if path not in spans:
                spans[path] = signature_annotations(path)
            if any(start <= tuple(mutation.start_pos) and tuple(mutation.end_pos) <= end for start, end in spans[path]):
                db.set_result(item.job_id, WorkResult(worker_outcome=WorkerOutcome.SKIPPED,
                                                      output="inside a postponed annotation"))


def session_of(module: str) -> Path:
    return WORK / (module.replace("/", "__").removesuffix(".py") + ".sqlite")


def record_of(session: Path) -> dict:
    """The session's record: CPU time (user + system, all processes) over all its sittings, and the
    commit and date of its last sitting."""
    record = session.with_suffix(".json")
    return {"cpu_seconds": 0.0, "commit": "?", "date": "?", **(json.loads(record.read_text()) if record.exists() else {})}


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def snapshot(directory: Path) -> None:
    """Write the last commit's tree into `directory`."""
    archive = subprocess.run(["git", "archive", "HEAD"], cwd=ROOT, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(directory, filter="data")


def forget_results(session: Path, module: str, again: Callable) -> int:
    """Drop the results of the session's mutants for which again(mutation, result) holds, so that its
    next sitting runs them again against the current tests; the number dropped."""
    from cosmic_ray.work_db import WorkDB, use_db

    require_unchanged(session, module)
    with use_db(str(session), WorkDB.Mode.open) as db:
        jobs = [item.job_id for item, result in db.completed_work_items if again(item.mutations[0], result)]
    with sqlite3.connect(session) as connection:
        connection.executemany("DELETE FROM work_results WHERE job_id = ?", [(job,) for job in jobs])
    return len(jobs)


def surviving(equivalent: dict) -> Callable:
    """again() for the surviving mutants not listed as equivalent."""
    from cosmic_ray.work_item import TestOutcome

    return lambda mutation, result: (result.test_outcome == TestOutcome.SURVIVED and (
        Path(mutation.module_path).as_posix(), mutation.operator_name, mutation.occurrence) not in equivalent)


def within(ranges: list[tuple[str, int, int]]) -> Callable:
    """again() for the mutants that start inside any (file, first line, last line) of `ranges`."""
    return lambda mutation, result: any(Path(mutation.module_path).as_posix() == path and first <= mutation.start_pos[0] <= last
                                        for path, first, last in ranges)


def line_range(text: str) -> tuple[str, int, int]:
    """FILE:FIRST-LAST (or FILE:LINE) as (file, first, last)."""
    path, _, lines = text.rpartition(":")
    first, _, last = lines.partition("-")
    last = last or first
    if not path or not (first.isdigit() and last.isdigit()) or int(first) > int(last):
        raise argparse.ArgumentTypeError(f"{text!r}: expected FILE:FIRST-LAST, e.g. plugins/zoo_bandits/base.py:31-45")
    return path, int(first), int(last)


def in_module(path: str, module: str) -> bool:
    """Whether the file `path` is the module or lies inside it (a package folder)."""
    return path == module or path.startswith(module.rstrip("/") + "/")


def require_unchanged(session: Path, module: str) -> None:
    """Refuse to go on with a session whose module changed since it began: its mutants' positions refer
    to the text of then."""
    began = record_of(session).get("module_blob")
    if began is not None and began != module_blob(module):
        raise SystemExit(f"{module}: changed since its session began; start it over with --fresh")


def module_blob(module: str) -> str:
    """The git object id of the module's (or package's) committed content."""
    return subprocess.run(["git", "rev-parse", f"HEAD:{module}"], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout.strip()


def run_module(module: str, fresh: bool, minutes: float | None) -> Path:
    """Initialise (unless a session exists), baseline and execute the module's session; its path.

    Cosmic Ray edits the module in place, so it works in a snapshot of the last commit (imported
    ahead of the editable install through PYTHONPATH): the checkout stays untouched and free to
    edit meanwhile, and what is measured is the commit. The CPU time of the sitting is added to the
    session's record."""
    tests = MODULES[module]
    dirty = subprocess.run(["git", "status", "--porcelain", "--", module, *tests], cwd=ROOT, capture_output=True,
                           text=True).stdout
    if dirty.strip():
        raise SystemExit(f"{module}: uncommitted changes to it or its tests; commit them first (the run measures "
                         "the last commit)")
    WORK.mkdir(exist_ok=True)
    session = session_of(module)
    settings = session.with_suffix(".toml")
    if fresh:
        session.unlink(missing_ok=True)
        session.with_suffix(".json").unlink(missing_ok=True)
    require_unchanged(session, module)
    began = record_of(session).get("module_blob", module_blob(module))
    spent = record_of(session)["cpu_seconds"]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout
    cpu_before = children_cpu()
    with tempfile.TemporaryDirectory(prefix="zoo-mutation-") as folder:
        tree = Path(folder)
        snapshot(tree)
        env = {**os.environ, **TEST_ENV, "PYTHONPATH": os.pathsep.join([str(tree), str(tree / "plugins")])}
        try:
            started = time.perf_counter()
            baseline = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests],
                                      cwd=tree, capture_output=True, text=True, env=env)
            if baseline.returncode != 0:
                raise SystemExit(f"{module}: its tests fail before any mutation:\n{baseline.stdout[-2000:]}")
            settings.write_text(config(module, tests, timeout=max(60.0, 4 * (time.perf_counter() - started))))
            if not session.exists():
                # A session appears only once complete: an init stopped halfway would leave a session
                # with fewer mutants (or none) that later sittings would take as the whole module.
                starting = session.with_suffix(".init")
                starting.unlink(missing_ok=True)
                cosmic_ray("init", str(settings), str(starting), cwd=tree, env=env)
                skip_signature_annotations(starting)
                starting.replace(session)
            finished = cosmic_ray("exec", str(settings), str(session), cwd=tree, env=env, minutes=minutes)
        finally:
            spent += children_cpu() - cpu_before
            record = {"cpu_seconds": round(spent, 1), "commit": commit.strip(), "date": datetime.date.today().isoformat(),
                      "module_blob": began}
            session.with_suffix(".json").write_text(json.dumps(record) + "\n")
    if not finished:
        print(f"{module}: stopped after {minutes:g} minutes; run again to test the remaining mutants")
    return session


def score(session: Path, equivalent: dict) -> dict:
    """Counts of a finished session's mutants by outcome, and the surviving ones not listed as equivalent."""
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import TestOutcome, WorkerOutcome

    counts = {"killed": 0, "survived": 0, "equivalent": 0, "incompetent": 0}
    survivors, stale = [], []
    with use_db(str(session), WorkDB.Mode.open) as db:
        counts["mutants"], counts["pending"] = db.num_work_items, db.num_work_items - db.num_results
        for item, result in db.completed_work_items:
            if result.worker_outcome == WorkerOutcome.SKIPPED:
                counts["equivalent"] += 1  # inside an annotation (skip_signature_annotations)
                continue
            mutation = item.mutations[0]
            where = Path(mutation.module_path).as_posix()  # relative to the tree the session ran in
            key = (where, mutation.operator_name, mutation.occurrence)
            if result.test_outcome != TestOutcome.SURVIVED:
                # incompetent: Cosmic Ray could not run the tests at all (not a verdict on them)
                counts["killed" if result.test_outcome == TestOutcome.KILLED else "incompetent"] += 1
                if key in equivalent and result.test_outcome == TestOutcome.KILLED:
                    # a killed mutant cannot be equivalent: the entry names another mutant than it was
                    # written for, typically after the module changed and the occurrences moved
                    stale.append(f"  {where}:{mutation.start_pos[0]} {mutation.operator_name} {mutation.occurrence}")
                continue
            if key in equivalent:
                counts["equivalent"] += 1
                continue
            counts["survived"] += 1
            change = " | ".join(line for line in (result.diff or "").splitlines()
                                if line.startswith(("-", "+")) and not line.startswith(("---", "+++")))
            survivors.append(f"  {where}:{mutation.start_pos[0]} {mutation.operator_name} {mutation.occurrence}: {change}")
    counts["survivors"], counts["stale"] = survivors, stale
    return counts


def table(rows: list[tuple[str, dict, float]]) -> str:
    """The Markdown table of the modules' scores, each with the date and commit of its last sitting."""
    lines = ["| module | mutants | killed | survived | equivalent | incompetent | not yet run | score | CPU time "
             "| date | commit |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|"]
    for module, counts, percent in rows:
        record = counts["record"]
        lines.append(f"| `{module}` | {counts['mutants']} | {counts['killed']} | {counts['survived']} "
                     f"| {counts['equivalent']} | {counts['incompetent']} | {counts['pending']} | {'n/a' if percent is None else f'{percent:.1f}%'} "
                     f"| {record['cpu_seconds'] / 60:.0f} min | {record['date']} | {record['commit']} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", metavar="MODULE", help="module files or folders (default: all of MODULES)")
    parser.add_argument("--fresh", action="store_true", help="start the modules' sessions over")
    parser.add_argument("--retest-survivors", action="store_true",
                        help="run the sessions' surviving mutants again, against the tests of the current commit")
    parser.add_argument("--retest-lines", action="append", default=[], type=line_range, metavar="FILE:FIRST-LAST",
                        help="run the sessions' mutants in these lines again, whatever their outcome (after tests of "
                        "that code were edited, not only added); may be given more than once")
    parser.add_argument("--minutes", type=float, default=None,
                        help="stop each module's run after this long (its session keeps the results; run again to go on)")
    parser.add_argument("--list", action="store_true", help="list the modules and their tests, and stop")
    parser.add_argument("--report", action="store_true",
                        help="print the scores of the modules' sessions as they stand, running nothing")
    args = parser.parse_args()
    if args.list:
        for module, tests in MODULES.items():
            print(f"{module}: {' '.join(tests)}")
        return
    if args.fresh and args.retest_survivors:
        parser.error("--fresh starts over and --retest-survivors goes on from a session: give one of them")
    unknown = [module for module in args.modules if module not in MODULES]
    if unknown:
        parser.error(f"{unknown[0]}: not a module of this script; --list shows them")
    if args.retest_lines and (args.fresh or args.report):
        parser.error("--retest-lines goes on from a session: not with --fresh or --report")
    outside = [path for path, _, _ in args.retest_lines if not any(in_module(path, m) for m in args.modules or MODULES)]
    if outside:
        parser.error(f"--retest-lines {outside[0]}: not in any module named; --list shows them")
    equivalent = equivalent_mutants()
    rows = []
    for module in args.modules or list(MODULES):
        if args.report:
            session = session_of(module)
            if not session.exists():
                continue
        else:
            if args.retest_survivors and session_of(module).exists():
                print(f"{module}: testing its {forget_results(session_of(module), module, surviving(equivalent))} survivors again")
            ranges = [r for r in args.retest_lines if in_module(r[0], module)]
            if ranges and session_of(module).exists():
                print(f"{module}: testing its {forget_results(session_of(module), module, within(ranges))} mutants in "
                      f"{', '.join(f'{p}:{a}-{b}' for p, a, b in ranges)} again")
            session = run_module(module, args.fresh, args.minutes)
        counts = score(session, equivalent)
        counts["record"] = record_of(session)
        judged = counts["killed"] + counts["survived"]
        rows.append((module, counts, 100.0 * counts["killed"] / judged if judged else None))
        print(f"{module}: {counts['killed']} killed, {counts['survived']} survived, {counts['equivalent']} equivalent, "
              f"{counts['incompetent']} incompetent, {counts['pending']} not yet run")
        for line in counts["survivors"]:
            print(line)
        if counts["stale"]:
            print(f"{module}: listed as equivalent but killed (stale entries of {EQUIVALENT.name}; re-check them):")
            print("\n".join(counts["stale"]))
    if not rows:
        raise SystemExit("no session to report yet: run the script on a module first")
    print()
    print(table(rows))


if __name__ == "__main__":
    main()
