"""Proof that two trees' scrubbers give the same output: a digest of everything they return.

    .venv/bin/python bench/scrub_equivalence.py [--tree TREE] [--test-texts FILE] [--dump DIR]
    .venv/bin/python bench/scrub_equivalence.py --capture-tests TREE --test-texts FILE

Runs TREE's scrubber (default: this checkout's) over every corpus there is and prints one SHA-256
per corpus and configuration, and one over all of them. Two trees scrub alike when the last line
is the same. What is hashed, in order: `scrub` (the clean text, each finding's rule, start and
end), `find` (every finding before merging, in the order found) and `scrub_many` (each field's
clean text and count, over groups of five texts and over the daemon's records).

Corpora (always built by this checkout's bench/, whatever TREE is): the gitleaks corpus
(shared/corpus), the labelled agent-text rows (bench/agent_text, five seeds), bench/scrub_speed.py's
bench and varied 32 KiB mixes (three seeds), bench/scrub_probe.py's forms (three seeds), the hostile
megabytes of bench/scrub_adversarial.py, every text the scrub tests feed the scrubber (captured
once from a tree's tests with --capture-tests: tests/test_privacy.py and tests/test_scrub_*.py),
and 3,000 pieces of 32 KiB of the Python standard library's sources (seeded offsets).

Configurations: with the Hyperscan prefilter (waited for) and without it; and, for `find`,
windows off, windows on every text whatever its length, Hyperscan without its match-ends
databases, the automaton's positions with windows on every text, and three rules disabled. The
starting tree (345efb8) reaches its module globals for these; later trees have engine options.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import hashlib
import json
import os
import random
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Iterator
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DISABLED = ("email", "ipv4", "credential-assignment")
STDLIB_PIECES = 3000
PIECE = 32 * 1024


# --- corpora -----------------------------------------------------------------------------------

def stdlib_pieces(n: int = STDLIB_PIECES) -> list[str]:
    """``n`` pieces of 32 KiB of the standard library's .py files (joined in sorted order), at
    seeded offsets."""
    lib = sysconfig.get_paths()["stdlib"]
    files = []
    for d, dirs, names in os.walk(lib):
        dirs[:] = sorted(x for x in dirs if x != "site-packages")
        files += [os.path.join(d, x) for x in sorted(names) if x.endswith(".py")]
    parts = []
    for path in files:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            parts.append(f.read())
    whole = "\n".join(parts)
    rng = random.Random(27)
    return [whole[o:o + PIECE] for o in (rng.randrange(len(whole) - PIECE) for _ in range(n))]


def corpora(test_texts: str | None) -> dict[str, list[str]]:
    from bench import scrub_adversarial, scrub_eval, scrub_probe, scrub_speed
    from bench.agent_text import generate

    out: dict[str, list[str]] = {}
    if os.path.exists(scrub_eval.CORPUS):
        with open(scrub_eval.CORPUS, encoding="utf-8") as f:
            out["gitleaks"] = [json.loads(line)["text"] for line in f]
    else:
        print(f"(no gitleaks corpus at {scrub_eval.CORPUS})", file=sys.stderr)
    out["agent-text"] = [r.text for seed in (13, 17, 4242, 7, 1) for r in generate.rows(seed, 700)]
    mixes = []
    for seed in (7, 11, 23):
        rng = random.Random(seed)
        snippets = [r.text for r in generate.rows(seed, 400)]
        mixes += [scrub_speed.bench_message(rng) for _ in range(30)]
        mixes += [scrub_speed.varied_message(rng, snippets) for _ in range(60)]
    out["speed-mixes"] = mixes
    probe = []
    for seed in (1, 2, 3):
        r = random.Random(seed)
        probe += [form.replace("@@", scrub_probe.value(kind, r)) for form, kind in scrub_probe.FORMS]
    out["probe"] = probe
    out["hostile"] = list(scrub_adversarial.cases().values())
    if test_texts:
        with gzip.open(test_texts, "rt", encoding="utf-8") as f:
            out["tests"] = [json.loads(line) for line in f]
    else:
        print("(no --test-texts: the texts of the scrub tests are left out)", file=sys.stderr)
    out["stdlib"] = stdlib_pieces()
    return out


def groups(texts: list[str], k: int = 5) -> list[list[str]]:
    return [texts[i:i + k] for i in range(0, len(texts), k)]


# --- a tree's scrubber, in each configuration ------------------------------------------------------

class Tree:
    """scrub, find and scrub_many of one tree, in a configuration: engine options where the tree
    has them (a Scrubber), its module globals where it has not (the starting tree)."""

    def __init__(self) -> None:
        from jevlin_hooks.privacy import scrub

        self.mod = scrub
        self.engine = getattr(scrub, "Scrubber", None)
        if self.engine is not None:
            self.default = scrub.default()
            self.default.wait_prefilter()
            self.made = {
                "hyperscan": self.default,
                "no-hyperscan": self.engine(prefilter=False),
                "no-windows": self.engine(windows=False),
                "windows-everywhere": self.engine(windows_from=0),
                "no-ends": self.engine(ends=False),
                "automaton-windows-everywhere": self.engine(prefilter=False, windows_from=0),
            }
            for s in self.made.values():
                s.wait_prefilter()
        else:
            scrub.wait_prefilter()

    @contextlib.contextmanager
    def _old(self, config: str) -> Iterator[None]:
        """The starting tree's globals set for ``config``, and put back after."""
        m = self.mod
        saved = {k: getattr(m, k) for k in ("_PF", "_WINDOWS_FROM", "_ENDS")}
        try:
            if config in ("no-hyperscan", "automaton-windows-everywhere"):
                m._PF = None
            if config in ("windows-everywhere", "automaton-windows-everywhere"):
                m._WINDOWS_FROM = 0
            if config == "no-ends":
                m._ENDS = [None, None]
            yield
        finally:
            for k, v in saved.items():
                setattr(m, k, v)

    def call(self, config: str, what: str, x: Any) -> Any:
        disabled = DISABLED if config == "disabled" else ()
        base = "hyperscan" if config == "disabled" else config
        if self.engine is not None:
            s = self.made[base]
            if what == "scrub":
                return s.scrub(x, disabled)
            if what == "scrub_many":
                return s.scrub_many(x, disabled)
            return s.find(x, disabled)
        with self._old(base):
            if what == "scrub":
                return self.mod.scrub(x, disabled)
            if what == "scrub_many":
                return self.mod.scrub_many(x, disabled)
            return self.mod.find(x, disabled, windowed=base != "no-windows")


