"""Recall and false positives of the scrubber: on agent text, and on the labelled gitleaks corpus.

    .venv/bin/python bench/scrub_eval.py [--seed 13] [--rows 700] [--misses] [--fps]

Agent text (bench/agent_text/generate.py, seeded): per family, the planted secrets and personal
data that are gone (no piece of 8 or more characters left), the rows where a piece was left
beside a redaction (a fragment), and the decoys (hosts, paths, versions, digests, placeholders)
kept verbatim. `--misses` prints what was missed or cut, `--fps` the decoys lost.

Recall: a row is caught when its planted secret no longer occurs in the scrubbed text; a distinct
secret is caught when every row it was planted in is caught. False positives, three ways, on the
corpus's `not` rows (texts one gitleaks rule must not fire on): rows where our rule for that
gitleaks rule fired (the corpus's own definition); rows with anything redacted that the corpus
labels a secret in no row; rows with anything redacted at all. `--fps` lists the last kind, with
a `*` on those the first counts.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import sys
from collections.abc import Callable

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from bench.agent_text import generate  # noqa: E402
from jevlin_hooks.privacy import scrub  # noqa: E402


def _corpus() -> str:
    """$JEVLIN_CORPUS, else shared/corpus beside the repository or beside a parent of it (a git
    worktree under /work/wt/NAME finds /work/shared)."""
    if os.environ.get("JEVLIN_CORPUS"):
        return os.environ["JEVLIN_CORPUS"]
    d = ROOT
    for _ in range(3):
        d = os.path.dirname(d)
        path = os.path.join(d, "shared", "corpus", "gitleaks-samples.jsonl")
        if os.path.exists(path):
            return path
    return os.path.join(ROOT, "..", "shared", "corpus", "gitleaks-samples.jsonl")


CORPUS = _corpus()


def _pieces(value: str, n: int = 8) -> list[str]:
    return [value] if len(value) <= n else [value[i:i + n] for i in range(len(value) - n + 1)]


_MARK = re.compile(r"\[REDACTED:[a-z0-9\-]+\]")


def left_of(value: str, clean: str, public: tuple[str, ...] = ()) -> str:
    """"whole" when the value survived, "fragment" when only a piece of 8+ characters did, "" when gone
    (the [REDACTED:rule] marks are not pieces: `rubygems-token` names the rule, not the token)."""
    clean = _MARK.sub("\x00", clean)
    if value in clean:
        return "whole"
    # a piece the row's public values also hold (the base64 of -----BEGIN, shared by a key and
    # the certificate beside it) tells nothing about the secret
    return "fragment" if any(p in clean and not any(p in d for d in public) for p in _pieces(value)) else ""


def family_of(name: str) -> str:
    return name.split("-", 1)[0] if name.startswith(("i18n-", "vendor-", "pii-")) else name


def evaluate_agent_text(rows: list, scrubber: Callable[[str], str] | None = None) -> dict:
    """Per family: [secrets caught, secrets, pii caught, pii, rows with a fragment, rows, decoys kept, decoys]."""
    fn = scrubber or (lambda t: scrub.scrub(t)[0])
    fam: dict[str, list[int]] = collections.defaultdict(lambda: [0] * 8)
    misses: list[tuple[str, str, str, str]] = []
    lost: list[tuple[str, str, str]] = []
    for r in rows:
        clean = fn(r.text)
        c = fam[family_of(r.family)]
        c[5] += 1
        fragment = False
        for values, i in ((r.secrets, 0), (r.pii, 2)):
            for v in values:
                left = left_of(v, clean, tuple(r.decoys))
                c[i] += not left
                c[i + 1] += 1
                fragment |= left == "fragment"
                if left:
                    misses.append((r.family, left, v, clean))
        c[4] += fragment
        for d in r.decoys:
            kept = d in clean
            c[6] += kept
            c[7] += 1
            if not kept:
                lost.append((r.family, d, clean))
    total = [sum(col) for col in zip(*fam.values(), strict=True)]
    return {"families": dict(sorted(fam.items())), "total": total, "misses": misses, "lost": lost}


def print_agent_text(res: dict, title: str) -> None:
    def pct(a: int, b: int) -> str:
        return f"{a}/{b} ({a / b:.1%})" if b else "-"
    print(title)
    print(f"{'family':16} {'secrets gone':>18} {'pii gone':>16} {'fragment rows':>14} {'decoys kept':>18}")
    for name, c in [*res["families"].items(), ("ALL", res["total"])]:
        print(f"{name:16} {pct(c[0], c[1]):>18} {pct(c[2], c[3]):>16} {c[4]:>8}/{c[5]:<5} {pct(c[6], c[7]):>18}")


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
    # A `not` row "must not make this rule fire (it may still hold a placeholder another rule
    # flags)", says the corpus: its label is about one gitleaks rule. "This rule" in our table is
    # the rule(s) that recognise that gitleaks rule's secrets on their own (the bare secret, no
    # key name around it), or, where nothing does (context-only formats), the rules that caught
    # its secrets in the corpus's own rows.
    bare: dict[str, set[str]] = collections.defaultdict(set)
    in_context: dict[str, set[str]] = collections.defaultdict(set)
    for r in secret_rows:
        bare[r["rule_id"]].update(f.rule for f in scrub.find(r["secret"]))
        i = r["text"].find(r["secret"])
        j = i + len(r["secret"])
        in_context[r["rule_id"]].update(f.rule for f in scrub.find(r["text"]) if f.start < j and i < f.end)
    own = {k: bare.get(k) or in_context.get(k) or set() for k in set(bare) | set(in_context)}
    fp_rule = [r for r in not_rows if {f.rule for f in scrub.find(r["text"])} & own.get(r["rule_id"], set())]
    # Stricter: anything redacted that the corpus does not itself label a secret in some row (the
    # Cloudflare `not` rows hold the other Cloudflare rule's labelled secrets, for one).
    labelled = [s for s in {r["secret"] for r in secret_rows} if len(s) >= 8]
    fp_unlabelled = []
    for r in fp_rows:
        spans = [(r["text"].find(s), r["text"].find(s) + len(s)) for s in labelled if s in r["text"]]
        if not all(any(a < f.end and f.start < b for a, b in spans) for f in scrub.scrub(r["text"])[1]):
            fp_unlabelled.append(r)
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
        "fp_rule_rows": len(fp_rule),
        "fp_rule_rate": len(fp_rule) / len(not_rows),
        "fp_unlabelled_rows": len(fp_unlabelled),
        "fp_unlabelled_rate": len(fp_unlabelled) / len(not_rows),
        "fp_rule_examples": [(r["rule_id"], r["text"]) for r in fp_rule],
    }


def sweep(n: int, rows: int, first: int = 1000) -> None:
    total = [0] * 8
    for seed in range(first, first + n):
        res = evaluate_agent_text(generate.rows(seed, rows))
        total = [a + b for a, b in zip(total, res["total"], strict=True)]
        for fam, left, v, _clean in res["misses"]:
            print(f"seed {seed}: MISS {fam} ({left}): {v[:40]!r}")
        for fam, d, _clean in res["lost"]:
            print(f"seed {seed}: LOST {fam}: {d[:60]!r}")
    t = total
    print(f"{n} sets of {rows} rows (seeds {first}-{first + n - 1}): secrets gone {t[0]}/{t[1]} ({t[0] / t[1]:.2%}), "
          f"personal data gone {t[2]}/{t[3]} ({t[2] / t[3]:.2%}), rows with a fragment {t[4]}/{t[5]}, "
          f"decoys kept {t[6]}/{t[7]} ({t[6] / t[7]:.2%})")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--misses", action="store_true")
    ap.add_argument("--fps", action="store_true")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--rows", type=int, default=700)
    ap.add_argument("--sweep", type=int, default=0, metavar="N",
                    help="instead: N more sets built the same way (seeds --first on, --rows rows each), as the "
                         "unseen check set is: their totals and every miss and lost decoy")
    ap.add_argument("--first", type=int, default=1000, help="the first seed of --sweep")
    args = ap.parse_args()
    if args.sweep:
        sweep(args.sweep, args.rows, args.first)
        return
    agent = evaluate_agent_text(generate.rows(args.seed, args.rows))
    print_agent_text(agent, f"agent text: {args.rows} rows, seed {args.seed} (bench/agent_text/generate.py)")
    if args.misses:
        for fam, left, v, clean in agent["misses"]:
            i = clean.find(v) if left == "whole" else max(clean.find(p) for p in _pieces(v))
            print(f"MISS {fam} ({left}): {v[:40]!r} in ...{clean[max(0, i - 80):i + 60]!r}")
    if args.fps:
        for fam, d, clean in agent["lost"]:
            print(f"LOST {fam}: {d[:60]!r} in {clean[-300:]!r}")
    print()
    print("gitleaks corpus")
    res = evaluate()
    print(f"recall: {res['distinct_caught']}/{res['distinct_secrets']} distinct secrets "
          f"({res['recall_distinct']:.1%}); {res['recall_rows']:.1%} of {res['rows']} rows; "
          f"{res['rules_full']}/{res['rules']} rules fully caught")
    n = res["not_rows"]
    print(f"false positives on {n} not-rows: {res['fp_rule_rows']} ({res['fp_rule_rate']:.1%}) where our rule for "
          f"that row's gitleaks rule fired; {res['fp_unlabelled_rows']} ({res['fp_unlabelled_rate']:.1%}) with anything "
          f"redacted that the corpus labels a secret nowhere; {res['fp_rows']} ({res['fp_rate']:.1%}) with anything redacted")
    if args.misses:
        for _s, (rule, text) in sorted(res["misses"].items(), key=lambda x: x[1][0]):
            print(f"MISS {rule}: {text[:160]!r}")
    if args.fps:
        own = {id(t) for _, t in res["fp_rule_examples"]}
        for rule, text in res["fp_examples"]:
            print(f"FP{'*' if id(text) in own else ' '} {rule}: {text[:160]!r}")


if __name__ == "__main__":
    main()
