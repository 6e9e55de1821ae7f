"""Every native dependency that a platform may lack has a fallback that gives the same output.

Where a wheel is missing (docs/platforms.md), pyproject.toml does not ask for the package, and
the package's absence must change nothing a user can see but speed: the scrubber returns the same
clean text and findings with RE2, Aho-Corasick and Hyperscan each made unimportable, and with all
three at once (the pure-Python engine, automaton and gate); request bodies gzip to the same
records without ISA-L; and without cryptography a record that cannot be made safe stays queued,
with the reason shown, rather than being dropped or sent. The modules are made unimportable in
real processes, by tests/without/sitecustomize.py (JEVLIN_TEST_WITHOUT), as on such a platform.

The pure-Python regex engine and automaton are also compared with RE2 and ahocorasick-rs directly,
on random patterns, words and texts.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jevlin_hooks.privacy import linear
from jevlin_hooks.privacy.automaton import Automaton

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WITHOUT = os.path.join(ROOT, "tests", "without")


def without(*modules: str) -> dict[str, str]:
    """The environment of a process in which ``modules`` cannot be imported."""
    path = os.pathsep.join([WITHOUT, ROOT] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
    return {**os.environ, "JEVLIN_TEST_WITHOUT": ",".join(modules), "PYTHONPATH": path}


def run_py(code: str, *modules: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], env=without(*modules), capture_output=True, text=True,
                          timeout=600, cwd=ROOT)


def digest(*modules: str) -> dict:
    p = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "fallback_digest.py")], env=without(*modules),
                       capture_output=True, text=True, timeout=1200, cwd=ROOT)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout)


@pytest.fixture(scope="module")
def with_everything() -> dict:
    got = digest()
    assert got["regex"] == "re2" and got["automaton"] == "ahocorasick-rs", "the suite runs with the native modules"
    return got


# --- the scrubber, each native module missing in turn ------------------------------------------

@pytest.mark.parametrize("missing, engines", [
    (("re2",), {"regex": "linear"}),
    (("ahocorasick_rs",), {"automaton": "python"}),
    (("hyperscan",), {"hyperscan": False, "prefilter_ready": False}),
    (("re2", "ahocorasick_rs", "hyperscan"), {"regex": "linear", "automaton": "python", "hyperscan": False}),
], ids=["no-re2", "no-ahocorasick", "no-hyperscan", "none-of-them"])
def test_the_same_redactions_without_a_native_module(with_everything: dict, missing: tuple[str, ...],
                                                     engines: dict) -> None:
    got = digest(*missing)
    for k, v in engines.items():
        assert got[k] == v, f"{k}: {got[k]!r} ran, not the fallback {v!r}"
    assert got["digests"] == with_everything["digests"]


def test_doctor_says_which_engines_run(home: str) -> None:
    lines = {}
    for missing in ((), ("re2", "hyperscan")):
        p = subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", "doctor"], env={**without(*missing), "JEVLIN_HOME": home},
                           capture_output=True, text=True, timeout=120, cwd=ROOT)
        lines[missing] = [line for line in p.stdout.splitlines() if "scrubber" in line]
    assert lines[()] == ["ok  scrubber engines: regex RE2, keywords ahocorasick-rs, prefilter Hyperscan"]
    assert lines[("re2", "hyperscan")] == [
        "ok  scrubber engines: regex pure-Python linear-time (no google-re2), keywords ahocorasick-rs, no prefilter "
        "(no hyperscan): the same redactions, slower (docs/platforms.md)"]


def test_the_blocker_blocks_what_it_names_and_nothing_else() -> None:
    p = run_py("import hyperscan, isal\ntry:\n    import re2\nexcept ImportError as e:\n    print(e)", "re2")
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "No module named 're2' (blocked by JEVLIN_TEST_WITHOUT)"


# --- gzip without ISA-L ------------------------------------------------------------------------

def test_request_bodies_gzip_to_the_same_records_without_isal() -> None:
    records = json.dumps({"records": [{"record_id": str(i), "history": "x" * i} for i in range(300)]}).encode()
    code = ("import sys; from jevlin_hooks.ship.sinks import http; "
            "sys.stdout.buffer.write(http.compress(sys.stdin.buffer.read()))")
    bodies = {}
    for missing in ((), ("isal",)):
        p = subprocess.run([sys.executable, "-c", code], env=without(*missing), input=records, capture_output=True,
                           timeout=120, cwd=ROOT)
        assert p.returncode == 0, p.stderr
        bodies[missing] = p.stdout
    assert bodies[()] != bodies[("isal",)], "ISA-L and zlib write different bytes: the fallback did run"
    assert all(gzip.decompress(b) == records for b in bodies.values())


# --- no cryptography: a record that cannot be made safe stays queued, and says why --------------

def test_without_cryptography_an_unsafe_record_stays_queued_and_the_rest_is_sent(home: str) -> None:
    from fault_server import FaultServer
    from test_daemon import write_config
    from test_failclosed_daemon_records import GH, secret_record

    from jevlin_hooks.base import spool
    from jevlin_hooks.ship import quarantine

    with FaultServer() as srv:
        write_config(home, "jevlin", srv.url)
        bad = secret_record(0)
        bad["window"] = "zero"  # cannot be made safe: sealed into quarantine where cryptography is
        spool.enqueue(home, [bad, secret_record(1)])
        env = {**without("cryptography"), "JEVLIN_HOME": home}
        p = subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", "daemon", "run", "--once"], env=env,
                           capture_output=True, text=True, timeout=120, cwd=ROOT)
        assert len(srv.records) == 1, p.stderr  # the other record is not held up by it
        assert GH not in json.dumps(srv.records)
    assert spool.count(home, "new") == 1 and spool.count(home, "quarantine") == 0
    status = subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", "status"], env=env, capture_output=True,
                            text=True, timeout=120, cwd=ROOT)
    held = [line for line in status.stdout.splitlines() if line.startswith("problem")]
    assert len(held) == 1 and quarantine.NO_CRYPTOGRAPHY in held[0], status.stdout


# --- the pure-Python engine and automaton against the native ones ------------------------------

_ATOMS = ["a", "b", "k", "x", ".", "[ab]", "[^a]", "[a-c]", "\\w", "\\W", "\\s", "\\S", "\\d", "\\b", "\\B", "^",
          "$", "\\n", "é", "Ü", "(?i:k)", "(?i:é)", "[^\\s\"']", "\\.", "-", "\\p{L}", "\\pN", "\\P{Lu}",
          "[\\p{Lu}x]", "[^\\p{L}\\p{N}]", "(?i:\\p{Lu})"]
_QUANT = ["*", "+", "?", "{2}", "{1,3}", "{0,2}", "{2,}", "*?", "+?", "??", "{1,2}?"]


def _patterns() -> st.SearchStrategy[str]:
    def grow(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        return st.one_of(
            st.lists(inner, min_size=2, max_size=3).map("".join),
            st.lists(inner, min_size=2, max_size=3).map(lambda xs: "(" + "|".join(xs) + ")"),
            st.lists(inner, min_size=1, max_size=3).map(lambda xs: "(?:" + "|".join(xs) + ")"),
            st.tuples(inner, st.sampled_from(_QUANT)).map(lambda t: "(?:" + t[0] + ")" + t[1]),
        )
    body = st.recursive(st.sampled_from(_ATOMS), grow, max_leaves=8)
    return st.tuples(st.sampled_from(["", "(?i)", "(?m)", "(?s)", "(?im)"]), body).map("".join)


_TEXT = st.text(alphabet="abkx \n_1.-é\u212aÜ\"'", max_size=24).map(lambda t: t.encode())


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pattern=_patterns(), data=_TEXT, cut=st.tuples(st.integers(0, 30), st.integers(0, 30)))
def test_the_linear_engine_matches_like_re2(pattern: str, data: bytes, cut: tuple[int, int]) -> None:
    re2 = pytest.importorskip("re2")
    from re2 import _re2

    rx = _re2.RE2(pattern.encode(), re2.Options())
    if not rx.ok():
        with pytest.raises(linear.Error):
            linear.compile(pattern)
        return
    mine = linear.compile(pattern)
    assert mine.NumberOfCapturingGroups() == rx.NumberOfCapturingGroups()
    start, end = sorted(min(c, len(data)) for c in cut)
    for anchor, theirs in ((linear.UNANCHORED, _re2.RE2.Anchor.UNANCHORED), (linear.ANCHOR_BOTH, _re2.RE2.Anchor.ANCHOR_BOTH)):
        assert mine.Match(anchor, data, start, end) == rx.Match(theirs, data, start, end), (pattern, data, start, end)


@settings(max_examples=300, deadline=None)
@given(words=st.lists(st.text(alphabet="abcé😀", min_size=1, max_size=5), min_size=1, max_size=12),
       text=st.text(alphabet="abcé😀q ", max_size=60), overlapping=st.booleans())
def test_the_python_automaton_finds_what_ahocorasick_rs_finds(words: list[str], text: str, overlapping: bool) -> None:
    ac = pytest.importorskip("ahocorasick_rs")
    theirs = ac.AhoCorasick(words, matchkind=ac.MATCHKIND_STANDARD)
    assert Automaton(words).find_matches_as_indexes(text, overlapping) == theirs.find_matches_as_indexes(text, overlapping)


def test_the_python_automaton_refuses_what_ahocorasick_rs_refuses() -> None:
    with pytest.raises(ValueError):
        Automaton(["ok", ""])
    with pytest.raises(UnicodeEncodeError):
        Automaton(["ab"]).find_matches_as_indexes("a\ud800b")


def test_the_linear_engine_keeps_re2s_meaning_where_python_re_differs() -> None:
    cases = [  # (pattern, text, start, end, expected spans)
        (r"foo$", b"foo\n", 0, 4, [(-1, -1)]),  # $ is the end of the text only
        (r"\bfoo\b", b"foox", 0, 3, [(-1, -1)]),  # \b sees the byte after `end`
        (r"\s", b"\x0b", 0, 1, [(-1, -1)]),  # \s has no \v
        (r"(?i)k", "\u212a".encode(), 0, 3, [(0, 3)]),  # Unicode case folding
        (r"(?i)\W", "\u212a".encode(), 0, 3, [(-1, -1)]),
        (r"[^a]", b"\xff", 0, 1, [(-1, -1)]),  # an invalid byte is no character
        (r"(|a)+", b"aa", 0, 2, [(0, 0), (0, 0)]),  # RE2's choice among empty iterations
        (r"(a|)+", b"aa", 0, 2, [(0, 2), (1, 2)]),
    ]
    for pattern, data, start, end, want in cases:
        assert linear.compile(pattern).Match(linear.UNANCHORED, data, start, end) == want, pattern
