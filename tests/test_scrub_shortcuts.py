"""The scrubber's speed shortcuts give what the plain way gives (privacy/engine, privacy/heuristics.py):
a value read off a group-less match is RE2's own group, the entropy's counting shortcut is bit for
bit the plain formula, and the decoded views' windows that skip checking matches away from their
edits cut what checking every match cuts."""

from __future__ import annotations

import math
import random
import string
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from test_scrub_prefilter import _texts

from jevlin_hooks.privacy import heuristics as h
from jevlin_hooks.privacy import scrub
from jevlin_hooks.privacy.checks.values import ASSIGN_NAME, QUOTED_NAME, name_end
from jevlin_hooks.privacy.engine import Scrubber, joints, views, whole
from jevlin_hooks.privacy.engine.scan import next_email
from jevlin_hooks.privacy.engine.text import ASCII_OFFSETS, Groups, one_byte_view
from jevlin_hooks.privacy.public import public_value
from jevlin_hooks.privacy.regex import ANCHOR_BOTH, UNANCHORED


@pytest.fixture(scope="module")
def texts() -> list[str]:
    return _texts()


def _matches(match: Any, view: bytes) -> Iterator[tuple[int, int]]:
    """Every match of a compiled pattern's ``Match`` in ``view``, as the scan loop walks them."""
    at = 0
    while at <= len(view):
        s0, e0 = match(UNANCHORED, view, at, len(view))[0]
        if s0 < 0:
            return
        yield s0, e0
        at = e0 if e0 > at else at + 1


def test_values_read_off_the_match_are_re2s_groups(texts: list[str]) -> None:
    shaped = [c for cs in scrub.default().compiled for c in cs if c.value_span is not None]
    assert shaped, "no rule reads its value off the match"
    checked = 0
    for text in texts:
        view = one_byte_view(text)
        for c in shaped:
            assert c.value_span is not None
            for s0, e0 in _matches(c.scan, view):
                span = c.value_span(view, s0, e0)
                groups = c.rx.Match(UNANCHORED, view, s0, len(view))
                assert groups[0] == (s0, e0)
                value = next(g for i, g in enumerate(groups) if i in c.groups and g[1] > g[0])
                if view[value[0]] == ord("(") and value[1] - value[0] > 2:  # (X): the brackets are trimmed off
                    value = (value[0] + 1, value[1] - (view[value[1] - 1] == ord(")")))
                assert span == value, (c.rule.name, view[s0:e0])
                checked += 1
    assert checked > 100


def _plain_entropy(s: str) -> float:
    n = len(s)
    if not n:
        return 0.0
    return -sum([c / n * math.log2(c / n) for c in Counter(s).values()])


def test_entropy_is_the_plain_formula_bit_for_bit() -> None:
    rng = random.Random(5)
    alphabets = [string.ascii_letters + string.digits + "+/=", "ab", string.hexdigits.lower(), string.printable, "é漢🎉a"]
    for _ in range(20000):
        s = "".join(rng.choice(rng.choice(alphabets)) for _ in range(rng.randint(0, 400)))
        assert h.entropy(s) == _plain_entropy(s), s


def test_views_checked_only_near_their_edits_find_what_checking_everything_finds(texts: list[str]) -> None:
    """A decoded view's windows are searched checking only the matches that hold or touch an
    edit (views.py): what that finds next to an edit is what checking every match finds there."""
    s = scrub.default()
    decoded = [t for t in texts if views.layers(t, one_byte_view(t), set())[0]]
    assert len(decoded) > 50
    found = 0
    for t in decoded:
        for lay in views.layers(t, one_byte_view(t), set())[0]:
            for w0, w1, marks in views.windows(lay):
                window = lay.text[w0:w1]

                def near(fs: list[scrub.Finding], marks: list[int] = marks) -> set[scrub.Finding]:
                    return {f for f in fs if any(f.start <= m <= f.end for m in marks)}

                shortcut = near(s.find_across(window, set(), marks))
                assert shortcut == near(s.find(window, decoded=False)), window  # each match checked
                found += bool(shortcut)
    assert found > 20  # the views do find something


