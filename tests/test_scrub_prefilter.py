"""Hyperscan's keyword gate and prefilter (privacy/engine/prefilter.py) change nothing but speed:
every text scrubs to the same output, with the same findings, as with the Aho-Corasick gate and a
full RE2 pass per selected pattern (what runs where Hyperscan has no wheel)."""

from __future__ import annotations

import json
import os
import pathlib
import random
import subprocess
import sys

import pytest

from jevlin_hooks.privacy import scrub
from jevlin_hooks.privacy.engine import Scrubber, prefilter, text
from jevlin_hooks.privacy.rules import RULES

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, ROOT)

import scrub_eval  # noqa: E402
import scrub_speed  # noqa: E402

from bench.agent_text import generate  # noqa: E402


def _texts() -> list[str]:
    rng = random.Random(11)
    rows = generate.rows(17, 700)
    snippets = [r.text for r in rows]
    texts = [r.text for r in rows]
    texts += [scrub_speed.varied_message(rng, snippets, 8 * 1024) for _ in range(12)]
    texts += [scrub_speed.bench_message(rng, 8 * 1024) for _ in range(4)]
    # the record fields scrub_many joins, and text where lower-casing changes lengths or offsets
    texts += [scrub.FIELD_SEP.join(snippets[i:i + 5]) for i in range(0, 60, 5)]
    texts += ["\u0130stanbul Passwort: Xk9#mz2Lq tel +49 30 1234567", "\u212aey=Zq8#kL2pVw9x tel: 0612345678 \ud800 密码是Ab3$xy9Kq"]
    if os.path.exists(scrub_eval.CORPUS):
        with open(scrub_eval.CORPUS, encoding="utf-8") as f:
            texts += [json.loads(line)["text"] for line in f][:3000]
    return texts


def _key(text: str, s: Scrubber | None = None) -> tuple[str, list[tuple[str, int, int]]]:
    clean, findings = (s or scrub.default()).scrub(text)
    return clean, [(f.rule, f.start, f.end) for f in findings]


def test_same_output_with_and_without_the_prefilter() -> None:
    if not scrub.wait_prefilter():
        assert not prefilter.available(), "Hyperscan is installed but the prefilter did not build"
        pytest.skip("no Hyperscan wheel here: only the fallback runs (the rest of the suite tests it)")
    hs = scrub.default().hyperscan
    assert hs is not None and hs.prefilter.pattern_ids
    texts = _texts()
    with_pf = [_key(t) for t in texts]
    plain = Scrubber(prefilter=False)
    assert not plain.wait_prefilter() and plain.hyperscan is None
    without = [_key(t, plain) for t in texts]
    differ = [t[:120] for t, a, b in zip(texts, with_pf, without, strict=True) if a != b]
    assert not differ, differ[:3]
    assert sum(bool(k[1]) for k in without) > len(texts) // 4  # the texts do hold findings


def test_keyword_positions_match_the_automaton() -> None:
    """The located rules start from the gate's word positions: Hyperscan's byte offsets in UTF-8,
    turned into characters, are the automaton's."""
    if not scrub.wait_prefilter():
        pytest.skip("no Hyperscan")
    plain = Scrubber(prefilter=False)
    for t in ["Mein Passwort ist Zq8#kL2p, Telefon 030 1234567 — 电话 13800138000 📞 call 555 0100",
                 "パスワードは Ab3$xy9Kq です。 телефон: +7 495 123-45-67 🎉 Schlüssel: Qw9#er7Ty",
                 "\ud800 пароль: Zq8#kL2p \udfff 电话 13800138000 Passwort Qw9#er7Ty"]:
        ours = scrub.default().word_hits(t)  # Hyperscan's, in UTF-8 bytes, turned into characters
        theirs = plain.word_hits(t)  # the automaton's (it refuses lone surrogates: they become \x1a)
        assert ours == theirs and ours


def test_whitespace_class_is_re2s() -> None:
    """Hyperscan's \\s also takes \\v: inside [^...] that would lose a match, so it is spelled out."""
    assert prefilter.to_hyperscan(r"[^\s'\"]{3,}\s") == "[^\\t\\n\\f\\r '\\\"]{3,}[\\t\\n\\f\\r ]"
    assert prefilter.to_hyperscan(r"a\Sb") is None
    assert prefilter.to_hyperscan(r"[\]\s]x") == "[\\]\\t\\n\\f\\r ]x"