def canonical(what: str, result: Any) -> Any:
    if what == "scrub":
        clean, findings = result
        return [clean, [[f.rule, f.start, f.end] for f in findings]]
    if what == "find":
        return [[f.rule, f.start, f.end] for f in result]
    return [list(r) for r in result]


PLAN: list[tuple[str, str]] = [
    ("hyperscan", "scrub"), ("hyperscan", "find"), ("hyperscan", "scrub_many"),
    ("no-hyperscan", "scrub"), ("no-hyperscan", "find"), ("no-hyperscan", "scrub_many"),
    ("no-windows", "find"), ("windows-everywhere", "find"), ("no-ends", "find"),
    ("automaton-windows-everywhere", "find"), ("disabled", "scrub"),
]


def run(tree: Tree, texts: dict[str, list[str]], records: list[list[str]], dump: str | None) -> str:
    total = hashlib.sha256()
    for corpus, items in texts.items():
        for config, what in PLAN:
            inputs: list[Any] = groups(items) if what == "scrub_many" else items
            if what == "scrub_many" and corpus == "agent-text":
                inputs = inputs + records  # the daemon's records (bench/scrub_ab.py's)
            h = hashlib.sha256()
            t0 = time.perf_counter()
            out = open(os.path.join(dump, f"{corpus}.{config}.{what}.jsonl"), "w", encoding="utf-8") if dump else None
            try:
                for x in inputs:
                    line = json.dumps(canonical(what, tree.call(config, what, x)), ensure_ascii=True) + "\n"
                    h.update(line.encode())
                    if out is not None:
                        out.write(line)
            finally:
                if out is not None:
                    out.close()
            digest = h.hexdigest()
            total.update(f"{corpus} {config} {what} {digest}\n".encode())
            print(f"{corpus:12} {config:29} {what:10} {len(inputs):6d} {digest[:16]}  {time.perf_counter() - t0:6.1f} s",
                  flush=True)
    return total.hexdigest()


