"""The random-value tests' settings: fresh values locally, the same values on CI (tests/conftest.py)."""

from __future__ import annotations

import os
import subprocess
import sys

TESTS = os.path.dirname(os.path.abspath(__file__))
PROBE = ("import sys; sys.path.insert(0, sys.argv[1]); import conftest; from hypothesis import settings; "
         "d = settings.default; print(d.derandomize, d.print_blob, d.database is None)")


def _profile(ci: str | None) -> str:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci is not None:
        env["CI"] = ci
    return subprocess.run([sys.executable, "-c", PROBE, TESTS], env=env, capture_output=True, text=True,
                          check=True, timeout=60).stdout.strip()


def test_ci_draws_the_same_values_and_local_runs_fresh_ones() -> None:
    assert _profile("true") == "True True True"
    assert _profile("1") == "True True True"
    assert _profile(None) == "False False False"
    assert _profile("") == "True True True"  # set, if empty: as hypothesis itself reads it
