from __future__ import annotations

import pytest

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