# --- the texts the scrub tests feed the scrubber -------------------------------------------------

_PLUGIN = '''
import gzip, json, os, threading
_seen, _order, _depth = set(), [], threading.local()

def _wrap(fn):
    def wrapped(x, *a, **k):
        top = not getattr(_depth, "n", 0)
        if top:
            for t in (x if isinstance(x, list) else [x]):
                if isinstance(t, str) and t not in _seen:
                    _seen.add(t)
                    _order.append(t)
        _depth.n = getattr(_depth, "n", 0) + 1
        try:
            return fn(x, *a, **k)
        finally:
            _depth.n -= 1
    wrapped.__wrapped__ = fn
    return wrapped

def pytest_configure(config):
    from jevlin_hooks.privacy import scrub
    for name in ("scrub", "scrub_many", "find"):
        setattr(scrub, name, _wrap(getattr(scrub, name)))

def pytest_sessionfinish(session, exitstatus):
    with gzip.open(os.environ["SCRUB_CAPTURE"], "wt", encoding="utf-8") as f:
        for t in _order:
            f.write(json.dumps(t) + "\\n")
'''


def capture_tests(tree: str, out: str) -> None:
    """Run ``tree``'s scrub tests with every text given to scrub, scrub_many or find recorded
    (first calls only, not the scrubber's own calls to itself), deduplicated, in order."""
    tree = os.path.abspath(tree)
    tests = ["tests/test_privacy.py"] + sorted(
        os.path.join("tests", x) for x in os.listdir(os.path.join(tree, "tests")) if x.startswith("test_scrub_"))
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "scrub_capture_plugin.py"), "w", encoding="utf-8") as f:
            f.write(_PLUGIN)
        from bench import scrub_eval

        env = dict(os.environ, PYTHONPATH=os.pathsep.join([tree, tmp]), SCRUB_CAPTURE=os.path.abspath(out),
                   JEVLIN_CORPUS=scrub_eval.CORPUS)
        subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "scrub_capture_plugin", *tests],
                       cwd=tree, env=env, check=True)
    with gzip.open(out, "rt", encoding="utf-8") as f:
        print(f"{sum(1 for _ in f)} distinct texts from {len(tests)} test files of {tree} in {out}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", help="a checkout whose scrubber to run (default: this one)")
    ap.add_argument("--test-texts", help="the texts of the scrub tests (made by --capture-tests), gzipped JSON lines")
    ap.add_argument("--capture-tests", metavar="TREE", help="record the texts TREE's scrub tests scrub into --test-texts")
    ap.add_argument("--dump", help="also write every output to DIR, one JSON line each (to diff two trees)")
    args = ap.parse_args()
    if args.capture_tests:
        sys.path.insert(0, ROOT)
        if not args.test_texts:
            raise SystemExit("--capture-tests needs --test-texts FILE")
        capture_tests(args.capture_tests, args.test_texts)
        return
    tree_path = os.path.abspath(args.tree or ROOT)
    sys.path.insert(0, tree_path)
    import jevlin_hooks.privacy.scrub as mod  # the tree's, before this checkout's bench/ goes first

    sys.path.insert(0, ROOT)
    assert os.path.dirname(os.path.dirname(os.path.dirname(mod.__file__))) == tree_path, mod.__file__
    if args.dump:
        os.makedirs(args.dump, exist_ok=True)
    texts = corpora(args.test_texts)
    from bench import scrub_ab

    records = scrub_ab.record_texts(random.Random(3), 1000)
    print(f"tree {tree_path}: " + ", ".join(f"{k} {len(v)}" for k, v in texts.items()) + f", records {len(records)}")
    tree = Tree()
    print(f"all: {run(tree, texts, records, args.dump)}")


if __name__ == "__main__":
    main()