def test_one_byte_view_is_the_error_handlers() -> None:
    for t in ["", "plain ascii?", "a?b\ud800c?€?", "??", "\ud800", "é?", "密码是?Ab3", "x" * 100 + "—?—", *_texts()[:300]]:
        assert text.one_byte_view(t) == t.encode("ascii", text.ONE_BYTE), t[:60]


_WITHOUT_HYPERSCAN = """
import json, sys
sys.modules["hyperscan"] = None  # what a platform without its wheel sees: import hyperscan fails
from jevlin_hooks.privacy import scrub
from jevlin_hooks.privacy.engine import prefilter
assert not prefilter.available() and prefilter.build(["password"], [], [(0, "x")]) is None
assert not scrub.wait_prefilter() and scrub.default().hyperscan is None
texts = json.load(sys.stdin)
json.dump([[c, [[f.rule, f.start, f.end] for f in fs]] for c, fs in map(scrub.scrub, texts)], sys.stdout)
"""


def test_without_hyperscan_nothing_is_built_and_the_output_is_the_same() -> None:
    """Where the wheel is missing (Linux on ARM) the module does not import: build() gives None,
    the scrubber keeps its own gate, and every text scrubs as with Hyperscan."""
    texts = _texts()[::7]
    p = subprocess.run([sys.executable, "-c", _WITHOUT_HYPERSCAN], input=json.dumps(texts), capture_output=True,
                       text=True, check=True)
    scrub.wait_prefilter()
    assert json.loads(p.stdout) == [[c, [list(f) for f in fs]] for c, fs in map(_key, texts)]


def test_a_refused_scan_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    s = Scrubber()
    if not s.wait_prefilter():
        pytest.skip("no Hyperscan")
    t = "export GITHUB_TOKEN=ghp_R8x2Kq9mW4nP7sT1vY6zB3cD5fG8hJ0kL2mN\nPasswort: Xk9#mz2Lq, tel +49 30 1234567\n"
    expected = _key(t, s)

    def refuse(*_a: object) -> None:
        raise prefilter.Error("scratch in use")  # what Hyperscan raises when a scan cannot run

    assert s.hyperscan is not None
    monkeypatch.setattr(s.hyperscan.prefilter, "keywords", refuse)
    assert _key(t, s) == expected and expected[1]


