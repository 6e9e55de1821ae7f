"""Rules searched only on the lines around their keywords (privacy/engine/anchored.py and
windows.py) find what a search of the whole text finds: every text scrubs to the same output, with
the same findings, with and without the windows, with Hyperscan's positions and with the automaton's."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_scrub_prefilter import _texts

from jevlin_hooks.privacy.engine import Scrubber, anchored, merge
from jevlin_hooks.privacy.engine.text import one_byte_view
from jevlin_hooks.privacy.regex import UNANCHORED
from jevlin_hooks.privacy.rules import RULES

# Short texts are searched whole (windows_from): here every text is searched by lines, or none is.
BY_LINES = Scrubber(windows_from=0)
WHOLE = Scrubber(windows=False)
BY_LINES_AUTOMATON = Scrubber(prefilter=False, windows_from=0)  # before Hyperscan is ready, or without it


def _findings(text: str, windowed: bool, s: Scrubber = BY_LINES) -> list[tuple[str, int, int]]:
    return [(f.rule, f.start, f.end) for f in merge((s if windowed else WHOLE).find(text))]


@pytest.fixture(scope="module")
def texts() -> list[str]:
    return _texts()


def test_some_rules_are_searched_by_lines() -> None:
    names = {RULES[i].name for i in BY_LINES.lines.windowed}
    near = {RULES[i].name for i in BY_LINES.lines.near_windowed}
    # the costliest rules whose keywords are rare in agent text, and two rules with near words
    assert {"cli-password", "authorization-header", "home-username", "openai-api-key", "github-token",
            "credential-flag", "credential-pair"} <= names
    assert {"us-ssn", "okta-token"} <= near
    # keywords that are context, not part of the match, or in nearly every text; matches over lines
    assert not names & {"kubeadm-token", "credential-assignment", "credential-xml", "private-key-base64",
                        "credential-in-prose", "quoted-high-entropy"}


def test_same_findings_with_and_without_windows(texts: list[str]) -> None:
    assert BY_LINES.wait_prefilter() == WHOLE.wait_prefilter()
    differ = [t[:120] for t in texts if _findings(t, True) != _findings(t, False)]
    assert not differ, differ[:3]
    assert sum(bool(_findings(t, True)) for t in texts[:2000]) > 500  # the texts do hold findings


def test_same_findings_with_the_automatons_positions(texts: list[str]) -> None:
    """Before Hyperscan is ready (or where it has no wheel) the windows come from Aho-Corasick's
    positions in the lower-cased text."""
    sample = texts[::3]
    differ = [t[:120] for t in sample if _findings(t, True, BY_LINES_AUTOMATON) != _findings(t, False)]
    assert not differ, differ[:3]


def test_case_and_unicode_at_the_edges() -> None:
    """Windows come from the one-byte view; near words from the lower-cased text only where its
    offsets are the view's (U+0130 lengthens it, U+212A lower-cases to an ASCII k)."""
    BY_LINES.wait_prefilter()
    for text in [
        "MYSQL -u root -pZq8kL2pVw9x db\nother line\n",
        "ok\nmysql -u root -p'Zq8 kL2pVw9x' db",
        "net  use \\\\host\\share Zq8kL2pVw9x /user:ops\nnet\tuser bob Xk9mz2LqAb\n",
        "İstanbul\nSSN: 123-45-6789 and okta 00Zq8kL2pVw9xXk9mz2LqAbcdEFGH1234567890ab\n",
        "\u212aelvin ssn 123-45-6789\ncurl -H 'Authorization: Bearer Zq8kL2pVw9xXk9mz2Lq'\n",
        "social security\n\n123-45-6789 " + "x" * 70 + " 234-56-7890\n",
        "\n\n\nAUTHORIZATION: token Zq8kL2pVw9xXk9mz2Lq\r\n/Users/jane doe/x /home/Bob/y\n",
    ]:
        assert _findings(text, True) == _findings(text, False) == _findings(text, True, BY_LINES_AUTOMATON), text


_PIECES = ["mysql -u root -p", "MySQL", "Authorization: Bearer ", "authorization=", "ghp_", "sk-proj-", "AKIA",
           "/home/", "/Users/", "C:\\Users\\", "ssn ", "SSN: ", "okta ", "ss# ", "net use ", "net  user ", "login ",
           "docker login -u u -p ", "redis-cli -a ", "xoxb-", "glpat-", "://", "user:pass@", "@", "-", "_", "=", ":",
           "\n", "\n", " ", "\t", "'", '"', "123-45-6789", "4111 1111 1111 1111", "Zq8kL2pVw9xXk9mz2LqAbcdEFGH12345678",
           "0123456789abcdef0123456789abcdef01234567", "00", "x" * 30, "é", "—", "İ", "\u212a",
           "password: |", "  client_secret: >-  # x", "api_key:|+", "    Zq8kL2pVw9xXk9mz2Lq", "+49 30 1234567", "DE89 3704 0044 0532 0130 00"]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=40))
