"""OTLP/JSON against a second real receiver: MLflow 3's `/v1/traces` (pinned in
tests/e2e/mlflow-requirements.txt, installed into .venv-mlflow by `./dev test`). Every captured
Claude Code and Codex session and one with planted secrets go through the hooks and the daemon
with `otlp_protocol = "http/json"`; MLflow's REST API and SQLite store are read back."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterator
from typing import Any

import pytest
from agent_sessions import SECRETS, queue_sessions
from backend_server import ROOT, BackendServer, free_port, post
from test_otlp import config, drain

MLFLOW = os.environ.get("JEVLIN_MLFLOW") or os.path.join(ROOT, ".venv-mlflow", "bin", "mlflow")

pytestmark = pytest.mark.e2e

if not os.path.exists(MLFLOW):
    if os.environ.get("JEVLIN_E2E_REQUIRED"):
        raise RuntimeError(f"{MLFLOW} missing: `./dev test` installs MLflow into .venv-mlflow")
    pytest.skip("MLflow not installed (./dev test installs it into .venv-mlflow)", allow_module_level=True)


class MLflow(BackendServer):
    def __init__(self, workdir: str) -> None:
        port = free_port()
        self.db = os.path.join(workdir, "mlflow.db")
        super().__init__("mlflow", [MLFLOW, "server", "--host", "127.0.0.1", "--port", str(port), "--workers", "1",
                                    "--backend-store-uri", f"sqlite:///{self.db}",
                                    "--default-artifact-root", os.path.join(workdir, "artifacts")],
                         {"MLFLOW_SERVER_ENABLE_JOB_EXECUTION": "false"}, workdir, port, "/health")

    def experiment(self, name: str) -> str:
        return str(post(self.url + "/api/2.0/mlflow/experiments/create", {"name": name})["experiment_id"])

    def rows(self, sql: str, *args: Any) -> list[tuple[Any, ...]]:
        with sqlite3.connect(f"file:{self.db}?mode=ro", uri=True) as db:
            return db.execute(sql, args).fetchall()


@pytest.fixture(scope="module")
def mlflow(tmp_path_factory: Any) -> Iterator[MLflow]:
    m = MLflow(str(tmp_path_factory.mktemp("mlflow")))
    try:
        yield m
    finally:
        m.stop()


@pytest.mark.parametrize("turn_end", [True, False], ids=["turn_end_on", "turn_end_off"])
def test_mlflow_reads_the_json_encoding(mlflow, probe_home, tmp_path, turn_end):
    exp_id = mlflow.experiment(f"jevlin-json-{'on' if turn_end else 'off'}")
    config(probe_home, mlflow.url, turn_end=turn_end, protocol="http/json",
           headers=f'{{ "x-mlflow-experiment-id" = "{exp_id}" }}')
    exp = queue_sessions(probe_home, str(tmp_path))
    p = drain(probe_home)
    assert p.returncode == 0, p.stderr

    spans: list[tuple[Any, ...]] = []
    deadline = time.monotonic() + 60
    while len(spans) < exp.spans and time.monotonic() < deadline:
        spans = mlflow.rows("select trace_id, span_id, parent_span_id, content from spans where experiment_id = ?",
                            int(exp_id))
        time.sleep(0.2)
    assert len(spans) == exp.spans
    contents = [json.loads(c) for *_, c in spans]
    got = {json.loads(c["attributes"]["jevlin.record_id"]) for c in contents if "jevlin.record_id" in c["attributes"]}
    assert got == exp.records, "every record arrived"
    by_trace: dict[str, set[str]] = {}
    for trace, span, _parent, _ in spans:
        by_trace.setdefault(trace, set()).add(span)
    assert all(parent in by_trace[trace] for trace, _, parent, _ in spans if parent), "no orphan parent"
    assert len(by_trace) == exp.turns, "one trace per turn"
    # MLflow marks a trace done when its root arrives: none may stay IN_PROGRESS
    traces = mlflow.rows("select request_id, status, session_id, request_preview from trace_info where experiment_id = ?",
                         int(exp_id))
    assert len(traces) == exp.turns and {t[1] for t in traces} <= {"OK", "ERROR"}
    assert {t[2] for t in traces} == exp.threads, "MLflow's sessions are the threads"
    if turn_end:  # each trace's root is its turn: the prompt is the trace's request
        assert all(t[3] for t in traces)
    stored = mlflow.stored("mlflow.db") + json.dumps(contents).encode()
    leaked = [v for v in (*exp.raw_ids, *SECRETS) if v.encode() in stored]
    assert not leaked, f"raw ids or secrets reached MLflow: {leaked}"