def test_email_search_around_each_at_sign_finds_what_re2_finds(texts: list[str]) -> None:
    (c,) = [c for cs in scrub.default().compiled for c in cs if c.rule.name == "email"]
    extra = ["a@b.co", "x_y@host.example.org_z", "@@a@@b.cd@", "mail me: first.last+tag@sub.example.com.",
             "git@github.com:org/repo.git and ops@corp.io", "a" * 500 + "@" + "b" * 500 + ".com",
             "to: " + ", ".join(f"user{i}@host{i}.example.com" for i in range(300)),  # dense: RE2 takes over
             ("x" * 3000 + "@") * 40 + " a@b.co"]
    found = 0
    for text in texts + extra:
        view = one_byte_view(text)
        plain: list[tuple[int, int]] = []
        seek: list[tuple[int, int]] = []
        for out, step in ((plain, lambda at, v=view: c.rx.Match(UNANCHORED, v, at, len(v))),
                          (seek, lambda at, v=view, seen=[0]: next_email(c.rx.Match, v, at, seen))):
            at = 0
            while at <= len(view):
                s0, e0 = step(at)[0]
                if s0 < 0:
                    break
                out.append((s0, e0))
                at = e0 if e0 > at else at + 1
        assert seek == plain, text[:200]
        found += len(plain)
    assert found > 50


def test_fake_value_test_on_ascii_is_the_regex_test() -> None:
    def plain(v: str) -> bool:
        v = v[:h.CHECK_LIMIT]
        return h.FAKE.search(v) is not None or len(v) >= 16 and h.LOWER_RUN.search(v) is not None

    rng = random.Random(3)
    hits = 0
    for _ in range(50000):
        alpha = rng.choice(["xX*.#$<{EXAMPLE", "ab0", string.printable, "x", "0", "9.", "$", "٣a"])
        v = "".join(rng.choice(alpha) for _ in range(rng.randint(0, 60)))
        if rng.random() < 0.2:
            v = rng.choice("xX*.#0123456789az٣") * rng.randint(6, 18) + v
        assert h.fake_value.__wrapped__(v) == plain(v), v
        hits += plain(v)
    assert hits > 5000
    long = "A" * 5000 + "xxxxxxxx"  # past CHECK_LIMIT: not looked at
    assert h.fake_value.__wrapped__(long) == plain(long) is False


def _placeholder_before(value: str, code: bool = True) -> bool:
    """heuristics.placeholder_uncached as it was, with sets of the value's characters (and the
    public values of privacy/public.py since, and a colon at the end a label's only: h.LABEL)."""
    v = value[:h.CHECK_LIMIT].strip().strip("\"'`")
    if len(v) < 4 or h.ARTIFACT.match(v) or h.LABEL.fullmatch(v) or h.has_run(v, 10):
        return True
    raw = value[:h.CHECK_LIMIT]
    if code and (" = " in raw or " := " in raw) or h.CRED_NAME.match(v):
        return True
    low = v.lower()
    if " " in v and value.lstrip().startswith("`"):
        return True
    if v.startswith("$") and h.DOLLAR_REFERENCE.match(v):  # issue 28: $h@d0w&38 is a password, $DB_PASS a reference
        return True
    if low in h.STOPWORDS or low.startswith(("[", "{", "(", "{{", "<", "#{", "[redacted",
                                                  "env:", "env.", "process.env", "os.environ", "secrets.", "vault:",
                                                  "ref:", "op://", "file:")):
        return True
    if h.sigil_reference(v, code):
        return True
    if len(set(low) - set("*x.-_ ")) == 0 or len(set(low)) == 1:
        return True
    if code and h.IDENT_PATH.match(v) and not h.random_dotted(v) or h.SNAKE.match(v):
        return True
    if public_value(v):  # issue 28: masked values, durations, paths, ARNs, public keys
        return True
    return v.startswith("//") or "::" in v


def test_placeholder_test_is_what_it_was(texts: list[str]) -> None:
    rng = random.Random(9)
    values = ["".join(rng.choice(rng.choice(["*x.-_ ", "*x.-_ a", "aaab", "a", "İx", "ab.c_d9", string.printable]))
                      for _ in range(rng.randint(1, 30))) for _ in range(30000)]
    values += [w for t in texts[:800] for w in t.split()]
    hits = 0
    for v in values:
        for code in (True, False):
            assert h.placeholder_uncached(v, code) == _placeholder_before(v, code), v
            hits += _placeholder_before(v, code)
    assert 1000 < hits < 2 * len(values) - 1000


