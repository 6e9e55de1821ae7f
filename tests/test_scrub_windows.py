"""Rules searched only on the lines around their keywords (privacy/anchored.py, scrub._windows)
find what a search of the whole text finds: every text scrubs to the same output, with the same
findings, with and without the windows, with Hyperscan's positions and with the automaton's."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from re2 import _re2
from test_scrub_prefilter import _texts

from jevlin_hooks.privacy import anchored, scrub


@pytest.fixture(autouse=True)
def _every_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """Short texts are searched whole (_WINDOWS_FROM): here every text is searched by lines."""
    monkeypatch.setattr(scrub, "_WINDOWS_FROM", 0)


def _findings(text: str, windowed: bool) -> list[tuple[str, int, int]]:
    return [(f.rule, f.start, f.end) for f in scrub.merge(scrub.find(text, windowed=windowed))]


@pytest.fixture(scope="module")
def texts() -> list[str]:
    return _texts()


def test_some_rules_are_searched_by_lines() -> None:
    scrub.compiled()
    names = {scrub.RULES[i].name for i in scrub._WINDOWED}
    near = {scrub.RULES[i].name for i in scrub._NEAR_WINDOWED}
    # the costliest rules whose keywords are rare in agent text, and two rules with near words
    assert {"cli-password", "authorization-header", "home-username", "openai-api-key", "github-token",
            "credential-flag", "credential-pair"} <= names
    assert {"us-ssn", "okta-token"} <= near
    # keywords that are context, not part of the match, or in nearly every text; matches over lines
    assert not names & {"kubeadm-token", "credential-assignment", "credential-xml", "private-key-base64",
                        "credential-in-prose", "quoted-high-entropy"}


def test_same_findings_with_and_without_windows(texts: list[str]) -> None:
    scrub.wait_prefilter()
    differ = [t[:120] for t in texts if _findings(t, True) != _findings(t, False)]
    assert not differ, differ[:3]
    assert sum(bool(_findings(t, True)) for t in texts[:2000]) > 500  # the texts do hold findings


def test_same_findings_with_the_automatons_positions(texts: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Before Hyperscan is ready (or where it has no wheel) the windows come from Aho-Corasick's
    positions in the lower-cased text."""
    scrub.compiled()
    monkeypatch.setattr(scrub, "_PF", None)
    sample = texts[::3]
    differ = [t[:120] for t in sample if _findings(t, True) != _findings(t, False)]
    assert not differ, differ[:3]


def test_case_and_unicode_at_the_edges() -> None:
    """Windows come from the one-byte view; near words from the lower-cased text only where its
    offsets are the view's (U+0130 lengthens it, U+212A lower-cases to an ASCII k)."""
    scrub.wait_prefilter()
    for text in [
        "MYSQL -u root -pZq8kL2pVw9x db\nother line\n",
        "ok\nmysql -u root -p'Zq8 kL2pVw9x' db",
        "net  use \\\\host\\share Zq8kL2pVw9x /user:ops\nnet\tuser bob Xk9mz2LqAb\n",
        "İstanbul\nSSN: 123-45-6789 and okta 00Zq8kL2pVw9xXk9mz2LqAbcdEFGH1234567890ab\n",
        "\u212aelvin ssn 123-45-6789\ncurl -H 'Authorization: Bearer Zq8kL2pVw9xXk9mz2Lq'\n",
        "social security\n\n123-45-6789 " + "x" * 70 + " 234-56-7890\n",
        "\n\n\nAUTHORIZATION: token Zq8kL2pVw9xXk9mz2Lq\r\n/Users/jane doe/x /home/Bob/y\n",
    ]:
        assert _findings(text, True) == _findings(text, False), text


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
    compiled = scrub.compiled()
    rng = random.Random(5)
    texts = ["".join(rng.choice(_PIECES) for _ in range(rng.randint(5, 60))) for _ in range(400)] + _texts()[:1500]
    for i, anchors in scrub._WINDOWED.items():
        for c in compiled[i]:
            for text in texts:
                view = scrub.one_byte_view(text)
                at, n = 0, len(view)
                while at <= n:
                    s0, e0 = c.rx.Match(_re2.RE2.Anchor.UNANCHORED, view, at, n)[0]
                    if s0 < 0:
                        break
                    at = e0 if e0 > at else at + 1
                    m = view[s0:e0]
                    assert b"\n" not in m[1:-1], (scrub.RULES[i].name, m)
                    assert any(a.encode() in m.lower() for a in anchors), (scrub.RULES[i].name, m)


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


def test_a_rare_keyword_is_searched_on_its_line_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """On 32 KiB with one mysql line, cli-password's RE2 search sees that line (and its line
    breaks), from Hyperscan's positions where it runs and from the automaton's otherwise."""
    monkeypatch.setattr(scrub, "_WINDOWS_FROM", 4096)
    filler = "The helper waits twice before it gives up on the upstream.\n" * 500  # no gate word
    line = "mysql -u root -pZq8kL2pVw9x app\n"
    cut = filler.index("\n", 16000) + 1
    text = filler[:cut] + line + filler[cut:]
    at = text.index(line)
    i = next(k for k, r in enumerate(scrub.RULES) if r.name == "cli-password")
    seen: list[object] = []
    real = scrub._run

    def spy(c, *a, windows=None, **k):  # type: ignore[no-untyped-def]
        if c.rule.name == "cli-password":
            seen.append(windows)
        return real(c, *a, windows=windows, **k)

    monkeypatch.setattr(scrub, "_run", spy)
    for pf in ([scrub._PF] if scrub.wait_prefilter() else []) + [None]:
        monkeypatch.setattr(scrub, "_PF", pf)
        seen.clear()
        assert [f.rule for f in scrub.find(text)] == ["cli-password"]
        assert seen == [[(at - 1, at + len(line))]], (pf, seen)
    assert i in scrub._WINDOWED


def test_the_lengths_searched_back_from_match_ends_are_the_longest_matches() -> None:
    """_BY_END: RE2 starts that many bytes before the next match end Hyperscan reports; a length
    below a pattern's longest match would lose matches."""
    for name, length in scrub._BY_END.items():
        pattern = next(r for r in scrub.RULES if r.name == name).pattern
        if length:
            assert anchored.P.parse(pattern).getwidth()[1] <= length, name
        else:  # searched from the line of the match end instead: the match must stay on it
            assert anchored.one_line(pattern), name
    assert anchored.one_line(r"(?m)^[ \t]*key:[ \t]*\|\r?\n") and not anchored.one_line(r"key:\s*\|\n")
