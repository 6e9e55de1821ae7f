"""Recall and false positives on the labelled gitleaks corpus stay where bench/README.md says."""

from __future__ import annotations

import os
import re
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))

import scrub_eval  # noqa: E402

MARGIN_RECALL = 0.005
MARGIN_FP = 0.01


def readme_figures() -> dict[str, float]:
    with open(os.path.join(ROOT, "bench", "README.md"), encoding="utf-8") as f:
        m = re.search(r"<!-- scrub-figures: (.*?) -->", f.read())
    assert m, "bench/README.md lost its scrub-figures marker"
    return {k: float(v) for k, v in (p.split("=") for p in m.group(1).split())}


def test_recall_and_false_positives_hold():
    if not os.path.exists(scrub_eval.CORPUS):
        if os.environ.get("CI"):
            raise AssertionError(f"corpus missing at {scrub_eval.CORPUS}")
        pytest.skip("shared/corpus not beside the repository")
    fig = readme_figures()
    res = scrub_eval.evaluate()
    assert res["recall_distinct"] >= fig["recall_distinct"] - MARGIN_RECALL, res["recall_distinct"]
    for rate in ("fp_rule_rate", "fp_unlabelled_rate", "fp_rate"):
        assert res[rate] <= fig[rate] + MARGIN_FP, (rate, res[rate])
    # the targets, whatever bench/README.md says
    assert res["recall_distinct"] >= 0.98 and res["fp_rule_rate"] <= 0.10, res