def test_pieces_scrub_alike_with_and_without_windows(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert _findings(text, True) == _findings(text, False)


def test_every_match_of_a_windowed_rule_lies_in_its_windows() -> None:
    """The analysis' two facts, checked on the texts: each raw RE2 match of a windowed rule holds
    one of its anchors and no line break but as its first or last character."""
    compiled = BY_LINES.compiled
    rng = random.Random(5)
    texts = ["".join(rng.choice(_PIECES) for _ in range(rng.randint(5, 60))) for _ in range(400)] + _texts()[:1500]
    for i, anchors in BY_LINES.lines.windowed.items():
        for c in compiled[i]:
            for text in texts:
                view = one_byte_view(text)
                at, n = 0, len(view)
                while at <= n:
                    s0, e0 = c.rx.Match(UNANCHORED, view, at, n)[0]
                    if s0 < 0:
                        break
                    at = e0 if e0 > at else at + 1
                    m = view[s0:e0]
                    assert b"\n" not in m[1:-1], (RULES[i].name, m)
                    assert any(a.encode() in m.lower() for a in anchors), (RULES[i].name, m)


@pytest.mark.parametrize(("pattern", "anchors", "expected"), [
    (r"\b(?:mysql|mariadb)\b[^\n|;&]*?[ \t]-p([^\s'\"]+)", ("mysql", "mariadb"), True),
    (r"(?i)\bAuthorization[\"']?[ \t]*[:=][ \t]*(\S{3,})", ("authorization",), True),  # \S takes no line break
    (r"(?i)\bauthorization[ \t]*:[ \t]*([^\s]{3,})", ("authorization",), True),
    (r"[Nn][Ee][Tt][ \t]+[Uu][Ss][Ee]\b[^\n]*", ("net use",), False),  # `net  use` holds no "net use"
    (r"[Nn][Ee][Tt][ \t]+[Uu][Ss][Ee]\b[^\n]*", ("net ", "net\t"), True),
    (r"password\s+is\s+(\S+)", ("password",), False),  # \s crosses lines
    (r"(?:^|[^a-z0-9_])api_key=([^\s]+)", ("api_key",), True),  # a line break only first
    (r"(?m)^[ \t]*secret:[ \t]*\|\r?\n", ("secret",), True),  # ... and only last
    (r"token\n[a-z]+", ("token",), False),
    (r"(?:ghp_|token=)[A-Za-z0-9]{36}", ("ghp_",), False),  # one branch holds no anchor
    (r"(?:ghp_|gho_)[A-Za-z0-9]{36}", ("ghp_", "gho_"), True),
    (r"(?i)GHP_[a-z]{4}", ("ghp_",), True),
    (r"\b[a-z0-9]{6}\.[a-z0-9]{16}\b", ("token",), False),  # the keyword is context
    (r"密码[^\n]{1,64}", ("密码",), False),  # not ASCII: searched whole
    (r"(unclosed", ("x",), False),
    (r"[[:alpha:]]+key", ("key",), False),  # a POSIX class: Python would read brackets and letters
])
def test_the_analysis(pattern: str, anchors: tuple[str, ...], expected: bool) -> None:
    assert anchored.line_anchored(pattern, anchors) is expected


def test_within_lines() -> None:
    assert anchored.within_lines(r"\b([0-9]{3}-[0-9]{2}-[0-9]{4})\b")
    assert not anchored.within_lines(r"(?:^|[^0-9])([0-9]{9})")  # [^0-9] takes a line break
    assert not anchored.within_lines(r"a\s+b")
    assert re.compile(r"a.b").match("a\nb") is None and anchored.within_lines(r"a.b")  # RE2's . as Python's
    assert not anchored.within_lines(r"(?s)a.b")


def test_a_rare_keyword_is_searched_on_its_line_only() -> None:
    """On 32 KiB with one mysql line, cli-password's RE2 search sees that line (and its line
    breaks), from Hyperscan's positions where it runs and from the automaton's otherwise."""
    filler = "The helper waits twice before it gives up on the upstream.\n" * 500  # no gate word
    line = "mysql -u root -pZq8kL2pVw9x app\n"
    cut = filler.index("\n", 16000) + 1
    text = filler[:cut] + line + filler[cut:]
    at = text.index(line)
    i = next(k for k, r in enumerate(RULES) if r.name == "cli-password")
    hyperscan = Scrubber()
    for s in ([hyperscan] if hyperscan.wait_prefilter() else []) + [Scrubber(prefilter=False)]:
        assert [f.rule for f in s.find(text)] == ["cli-password"]
        assert s.windows_for(text)["cli-password"] == [(at - 1, at + len(line))], s.hyperscan
    assert i in hyperscan.lines.windowed


def test_the_lengths_searched_back_from_match_ends_are_the_longest_matches() -> None:
    """A rule's `longest`: RE2 starts that many bytes before the next match end Hyperscan reports;
    a length below a pattern's longest match would lose matches."""
    ended = [r for r in RULES if r.longest is not None]
    assert {r.name for r in ended} == {"ipv4", "payment-card", "iban", "phone-number", "yaml-block-secret", "chat-speaker"}
    for r in ended:
        if r.longest:
            assert anchored.P.parse(r.pattern).getwidth()[1] <= r.longest, r.name
        else:  # searched from the line of the match end instead: the match must stay on it
            assert anchored.one_line(r.pattern), r.name
    assert anchored.one_line(r"(?m)^[ \t]*key:[ \t]*\|\r?\n") and not anchored.one_line(r"key:\s*\|\n")