def _cache_in(monkeypatch: pytest.MonkeyPatch, tmp_path: pathlib.Path) -> pathlib.Path:
    """The cache directory under tmp_path, where platformdirs puts it on Linux ($XDG_CACHE_HOME)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert prefilter.cache_dir() == str(tmp_path / "jevlin-hooks")
    return tmp_path / "jevlin-hooks"


def _stamp(path: pathlib.Path) -> tuple[int, int]:
    st = path.stat()
    return st.st_ino, st.st_mtime_ns


@pytest.mark.skipif(not prefilter.available(), reason="no Hyperscan wheel here")
def test_the_cached_databases_answer_as_the_compiled_ones(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """Built once, then loaded from the cache directory; a corrupted, foreign or group-writable
    file is never loaded (Hyperscan itself would load a corrupted one without a word). A build
    writes the file anew (a new inode), a load leaves it as it is."""
    cache = _cache_in(monkeypatch, tmp_path)
    words = ["password", "token", "ghp_", "telefon"]
    patterns = [(0, r"ghp_[A-Za-z0-9]{36}"), (1, r"AKIA[0-9A-Z]{16}"), (2, r"xox[bp]-[0-9A-Za-z-]{20,}")]
    fresh = prefilter.build(words, [3], patterns)
    assert fresh is not None
    files = os.listdir(cache)
    assert len(files) == 1 and files[0].startswith("prefilter-")
    path = cache / files[0]
    assert path.stat().st_mode & 0o777 == 0o600
    built = _stamp(path)
    loaded = prefilter.build(words, [3], patterns)
    assert loaded is not None and _stamp(path) == built, "the second build comes from the cache"
    text = ("my telefon is here; token ghp_" + "a" * 36 + " and AKIA" + "B" * 16 + " telefon").encode()
    assert loaded.keywords(text.lower()) == fresh.keywords(text.lower())
    assert loaded.possible(text) == fresh.possible(text) == {0, 1}
    assert loaded.pattern_ids == fresh.pattern_ids
    # one byte of the compiled bytecode flipped: the digest no longer matches, so it is built again
    data = bytearray(path.read_bytes())
    data[-20] ^= 0xFF
    path.write_bytes(bytes(data))
    bad = _stamp(path)
    again = prefilter.build(words, [3], patterns)
    assert again is not None and again.possible(text) == {0, 1}
    assert _stamp(path) != bad and path.read_bytes() != bytes(data), "the bad file was replaced"
    # writable by others: not trusted, built again
    path.chmod(0o666)
    open_to_all = _stamp(path)
    assert prefilter.build(words, [3], patterns) is not None
    assert _stamp(path) != open_to_all and path.stat().st_mode & 0o777 == 0o600
    # another set of rules is another file, and the old one goes
    prefilter.build(words, [3], patterns[:2])
    assert len(os.listdir(cache)) == 1 and not path.exists()


@pytest.mark.skipif(not prefilter.available(), reason="no Hyperscan wheel here")
def test_an_unwritable_cache_costs_a_compile_nothing_more(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache directory would go")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    assert prefilter.cache_dir().startswith(str(blocker))
    pf = prefilter.build(["token"], [], [(0, r"ghp_[A-Za-z0-9]{36}")])
    assert pf is not None and pf.possible(b"ghp_" + b"x" * 36) == {0}


@pytest.mark.skipif(not prefilter.available(), reason="no Hyperscan wheel here")
def test_the_long_texts_database_leaves_out_what_it_is_told(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """Patterns of long_skip are not in the long texts' database (the scrubber finds them there by
    their match ends), and it is cached with the rest; without long_skip both answers are one."""
    cache = _cache_in(monkeypatch, tmp_path)
    words = ["token", "ghp_"]
    patterns = [(0, r"ghp_[A-Za-z0-9]{36}"), (1, r"AKIA[0-9A-Z]{16}"), (2, r"\b\d{4}[ -]?\d{4}[ -]?\d{4}[ -]?\d{4}\b")]
    text = ("token ghp_" + "a" * 36 + " AKIA" + "B" * 16 + " card 4111 1111 1111 1111").encode()
    for attempt in ("compiled", "loaded"):
        pf = prefilter.build(words, [], patterns, long_skip=[2, 7])
        assert pf is not None, attempt
        assert pf.possible(text) == {0, 1, 2} and pf.pattern_ids == {0, 1, 2}
        assert pf.possible(text, long=True) == {0, 1} and pf.long_ids == {0, 1}
    assert len(os.listdir(cache)) == 1
    plain = prefilter.build(words, [], patterns)
    assert plain is not None and plain.long_ids == plain.pattern_ids and plain.possible(text, long=True) == {0, 1, 2}
    # every pattern skipped: the long texts' database answers for none
    none_left = prefilter.build(words, [], patterns[2:], long_skip=[2])
    assert none_left is not None and none_left.long_ids == frozenset() and none_left.possible(text, long=True) == set()
    again = prefilter.build(words, [], patterns[2:], long_skip=[2])
    assert again is not None and again.long_ids == frozenset() and again.possible(text) == {2}


@pytest.mark.skipif(not prefilter.available(), reason="no Hyperscan wheel here")
def test_the_ends_and_anchor_databases_are_cached_and_checked(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """The ends and anchor databases are cached as the prefilter is: loaded while the file checks
    out, built again when it is corrupted, open to others or holds another kind's databases; a
    scrubber's two ends files keep each other, a third set of rules evicts the older one."""
    cache = _cache_in(monkeypatch, tmp_path)
    ends_in = [(4, r"\b\d{4}[ -]?\d{4}[ -]?\d{4}[ -]?\d{4}\b"), (9, r"AKIA[0-9A-Z]{16}")]
    words_in = [(0, "password"), (3, "net use")]
    text = b"card 4111 1111 1111 1111, AKIA" + b"B" * 16 + b"; NET USE x password"
    fresh_ends, fresh_anchors = prefilter.build_ends(ends_in), prefilter.build_anchors(words_in)
    assert fresh_ends is not None and fresh_anchors is not None
    want_ends, want_anchors = fresh_ends.ends(text), fresh_anchors.scan(text)
    assert want_ends == {4: [24], 9: [46]} and want_anchors == [(3, 48, 55), (0, 58, 66)]
    (ends_file,) = cache.glob("ends-*.hsdb")
    (anchors_file,) = cache.glob("anchors-*.hsdb")
    assert ends_file.stat().st_mode & 0o777 == 0o600 == anchors_file.stat().st_mode & 0o777
    stamps = _stamp(ends_file), _stamp(anchors_file)
    loaded_ends, loaded_anchors = prefilter.build_ends(ends_in), prefilter.build_anchors(words_in)
    assert loaded_ends is not None and loaded_anchors is not None
    assert (_stamp(ends_file), _stamp(anchors_file)) == stamps, "the second build comes from the cache"
    assert loaded_ends.ends(text) == want_ends and loaded_anchors.scan(text) == want_anchors
    # a flipped byte, a file writable by others, a prefilter file under an ends file's name: built again
    data = bytearray(ends_file.read_bytes())
    data[-20] ^= 0xFF
    ends_file.write_bytes(bytes(data))
    bad = _stamp(ends_file)
    again = prefilter.build_ends(ends_in)
    assert again is not None and again.ends(text) == want_ends and _stamp(ends_file) != bad
    anchors_file.chmod(0o666)
    open_to_all = _stamp(anchors_file)
    again_anchors = prefilter.build_anchors(words_in)
    assert again_anchors is not None and again_anchors.scan(text) == want_anchors
    assert _stamp(anchors_file) != open_to_all and anchors_file.stat().st_mode & 0o777 == 0o600
    assert prefilter.build(["password"], [], [(0, r"AKIA[0-9A-Z]{16}")]) is not None
    (pf_file,) = cache.glob("prefilter-*.hsdb")
    ends_file.write_bytes(pf_file.read_bytes())
    swapped = _stamp(ends_file)
    again = prefilter.build_ends(ends_in)
    assert again is not None and again.ends(text) == want_ends and _stamp(ends_file) != swapped
    # a scrubber's second ends database keeps the first; a third evicts the oldest of the others
    assert prefilter.build_ends(ends_in[1:]) is not None
    assert len(list(cache.glob("ends-*.hsdb"))) == 2 and ends_file.exists()
    os.utime(ends_file, ns=(1, 1))
    assert prefilter.build_ends(ends_in[:1]) is not None
    assert len(list(cache.glob("ends-*.hsdb"))) == 2 and not ends_file.exists()


