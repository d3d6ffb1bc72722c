"""An MLflow run per trial, written through `MlflowClient` (no global active run, so trials may share a process)."""

from __future__ import annotations

import fcntl
import json
import logging
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from zoo import TrialRecord

from .params import MlflowParams

#: the file in a trial's folder naming its MLflow run, which a resumed trial continues
RUN_ID_FILE = "mlflow-run.json"
#: without a tracking URI: the run folder's SQLite store and artifact folder (MLflow 3 retired the file store)
DATABASE, ARTIFACTS = "mlflow.db", "mlartifacts"
#: MLflow's limits: params and metrics per log_batch call, and characters of a param value
PARAMS_PER_BATCH, METRICS_PER_BATCH, PARAM_CHARS = 100, 1000, 6000


class MlflowTracker:
    """The trial's params once, its scalars as metrics, its result as ``result/...`` metrics and its files as artifacts."""

    def __init__(self, params: MlflowParams, record: TrialRecord):
        from mlflow.tracking import MlflowClient

        for name in ("mlflow", "alembic"):  # their INFO lines on creating a database would read as the zoo's output
            logging.getLogger(name).setLevel(max(logging.getLogger(name).getEffectiveLevel(), logging.WARNING))
        uri = params.tracking_uri or f"sqlite:///{(record.run_dir / DATABASE).resolve()}"
        with _store_lock(uri):
            self._client = MlflowClient(tracking_uri=uri)
            self._run_id = self._open_run(uri, params, record)
        self._pending: list[Any] = []
        self._finished = False

    def _open_run(self, uri: str, params: MlflowParams, record: TrialRecord) -> str:
        """The id of the trial's MLflow run: the one a resumed trial started, or a new one holding the trial's params."""
        from mlflow.entities import Param

        run_file = record.directory / RUN_ID_FILE
        if record.resume_step is not None and run_file.is_file():
            run_id = json.loads(run_file.read_text())["run_id"]
            self._client.update_run(run_id, status="RUNNING")
            return run_id
        # a local database keeps a new experiment's artifacts in the run folder (MLflow's default is the working
        # directory's); a tracking server decides where its artifacts go
        artifacts = (record.run_dir / ARTIFACTS).resolve().as_uri() if uri.startswith("sqlite:") else None
        experiment = _experiment_id(self._client, params.experiment or record.run_name, artifacts)
        run = self._client.create_run(experiment, run_name=f"{record.run_name}-trial-{record.trial}",
                                      tags={"zoo.run": record.run_name, "zoo.trial": str(record.trial)})
        record.directory.mkdir(parents=True, exist_ok=True)
        run_file.write_text(json.dumps({"run_id": run.info.run_id, "tracking_uri": uri}) + "\n")
        items = [Param(key, str(value)[:PARAM_CHARS]) for key, value in sorted(record.params.items())]
        for start in range(0, len(items), PARAMS_PER_BATCH):
            self._client.log_batch(run.info.run_id, params=items[start:start + PARAMS_PER_BATCH])
        return run.info.run_id

    def log(self, step: int, scalars: Mapping[str, float]) -> None:
        from mlflow.entities import Metric

        stamp = int(time.time() * 1000)
        self._pending += [Metric(name, value, stamp, step) for name, value in scalars.items()]
        if len(self._pending) >= METRICS_PER_BATCH:
            self.flush()

    def flush(self) -> None:
        while self._pending:
            batch, self._pending = self._pending[:METRICS_PER_BATCH], self._pending[METRICS_PER_BATCH:]
            self._client.log_batch(self._run_id, metrics=batch)

    def finish(self, result: Mapping[str, Any], files: list[Path]) -> None:
        step = int(result.get("steps") or 0)
        for name, value in result.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                self.log(step, {f"result/{name}": float(value)})
        for episode, value in enumerate(result.get("eval_returns") or []):
            self.log(episode, {"result/eval_return": float(value)})
        self.flush()
        for path in files:
            if path.is_file():
                self._client.log_artifact(self._run_id, str(path))
        self._client.set_terminated(self._run_id, status="FINISHED")
        self._finished = True

    def close(self) -> None:
        if not self._finished:  # stopped or failed before its result: what was logged stays, the run is marked so
            self.flush()
            self._client.set_terminated(self._run_id, status="KILLED")


@contextmanager
def _store_lock(uri: str) -> Iterator[None]:
    """Hold an flock beside a SQLite store while a trial opens it: trials opening one new database at once (the
    workers of a run) would each create its tables. A tracking server serialises its clients itself."""
    if not uri.startswith("sqlite:///"):
        yield
        return
    lock = Path(uri.removeprefix("sqlite:///") + ".lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    with lock.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _experiment_id(client: Any, name: str, artifacts: str | None) -> str:
    """The id of the experiment `name`, created (its artifacts in `artifacts`) if missing; another trial's
    process may create it meanwhile."""
    from mlflow.exceptions import MlflowException

    found = client.get_experiment_by_name(name)
    if found is not None:
        return found.experiment_id
    try:
        return client.create_experiment(name, artifact_location=artifacts)
    except MlflowException:
        return client.get_experiment_by_name(name).experiment_id
