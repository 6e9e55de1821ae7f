"""Score a first-sight labelled set: ours beside LangSmith's anonymizer and detect-secrets, same rows.

    .venv/bin/python bench/first_sight/score.py bench/first_sight/2026-12-03/set.jsonl [--misses] [--lost] [--by style]

A set is written by someone who never read the rules (bench/FIRST_SIGHT.md says how), one JSON
object a line: ``text`` and the labelled ``secrets``, ``pii`` and ``decoys``, each
``{"value", "kind"}``, with ``pieces`` (the substrings a wrapped value shows) or ``shown`` (the
encoded form the text holds) where the value itself is not in the text.

An item is **gone** when no piece of 8 or more characters of it (value, shown form or listed
piece) is left in the scrubbed text, **whole** when it is still there in full (every listed
piece, for a wrapped value), else a **fragment**. A decoy is **kept** when it is still there
verbatim. The ``[REDACTED:rule]`` marks are not pieces. A piece that one of the row's decoys also
holds tells nothing about the secret and is not counted (as bench/scrub_eval.py does).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import sys
from collections.abc import Callable
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

_MARK = re.compile(r"\[REDACTED:[a-z0-9\-]+\]")
_N = 8


def _pieces(s: str) -> list[str]:
    return [s] if len(s) <= _N else [s[i:i + _N] for i in range(len(s) - _N + 1)]


def left_of(item: dict[str, Any], clean: str, decoys: tuple[str, ...]) -> str:
    """"whole", "fragment" or "" (gone)."""
    clean = _MARK.sub("\x00", clean)
    value = item["value"]
    pieces = [p for p in item.get("pieces", ()) if p]
    shown = item.get("shown", "")
    if value in clean or (shown and shown in clean) or (pieces and all(p in clean for p in pieces)):
        return "whole"
    forms = [value] + ([shown] if shown else []) + pieces
    for form in forms:
        for p in _pieces(form):
            if len(p) >= _N and p in clean and not any(p in d for d in decoys):
                return "fragment"
    return ""


def ours() -> Callable[[str], str]:
    from jevlin_hooks.privacy import scrub

    if hasattr(scrub, "wait_prefilter"):
        scrub.wait_prefilter()
    return lambda t: scrub.scrub(t)[0]


def langsmith() -> Callable[[str], str]:
    from langsmith.anonymizer import create_secret_anonymizer

    fn = create_secret_anonymizer()
    return lambda t: str(fn(t))


def detect_secrets() -> Callable[[str], str]:
    """detect-secrets as a redactor, generously: its own scan of the text as a file (plugins and
    filters as shipped), then every whitespace-delimited word on a reported line that holds the
    reported value is cut (its GitHub detector reports only the "ghp" prefix as the value)."""
    import tempfile

    from detect_secrets import SecretsCollection
    from detect_secrets.settings import default_settings

    def run(text: str) -> str:
        lines = text.split("\n")
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "text.txt")
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            with default_settings():
                found = SecretsCollection()
                found.scan_file(path)
                hits = [(s.line_number, s.secret_value) for _, s in found]
        for n, value in hits:
            if value and 0 < n <= len(lines):
                lines[n - 1] = " ".join("[REDACTED:detect-secrets]" if value in w else w for w in lines[n - 1].split(" "))
        return "\n".join(lines)

    return run


def score(rows: list[dict[str, Any]], fn: Callable[[str], str], by: str = "") -> dict[str, Any]:
    """Counts overall and per group: secrets gone/fragment/total, pii gone/fragment/total, decoys kept/total."""
    groups: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    misses: list[tuple[str, str, str, str]] = []
    lost: list[tuple[str, str, str]] = []
    for r in rows:
        clean = fn(r["text"])
        decoys = tuple(d["value"] for d in r.get("decoys", ()))
        keys = ["ALL"] + ([str(r.get(by, "?"))] if by else [])
        for cls in ("secrets", "pii"):
            for item in r.get(cls, ()):
                left = left_of(item, clean, decoys)
                for k in keys:
                    groups[k][cls] += 1
                    groups[k][cls + " gone"] += not left
                    groups[k][cls + " fragment"] += left == "fragment"
                if left:
                    misses.append((r["id"], cls, left, item["kind"]))
        for d in r.get("decoys", ()):
            kept = d["value"] in clean
            for k in keys:
                groups[k]["decoys"] += 1
                groups[k]["decoys kept"] += kept
            if not kept:
                lost.append((r["id"], d["kind"], d["value"]))
    return {"groups": groups, "misses": misses, "lost": lost}


def _pct(a: int, b: int) -> str:
    return f"{a}/{b} ({a / b:.1%})" if b else "-"


def line(name: str, c: collections.Counter[str]) -> str:
    return (f"{name:22} secrets gone {_pct(c['secrets gone'], c['secrets']):>20}  fragment {_pct(c['secrets fragment'], c['secrets']):>16}"
            f"  pii gone {_pct(c['pii gone'], c['pii']):>18}  decoys kept {_pct(c['decoys kept'], c['decoys']):>18}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("set")
    ap.add_argument("--by", default="", help="also per value of this row field (style, lang)")
    ap.add_argument("--misses", action="store_true", help="our misses: row, class, whole/fragment, kind")
    ap.add_argument("--lost", action="store_true", help="our decoys lost")
    ap.add_argument("--only-ours", action="store_true")
    args = ap.parse_args()
    with open(args.set, encoding="utf-8") as f:
        rows = [json.loads(x) for x in f if x.strip()]
    scanners: list[tuple[str, Callable[[], Callable[[str], str]]]] = [("ours", ours)]
    if not args.only_ours:
        scanners += [("LangSmith", langsmith), ("detect-secrets", detect_secrets)]
    print(f"{args.set}: {len(rows)} rows")
    for name, make in scanners:
        res = score(rows, make(), args.by)
        print(line(name, res["groups"]["ALL"]))
        if name == "ours":
            ours_res = res
    if args.by:
        print(f"ours by {args.by}:")
        for k, c in sorted(ours_res["groups"].items()):
            if k != "ALL":
                print(line("  " + k, c))
    if args.misses:
        for m in ours_res["misses"]:
            print("MISS", *m)
    if args.lost:
        for m in ours_res["lost"]:
            print("LOST", *m)


if __name__ == "__main__":
    main()
