"""Recall and false positives of the scrubber on the labelled gitleaks corpus.

    .venv/bin/python bench/scrub_eval.py [--misses]

Recall: a row is caught when its planted secret no longer occurs in the scrubbed text; a distinct
secret is caught when every row it was planted in is caught. False positives: the share of the
corpus's `not` rows (texts a rule must not fire on) in which anything at all was redacted.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from jevlin_hooks.privacy import scrub  # noqa: E402

CORPUS = os.environ.get("JEVLIN_CORPUS") or os.path.join(ROOT, "..", "shared", "corpus", "gitleaks-samples.jsonl")


def evaluate(path: str = CORPUS) -> dict:
    with open(path, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    # Rows with no text and no secret belong to path-only rules (a .p12 file name): nothing to scrub.
    secret_rows = [r for r in rows if r["expected"] == "secret" and r.get("secret")]
    not_rows = [r for r in rows if r["expected"] == "not"]
    by_secret: dict[str, list[bool]] = collections.defaultdict(list)
    rule_of: dict[str, str] = {}
    missed_examples: dict[str, str] = {}
    for r in secret_rows:
        clean, _ = scrub.scrub(r["text"])
        ok = r["secret"] not in clean
        by_secret[r["secret"]].append(ok)
        rule_of[r["secret"]] = r["rule_id"]
        if not ok and r["secret"] not in missed_examples:
            missed_examples[r["secret"]] = r["text"]
    caught = {s for s, oks in by_secret.items() if all(oks)}
    per_rule: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    for s, rule in rule_of.items():
        per_rule[rule][1] += 1
        per_rule[rule][0] += s in caught
    fp_rows = [r for r in not_rows if scrub.scrub(r["text"])[1]]
    # The corpus labels a `not` row for one gitleaks rule: "this rule must not fire on it (it may
    # still hold a placeholder another rule flags)". Our rules do not map one to one onto theirs,
    # so "this rule" is taken to be whichever of our rules catch that gitleaks rule's own secrets.
    family: dict[str, set[str]] = collections.defaultdict(set)
    for r in secret_rows:
        for f in scrub.scrub(r["text"])[1]:
            if r["text"][f.start:f.end].find(r["secret"][:8]) >= 0 or r["secret"] in r["text"][f.start:f.end]:
                family[r["rule_id"]].add(f.rule)
    fp_family = [r for r in not_rows if {f.rule for f in scrub.scrub(r["text"])[1]} & family.get(r["rule_id"], set())]
    rows_caught = sum(ok for oks in by_secret.values() for ok in oks)
    return {
        "distinct_secrets": len(by_secret),
        "distinct_caught": len(caught),
        "recall_distinct": len(caught) / len(by_secret),
        "rows": len(secret_rows),
        "recall_rows": rows_caught / len(secret_rows),
        "rules": len(per_rule),
        "rules_full": sum(1 for c, t in per_rule.values() if c == t),
        "per_rule": dict(per_rule),
        "not_rows": len(not_rows),
        "fp_rows": len(fp_rows),
        "fp_rate": len(fp_rows) / len(not_rows),
        "misses": {s: (rule_of[s], missed_examples[s]) for s in by_secret if s not in caught},
        "fp_examples": [(r["rule_id"], r["text"]) for r in fp_rows],
        "fp_family_rows": len(fp_family),
        "fp_family_rate": len(fp_family) / len(not_rows),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--misses", action="store_true")
    ap.add_argument("--fps", action="store_true")
    args = ap.parse_args()
    res = evaluate()
    print(f"recall: {res['distinct_caught']}/{res['distinct_secrets']} distinct secrets "
          f"({res['recall_distinct']:.1%}); {res['recall_rows']:.1%} of {res['rows']} rows; "
          f"{res['rules_full']}/{res['rules']} rules fully caught")
    print(f"false positives: {res['fp_rows']}/{res['not_rows']} not-rows with anything redacted ({res['fp_rate']:.1%}); "
          f"{res['fp_family_rows']} ({res['fp_family_rate']:.1%}) where the rule that catches that row's own "
          f"gitleaks rule fired")
    if args.misses:
        for _s, (rule, text) in sorted(res["misses"].items(), key=lambda x: x[1][0]):
            print(f"MISS {rule}: {text[:160]!r}")
    if args.fps:
        for rule, text in res["fp_examples"]:
            print(f"FP {rule}: {text[:160]!r}")


if __name__ == "__main__":
    main()
