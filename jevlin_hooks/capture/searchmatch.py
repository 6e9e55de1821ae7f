"""Is this tool call a search? And what was asked?

Configured in ``[search]``: ``shell_commands`` are command prefixes ("jevlin search") found
anywhere a shell line runs a command: after ``cd x &&``, behind ``VAR=1`` assignments or
``env``/``command``/``time``/``nohup`` wrappers, inside a pipeline or a subshell.
``tools`` are tool names, ``*`` as a wildcard. A hand-written tokenizer instead of
``shlex``/``re``: both cost more import time than the hook's whole budget allows.
"""

from __future__ import annotations

# typing (which imports re) costs more than a hook's whole start-up budget: types only.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SHELL_TOOLS = frozenset({"Bash", "bash", "Shell", "shell", "exec_command", "local_shell", "run_shell_command"})
_SEPARATORS = frozenset(";&|\n()`{}")
_WRAPPERS = frozenset({"env", "command", "exec", "time", "nohup", "builtin", "nice", "stdbuf"})
_KEYWORDS = frozenset({"then", "do", "else", "elif", "if", "while", "until", "!", "{", "}"})
_QUERY_KEYS = ("query", "q", "search_query", "search", "queries", "keywords", "prompt")


def simple_commands(line: str) -> list[list[str]]:
    """Split a shell line into simple commands, each a list of unquoted words.

    Redirections are not words: ``2>&1``, ``2>/dev/null``, ``> out.txt``, ``&>log``, ``<in``
    (operator, its fd number and its target) are left out, as the shell leaves them out of
    the command's arguments.
    """
    commands: list[list[str]] = []
    words: list[str] = []
    word: list[str] = []
    in_word = False
    drop = False  # the next word is a redirection's target
    quote = ""

    def end_word() -> None:
        nonlocal word, in_word, drop
        if in_word:
            if not drop:
                words.append("".join(word))
            drop = False
        word, in_word = [], False

    i = 0
    n = len(line)
    while i < n:
        c = line[i]
        if quote == "'":
            if c == "'":
                quote = ""
            else:
                word.append(c)
        elif quote == '"':
            if c == '"':
                quote = ""
            elif c == "\\" and i + 1 < n and line[i + 1] in '"\\$`':
                i += 1
                word.append(line[i])
            else:
                word.append(c)
        elif c == "\\" and i + 1 < n:
            i += 1
            if line[i] != "\n":
                word.append(line[i])
                in_word = True
        elif c in "'\"":
            quote = c
            in_word = True
        elif c in " \t\r":
            end_word()
        elif c in "<>" or (c == "&" and line[i + 1:i + 2] == ">"):
            if in_word and not drop and word and all("0" <= ch <= "9" for ch in word):
                word, in_word = [], False  # `2>`: the fd number belongs to the operator
            else:
                end_word()
            if c == "&":
                i += 1
            while i + 1 < n and line[i + 1] in "<>":
                i += 1
            if i + 1 < n and line[i + 1] in "&|":
                i += 1  # >& <& >|: the target is an fd, `-` or a file
            drop = True
        elif c in _SEPARATORS:
            if in_word:
                w = "".join(word)
                if not (c == "(" and w.endswith("$")):
                    end_word()
                else:
                    word = list(w[:-1])
                    in_word = bool(word)
                    end_word()
            drop = False
            if words:
                commands.append(words)
            words = []
        else:
            word.append(c)
            in_word = True
        i += 1
    end_word()
    if words:
        commands.append(words)
    return commands


def _is_assignment(word: str) -> bool:
    eq = word.find("=")
    if eq <= 0:
        return False
    name = word[:eq]
    return (name[0].isalpha() or name[0] == "_") and all(c.isalnum() or c == "_" for c in name)


def _strip_prefix(words: list[str]) -> list[str]:
    i = 0
    while i < len(words):
        w = words[i]
        if _is_assignment(w) or w in _KEYWORDS:
            i += 1
        elif w in _WRAPPERS:
            i += 1
            while i < len(words) and words[i].startswith("-"):
                i += 1
        else:
            break
    return words[i:]


def _word_matches(word: str, want: str) -> bool:
    if "/" in want:
        return word == want
    return word == want or word.rsplit("/", 1)[-1] == want


def match_shell(command: str, prefixes: list[str]) -> str | None:
    """The query if ``command`` runs one of ``prefixes``, else None."""
    if not command or not prefixes:
        return None
    wanted = []
    for p in prefixes:
        parts = p.split()
        if parts and parts[0].rsplit("/", 1)[-1] in command:
            wanted.append(parts)
    if not wanted:
        return None
    for words in simple_commands(command):
        words = _strip_prefix(words)
        for parts in wanted:
            if len(words) >= len(parts) and _word_matches(words[0], parts[0]) and all(
                words[k] == parts[k] for k in range(1, len(parts))
            ):
                # flags stay, with their values: the scrubber must see `--token X` to know
                # that X is a secret (dropping the flag shipped X in clear)
                return " ".join(words[len(parts):])
    return None


def glob(pattern: str, name: str) -> bool:
    """``*``-only wildcard match (fnmatch would import re)."""
    pieces = pattern.split("*")
    if len(pieces) == 1:
        return pattern == name
    if not name.startswith(pieces[0]) or not name.endswith(pieces[-1]):
        return False
    pos = len(pieces[0])
    end = len(name) - len(pieces[-1])
    for piece in pieces[1:-1]:
        found = name.find(piece, pos, end)
        if found < 0:
            return False
        pos = found + len(piece)
    return pos <= end


def tool_query(tool_input: Any) -> str:
    if isinstance(tool_input, str):
        from jevlin_hooks.base import fastjson

        try:
            tool_input = fastjson.loads(tool_input)
        except ValueError:
            return ""
    if not isinstance(tool_input, dict):
        return ""
    for key in _QUERY_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str):
            return value
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return " | ".join(value)
    return ""


def shell_command(tool_input: Any) -> str:
    if isinstance(tool_input, dict):
        for key in ("command", "cmd"):
            value = tool_input.get(key)
            if isinstance(value, str):
                return value
            if isinstance(value, list) and all(isinstance(v, str) for v in value):
                return " ".join(value)
    elif isinstance(tool_input, str):
        return tool_input
    return ""


def classify(tool_name: str, tool_input: Any, search_cfg: dict[str, Any]) -> str | None:
    """The search query when this call is a search, else None."""
    if not isinstance(tool_name, str):
        return None
    for pattern in search_cfg.get("tools", ()):
        if glob(pattern, tool_name):
            return tool_query(tool_input)
    if tool_name in SHELL_TOOLS:
        return match_shell(shell_command(tool_input), search_cfg.get("shell_commands", []))
    return None