def test_rules_started_near_hyperscans_match_ends_find_what_re2_alone_finds(texts: list[str]) -> None:
    s = scrub.default()
    hs = s.hyperscan if s.wait_prefilter() else None
    if hs is None or hs.ends[0] is None or hs.ends[1] is None:
        pytest.skip("no Hyperscan here: RE2 walks the whole text for these rules")
    rng = random.Random(4)
    octet = lambda: str(rng.choice([0, 1, 9, 10, 99, 100, 199, 200, 249, 250, 255, 256, 300, 999]))  # noqa: E731
    crafted = []
    for _ in range(300):
        ip = ".".join(octet() for _ in range(rng.randint(3, 6)))
        tok = "".join(rng.choice(string.ascii_lowercase + string.digits) for _ in range(rng.randint(5, 7))) + "." + \
            "".join(rng.choice(string.ascii_lowercase + string.digits) for _ in range(rng.randint(15, 17)))
        crafted.append(rng.choice(["", "x", "v", " ", "_", "token ", "version "]) + rng.choice([ip, tok, ip + tok, tok + ip])
                       + rng.choice(["", "x", ".", " ", "5", "\n"]) + "token " + tok
                       + f" at {rng.randint(1, 223)}.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}")
    # the rules started near their ends in long texts only: cards, IBANs, phone numbers, YAML blocks
    pii = ["4111 1111 1111 1111", "4111-1111-1111-1111", "4111111111111111", "DE89 3704 0044 0532 0130 00",
           "GB82WEST12345698765432", "+49 30 1234567", "(415) 555-0132", "415-555-0132", "password: |\n  Zq8kL2pVw9x\n",
           "v1.2.3.4111111111111111", "tel:+1-415-555-0132/x"]
    crafted += [" ".join(rng.choice(pii + ["x", "\n", "-", "."]) for _ in range(rng.randint(1, 30))) for _ in range(100)]
    crafted.append(" ".join(crafted))
    assert len(crafted[-1]) >= s.windows_from
    crafted += ["1." * 5000 + " 10.1.2.3", "10.0.0." + "1.2.3.4 " * 300]  # too many ends: RE2 walks
    assert hs.ends[0].ends(one_byte_view(crafted[-2])) is None
    samples = texts + crafted
    with_ends = [s.find(t) for t in samples]
    assert sum(f.rule == "ipv4" for fs in with_ends for f in fs) > 300
    no_ends = Scrubber(ends=False)
    assert no_ends.wait_prefilter()
    assert [no_ends.find(t) for t in samples] == with_ends


# Edges of the name and value reading: a name at the text's start, after `-` or `.`, ending in `.`
# before `.=`, a second `=` inside the value, a hex run with a value character before it, typed
# declarations, quoted keys, a key next to a vendor-key name.
_REJECT_EDGES = [
    "client_id=8152d031fcb159b74d2b5e8e", "-client_id=8152d031fcb159b74d2b5e8e", ".cache_key = 6e786fa78ac9f73bc311ee4a3c8f0322",
    "x foo_key.=Zq8kL2pVw9xXk9mz2LqAbcdEFGH1234", "x cache_key.=6e786fa78ac9f73bc311ee4a3c8f0322",
    'sha = "' + "ab" * 32 + '"', "sha: =" + "ab" * 32, "sha: Z=" + "ab" * 32, "etag:" + "0" * 40, "k==" + "f" * 64,
    "id: 123e4567-e89b-12d3-a456-426614174000", "token=123e4567-e89b-12d3-a456-426614174000",
    "trace: 00-" + "a" * 32 + "-" + "b" * 16 + "-01", "String api_key = \"Zq8kL2pVw9xXk9mz2LqAbcdEFGH1234\"",
    "var session_id string = 6e786fa78ac9f73bc311ee4a3c8f0322", '"client_secret": "Zq8kL2pVw9xXk9mz2LqAbcdEFGH1234"',
    "openai: sk-" + "Zq8kL2pVw9xXk9mz2Lq" * 3, "db-pwdy.corp.example.org:6379", "public_key=Zq8kL2pVw9xXk9mz2Lq1234567890ab",
    "monkey_key=" + "9" * 40, "user_id = 411227847", "self.api_key = config.api_key", "csrf_token: 'Zq8kL2pVw9xXk9mz2LqAbcd'",
]


