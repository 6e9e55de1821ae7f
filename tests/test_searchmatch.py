from __future__ import annotations

import shlex

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jevlin_hooks.base import config
from jevlin_hooks.capture import searchmatch

CFG = config.defaults()["search"]


@pytest.mark.parametrize("command,query", [
    ('jevlin search "httpx retry"', "httpx retry"),
    ("cd x && jevlin search foo", "foo"),
    ('FOO=1 BAR="a b" jevlin search q1', "q1"),
    ("cat f | /usr/local/bin/jevlin search x | head", "x"),
    ("(cd sub; jevlin search 'in subshell')", "in subshell"),
    ("env -i A=1 jevlin search e", "e"),
    ("time nohup jevlin search t", "t"),
    ("if true; then jevlin search cond; fi", "cond"),
    ("jevlin search --limit=5 'with flag'", "--limit=5 with flag"),  # flags stay: the scrubber needs them
    ("jevlin search rust async 2>/dev/null", "rust async"),
])
def test_shell_searches(command, query):
    assert searchmatch.classify("Bash", {"command": command}, CFG) == query


@pytest.mark.parametrize("command", [
    "echo jevlin search test", "git grep 'jevlin search'", "jevlinsearch x", "jevlin index", "ls",
    "# jevlin search", "",
])
def test_not_searches(command):
    assert searchmatch.classify("Bash", {"command": command}, CFG) is None


def test_tools_and_mcp():
    assert searchmatch.classify("WebSearch", {"query": "q"}, CFG) == "q"
    assert searchmatch.classify("web_search", {"query": "q2"}, CFG) == "q2"
    assert searchmatch.classify("mcp__jevlin__search", {"q": "mq"}, CFG) == "mq"
    assert searchmatch.classify("mcp__jevlin__search", '{"query": "as json"}', CFG) == "as json"
    assert searchmatch.classify("mcp__other__search", {"q": "x"}, CFG) is None
    assert searchmatch.classify("Read", {"file_path": "/x"}, CFG) is None


def test_configured_commands():
    cfg = {"shell_commands": ["/opt/probe/tool_probe.sh", "rg"], "tools": []}
    assert searchmatch.classify("Bash", {"command": "echo x; /opt/probe/tool_probe.sh a b"}, cfg) == "a b"
    assert searchmatch.classify("Bash", {"command": "/elsewhere/tool_probe.sh a"}, cfg) is None
    assert searchmatch.classify("Bash", {"command": "rg pattern src"}, cfg) == "pattern src"


def test_glob():
    assert searchmatch.glob("a*b*c", "aXXbYYc") and not searchmatch.glob("a*b*c", "acb")
    assert searchmatch.glob("*", "") and searchmatch.glob("ab*", "ab") and not searchmatch.glob("ab*", "a")


# --- simple_commands against shlex ------------------------------------------------------------------
# The hand-written tokenizer (shlex costs more import time than a hook may spend) against the
# standard library's, on lines made of words quoted every way a shell allows, separators and
# redirections. Where the two are meant to differ they are kept apart: shlex knows no redirection
# (so the words never are all digits, which would make `N>` ambiguous to it), keeps a backslash
# before $ and ` inside double quotes (the words' double-quoted form escapes only " and \), and
# treats ` { } and a newline outside quotes as word characters (those appear only quoted).

_SEPARATORS = [";", "&&", "||", "|", "&"]
_REDIRECTIONS = ["2>/dev/null", ">out.txt", "> out.txt", "<in.txt", "2>&1", "&>log", ">>app.log", "1>&2", "2> err.txt"]
_BARE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./=:,+-@%~^!?*[]#")
_words = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E) | st.sampled_from(["\n", "\t", "é", "密"]),
                 min_size=1, max_size=12).filter(lambda w: any(c.isalpha() for c in w))


def _quoted(w: str, style: int) -> str:
    if style == 0 or "\n" in w and style == 2:
        return shlex.quote(w)
    if style == 1:
        return '"' + w.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if style == 2:  # every character but letters and digits escaped
        return "".join(c if c.isalnum() else "\\" + c for c in w)
    if all(c in _BARE for c in w):
        return w
    return shlex.quote(w)


@st.composite
def _lines(draw: st.DrawFn) -> tuple[str, list[list[str]]]:
    """A shell line and the simple commands it holds (each a list of its words)."""
    commands = draw(st.lists(st.lists(_words, min_size=1, max_size=5), min_size=1, max_size=4))
    parts = []
    for k, cmd in enumerate(commands):
        if k:
            parts.append(draw(st.sampled_from(_SEPARATORS)))
        words = []
        for w in cmd:
            # a word may be pieces in different quotings, run together ("ab"'cd'\e)
            cut = draw(st.integers(0, len(w)))
            pieces = [p for p in (w[:cut], w[cut:]) if p]
            words.append("".join(_quoted(p, draw(st.integers(0, 3))) for p in pieces))
        words += draw(st.lists(st.sampled_from(_REDIRECTIONS), max_size=2))
        text = " ".join(words)
        parts.append(f"( {text} )" if draw(st.booleans()) else text)
    return " ".join(parts), commands


def _shlex_commands(line: str) -> list[list[str]]:
    """What shlex makes of the line: its separator tokens end a command, a redirection operator
    takes its target (and an fd number before it) out."""
    lex = shlex.shlex(line, posix=True, punctuation_chars=";&|()<>")
    lex.whitespace_split = True
    lex.commenters = ""
    commands: list[list[str]] = []
    words: list[str] = []
    tokens = list(lex)
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok and set(tok) <= set(";&|()<>"):
            if "<" in tok or ">" in tok:
                if words and words[-1].isdigit():
                    words.pop()
                i += 2
                continue
            if words:
                commands.append(words)
            words = []
        else:
            words.append(tok)
        i += 1
    if words:
        commands.append(words)
    return commands


@settings(max_examples=400, deadline=None)
@given(_lines())
def test_simple_commands_splits_as_shlex_does(line_and_commands: tuple[str, list[list[str]]]) -> None:
    line, commands = line_and_commands
    assert searchmatch.simple_commands(line) == _shlex_commands(line) == commands


@given(st.text(max_size=200))
def test_simple_commands_takes_any_text(line: str) -> None:
    got = searchmatch.simple_commands(line)
    assert all(words and all(isinstance(w, str) for w in words) for words in got)