_SECOND_PROCESS = """
import json, sys
from jevlin_hooks.privacy.engine import Scrubber, prefilter
compiled = []
real = prefilter._compile
prefilter._compile = lambda *a: compiled.append(1) or real(*a)  # every database compiled goes through it
s = Scrubber()
assert s.wait_prefilter(60) and s.hyperscan is not None
assert s.hyperscan.ends[0] is not None and s.hyperscan.ends[1] is not None and s.hyperscan.anchors is not None
texts = json.load(sys.stdin)
out = [[c, [[f.rule, f.start, f.end] for f in fs]] for c, fs in map(s.scrub, texts)]
json.dump({"compiled": len(compiled), "out": out}, sys.stdout)
"""


@pytest.mark.skipif(not prefilter.available(), reason="no Hyperscan wheel here")
def test_a_second_process_loads_every_database_from_the_cache(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """The first process that scrubs compiles the keyword, pattern, ends and anchor databases and
    caches them; a second process compiles none, leaves the files as they are, and scrubs every
    text as the first did and as a scrubber without Hyperscan does."""
    cache = _cache_in(monkeypatch, tmp_path)
    texts = _texts()[::7]

    def one() -> dict:
        p = subprocess.run([sys.executable, "-c", _SECOND_PROCESS], input=json.dumps(texts), capture_output=True,
                           text=True, check=True, env=dict(os.environ, XDG_CACHE_HOME=str(tmp_path)))
        return json.loads(p.stdout)

    first = one()
    assert first["compiled"] >= 4
    kinds = sorted(name.split("-")[0] for name in os.listdir(cache))
    assert kinds == ["anchors", "ends", "ends", "prefilter"]
    stamps = {p.name: _stamp(p) for p in cache.iterdir()}
    second = one()
    assert second["compiled"] == 0, "every database came from the cache"
    assert {p.name: _stamp(p) for p in cache.iterdir()} == stamps
    plain = Scrubber(prefilter=False)
    assert second["out"] == first["out"] == [[c, [list(f) for f in fs]] for c, fs in (_key(t, plain) for t in texts)]
    assert sum(bool(fs) for _, fs in second["out"]) > len(texts) // 4  # the texts do hold findings


def test_long_texts_skip_the_prefilter_only_for_rules_found_by_their_ends() -> None:
    s = scrub.default()
    s.wait_prefilter()
    if s.hyperscan is None:
        pytest.skip("no Hyperscan here")
    pf = s.hyperscan.prefilter
    skipped = {s.rules[i].name for i, cs in enumerate(s.compiled) for c in cs
               if c.pid in pf.pattern_ids and c.pid not in pf.long_ids}
    assert skipped == {"payment-card", "phone-number", "iban"} == {r.name for r in RULES if r.longest_in_long_texts and r.prefilter}