def test_rejections_told_without_groups_are_the_checks(texts: list[str]) -> None:
    """A check's `rejects` reads a candidate's key name (and quoted-high-entropy's value) off the
    group-less match: the name is RE2's group 1 wherever the reading does not decline (a name
    ending in `.`), and a candidate it turns down is one the rule's check turns down."""
    rejecting = {c.rule.name: c for cs in scrub.default().compiled for c in cs if c.rejects is not None}
    assert set(rejecting) == {"credential-assignment", "generic-high-entropy", "quoted-high-entropy"}
    rng = random.Random(5)
    crafted = _REJECT_EDGES + ["\n".join(rng.sample(_REJECT_EDGES, 6)) for _ in range(200)]
    seen: Counter[tuple[str, str]] = Counter()
    for name, c in rejecting.items():
        reject, accept = c.rejects, c.accept
        assert reject is not None and accept is not None and c.scan is not None and c.rule.pattern.isascii()
        chars = QUOTED_NAME if name == "quoted-high-entropy" else ASSIGN_NAME
        for text in crafted + texts:
            view, lower = one_byte_view(text), text.lower()
            for s0, e0 in _matches(c.scan, view):
                groups = c.rx.Match(ANCHOR_BOTH, view, s0, e0)
                ns, ne = name_end(view, s0, e0, chars)
                if view[ne - 1] != ord("."):
                    assert (ns, ne) == groups[1], (name, text[s0:e0])
                if not reject(text, view, s0, e0):
                    continue
                seen[name, "turned down"] += 1
                s, e = next(g for i, g in enumerate(groups) if i in c.groups and g[1] > g[0])
                kept = accept(text[s:e], text, s, e, Groups(groups, text, ASCII_OFFSETS), lower)
                assert not kept, (name, text[s0:e0])
    # each rule turns down hundreds of candidates this way (295-504 on this corpus)
    assert all(seen[name, "turned down"] > 200 for name in rejecting), seen


def test_long_values_are_remembered_with_the_same_answers() -> None:
    blob = "".join(random.Random(3).choice(string.ascii_letters + string.digits + "+/") for _ in range(700))
    assert h.entropy(blob) == h.entropy_uncached(blob)
    assert h.random32_cached(blob) == (h.random_looking(blob) and h.entropy_uncached(blob) >= 3.6)
    assert h.random_looking_cached(blob) == h.random_looking(blob)
    assert h.entropy_long.cache_info().currsize >= 1
    # past CHECK_LIMIT nothing is kept (a pasted file or hostile text would stay alive otherwise)
    huge = blob * 8
    assert len(huge) > h.CHECK_LIMIT
    before = (h.entropy_long.cache_info(), h.random_looking_long.cache_info())
    assert h.entropy(huge) == h.entropy_uncached(huge)
    assert h.random32_cached(huge) == (h.random_looking(huge) and h.entropy_uncached(huge) >= 3.6)
    after = (h.entropy_long.cache_info(), h.random_looking_long.cache_info())
    assert [c.currsize for c in after] == [c.currsize for c in before]
    assert [c.misses for c in after] == [c.misses for c in before]


def test_the_run_before_a_line_end_is_the_regex_search() -> None:
    """joints._value_before walks back over value characters where the regex search tried each
    of 64 starts: the same bytes, wherever the range ends (a line break there included)."""
    rng = random.Random(5)
    pieces = [b"a", b"Z", b"9", b"_", b"=", b"/", b" ", b"\n", b"\"", b"\\", b"`", b"'", b"\x1a", b"\t", b":"]
    for _ in range(20000):
        v = b"".join(rng.choice(pieces) * rng.choice((1, 1, 3, 40)) for _ in range(rng.randint(0, 12)))
        end = rng.randint(0, len(v))
        m = joints._VALUE_BEFORE.search(v, max(0, end - 64), end)
        assert joints._value_before(v, end) == (m.group() if m else b""), (v, end)


def test_a_tokens_plain_run_is_what_stepping_over_it_finds() -> None:
    """whole.py steps over a token's plain characters with one regex: its class is TOKEN, no
    character more (a letter outside ASCII, a digit of another script) and none less."""
    assert {chr(c) for c in range(0x110000) if whole._TOKEN_RUN.fullmatch(chr(c))} == set(whole.TOKEN)


def test_a_layers_view_is_its_texts_view(texts: list[str]) -> None:
    """A decoded layer's one-byte view, made from its parent's piece by piece, is the one
    encoding its text gives."""
    seen = 0
    for t in texts:
        for lay in views.layers(t, one_byte_view(t), set())[0]:
            if lay.view:
                seen += 1
                assert lay.view == one_byte_view(lay.text), t
    assert seen > 50


def test_the_shell_trigger_is_looking_for_each_idiom() -> None:
    """views._shell_trigger walks the backslashes once for both idioms they lead (past 64 of
    them, one search for the rest): true exactly where one of the four idioms occurs."""
    rng = random.Random(9)
    idioms = (b"$'", b"'\\''", b'"\\""', b"'\"'\"'")
    for _ in range(20000):
        v = bytes(rng.choice(b"\\'\"$a ") for _ in range(rng.choice((3, 12, 60, 300))))
        assert views._shell_trigger(v) == any(i in v for i in idioms), v
