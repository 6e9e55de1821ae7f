"""Hermes Agent: our shell hooks in ``$HERMES_HOME/config.yaml`` and the user's consent to them in
``$HERMES_HOME/shell-hooks-allowlist.json``, in the home and in every profile home.

config.yaml is merged round-trip (ruamel.yaml): every other key, comment and hook of the user's
stays as it was. One command string serves every event (the payload names its event), so
consent is one allowlist entry per event. Hermes silently skips unapproved hooks in
non-interactive runs (``hermes -z``, ``chat -q``, cron, the gateway); running `install` is the
user's consent, so we add our (event, command) pairs the way Hermes does (same shape, under the
same ``.lock``) and never set ``hooks_auto_accept``, which would approve any hook at all.
Consent is keyed by the exact command string: it must stay byte-identical across reinstalls.

Anchors and aliases: a list or mapping that the file reaches more than once (an alias, a merge
key) is never written into, since our entry would then run under every name that shares it;
the key we change gets its own copy instead, and the anchor and its other aliases stay as they
were. A file whose aliases would expand past ALIAS_LIMIT nodes is refused before it is built.
"""

from __future__ import annotations

import io
import json
import os
import time
from collections.abc import Mapping
from typing import Any

from jevlin_hooks import installkit

PROGRAM = "hermes"
NEXT_STEP = ("next: Hermes runs the hooks from its next start (approved for you in shell-hooks-allowlist.json; "
             "`hermes hooks list` shows them); the terminal tool's login shell must find `jevlin` on PATH")

# Never pre_api_request: it carries the whole model request (76 KB on average) on every call.
# api_request_error carries it too, but fires only when a model call failed: it is how a turn
# that Hermes abandons on an API error (no on_session_end follows) ends as `error`.
EVENTS = (
    "on_session_start", "pre_llm_call", "post_api_request", "api_request_error", "pre_tool_call",
    "post_tool_call", "subagent_start", "subagent_stop", "on_session_end", "on_session_finalize",
)
TOOL_EVENTS = ("pre_tool_call", "post_tool_call")
# tools whose calls spawn a hook (the matcher is checked before spawning: every other tool is
# free): the shell, the spawner of subagents (its call id links them), and the [search] tools
ALWAYS_MATCHED = ("terminal", "delegate_task")
ALLOWLIST = "shell-hooks-allowlist.json"


def hermes_home() -> str:
    return os.environ.get("HERMES_HOME") or os.path.join(os.path.expanduser("~"), ".hermes")


def homes() -> list[str]:
    """The home and every profile home under it (``hermes -p NAME`` runs with another HERMES_HOME)."""
    base = hermes_home()
    out = [base]
    pdir = os.path.join(base, "profiles")
    try:
        names = sorted(os.listdir(pdir))
    except OSError:
        names = []
    out += [os.path.join(pdir, n) for n in names if os.path.isdir(os.path.join(pdir, n))]
    return out


def command() -> str:
    return installkit.shell_command("hermes")


def matcher(search_tools: list[str]) -> str:
    """A Python regex (Hermes fullmatches it on the tool name) for the tools we watch."""
    import re

    alts = list(ALWAYS_MATCHED)
    for pattern in search_tools:
        alt = ".*".join(re.escape(p) for p in pattern.split("*"))
        if alt not in alts:
            alts.append(alt)
    return "|".join(alts)


def _search_tools() -> list[str]:
    from jevlin_hooks.base import config, paths

    try:
        cfg = config.load(paths.home())
    except (config.ConfigError, OSError):
        cfg = config.defaults()
    return [t for t in cfg.get("search", {}).get("tools", []) if isinstance(t, str)]


# An alias repeats what its anchor holds, and loading builds every repetition again (a merge key
# copies the anchor's keys into each mapping that merges it): a few hundred bytes of alias chain
# take minutes to load, and whatever reads the config after us pays it again. What the aliases of
# a config may add to what its text spells out, in nodes; legitimate reuse stays far below it.
ALIAS_LIMIT = 10_000
MAX_BYTES = 1 << 20  # a Hermes config.yaml is a few KiB; parsing one takes ruamel about 1 s a MiB


def _yaml() -> Any:
    from ruamel.yaml import YAML

    y = YAML()  # round-trip: comments, key order and quoting survive
    y.Constructor = _bounded_constructor()
    y.preserve_quotes = True
    y.width = 1 << 16  # never fold our long command string
    return y


def _bounded_constructor() -> Any:
    """ruamel's round-trip constructor, refusing a document whose aliases expand too far before
    it builds anything (the composed document is a graph of its distinct nodes: linear to check)."""
    from ruamel.yaml.constructor import RoundTripConstructor

    class Bounded(RoundTripConstructor):
        def construct_document(self, node: Any) -> Any:
            check_aliases(node)
            return super().construct_document(node)

    return Bounded


def check_aliases(root: Any) -> None:
    """Raise InstallError if the composed document ``root`` refers to itself or its aliases add
    more than ALIAS_LIMIT nodes; each distinct node is sized once (a repeated one's size reused)."""
    from ruamel.yaml.nodes import CollectionNode, MappingNode

    def kids(node: Any) -> list[Any]:
        if isinstance(node, MappingNode):
            return [x for pair in node.value for x in pair]
        return list(node.value) if isinstance(node, CollectionNode) else []

    size: dict[int, int] = {}
    open_: set[int] = set()
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, leaving = stack.pop()
        nid = id(node)
        if leaving:
            size[nid] = 1 + sum(size[id(k)] for k in kids(node))
            open_.discard(nid)
            continue
        if nid in size:
            continue
        if nid in open_:
            raise installkit.InstallError("an alias refers to a node that contains it (a recursive alias)")
        open_.add(nid)
        stack.append((node, True))
        stack.extend((k, False) for k in kids(node))
    added = size[id(root)] - len(size)
    if added > ALIAS_LIMIT:
        raise installkit.InstallError(f"its aliases expand to {_count(added)} more nodes than it spells out "
                                      f"(the limit is {ALIAS_LIMIT:,})")


def _count(n: int) -> str:
    return f"{n:,}" if n < 10**12 else f"about 10^{len(str(n)) - 1}"


def _shared(root: Any) -> set[int]:
    """The ids of the lists and mappings the document reaches by more than one way (an alias,
    a merge key): writing into one of them writes under every name that reaches it."""
    refs: dict[int, int] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        for kid in (node.values() if isinstance(node, dict) else node):
            if isinstance(kid, (dict, list)):
                refs[id(kid)] = refs.get(id(kid), 0) + 1
                if refs[id(kid)] == 1:
                    stack.append(kid)
    return {k for k, n in refs.items() if n > 1}


def _keep_anchors(root: Any) -> None:
    """Every anchor the user wrote is written back, even one no alias uses any more (ruamel drops
    the anchor of a list or mapping referred to once: our copy may have been its last alias)."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        anchor = getattr(node, "anchor", None)
        if anchor is not None and anchor.value is not None and not anchor.always_dump:
            node.yaml_set_anchor(anchor.value, always_dump=True)
        kids = list(node.values()) if isinstance(node, dict) else node if isinstance(node, list) else []
        for kid in kids:
            if isinstance(kid, (dict, list)) and id(kid) not in seen:
                seen.add(id(kid))
                stack.append(kid)


def _own_copy(node: Any) -> Any:
    """A plain copy of a shared list or mapping (no anchor, its aliases spelled out, its flow or
    block style kept), for the one key we change: the anchor itself is left as it was."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    new: Any
    if isinstance(node, dict):
        new = CommentedMap((k, _own_copy(v)) for k, v in node.items())
    elif isinstance(node, list):
        new = CommentedSeq(_own_copy(v) for v in node)
    else:
        return node
    fa = getattr(node, "fa", None)
    if fa is not None and fa.flow_style():
        new.fa.set_flow_style()
    return new


def is_ours(entry: Any) -> bool:
    return installkit.is_ours(entry) and isinstance(entry, dict) and str(entry.get("command", "")).endswith(" hermes")


def plan_config(path: str, remove: bool = False, tools: list[str] | None = None) -> installkit.Change:
    from ruamel.yaml.comments import CommentedMap
    from ruamel.yaml.error import YAMLError
    from ruamel.yaml.util import load_yaml_guess_indent

    before = installkit.read_bytes(path)  # through a symlink; a dangling one is refused
    if before is not None and len(before) > MAX_BYTES:
        raise installkit.InstallError(f"{path} is larger than {MAX_BYTES >> 20} MiB, too large for a Hermes "
                                      "config; left untouched")
    y = _yaml()
    data = None
    try:
        text = before.decode("utf-8") if before else ""
        if text.strip():
            data, indent, offset = load_yaml_guess_indent(text, yaml=y)
            # write mappings and lists indented the way this file already does (ruamel's recipe)
            y.indent(mapping=offset or indent or 2, sequence=indent or 2, offset=offset or 0)
    except installkit.InstallError as exc:
        raise installkit.InstallError(f"{path}: {exc}; left untouched") from None
    except RecursionError:
        raise installkit.InstallError(f"{path} is nested too deeply for a config; left untouched") from None
    except (YAMLError, UnicodeDecodeError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise installkit.InstallError(f"{path} is not valid YAML ({first}); left untouched") from None
    if data is None:
        data = CommentedMap()
    if not isinstance(data, dict):
        raise installkit.InstallError(f"{path} does not hold a YAML mapping; left untouched")
    shared = _shared(data)
    hooks = data.get("hooks")
    if hooks is not None and not isinstance(hooks, dict):
        raise installkit.InstallError(f"{path}: hooks is not a mapping; left untouched")
    changed = False
    if isinstance(hooks, dict):
        for event in list(hooks):
            entries = hooks[event]
            if not isinstance(entries, list) or not any(is_ours(e) for e in entries):
                continue
            # out of a shared list too: an older install that appended into an anchor is undone
            # under every name that shares it
            for i in range(len(entries) - 1, -1, -1):
                if is_ours(entries[i]):
                    del entries[i]
            if not entries and id(entries) not in shared:
                del hooks[event]
            changed = True
        if not hooks and changed and id(hooks) not in shared:
            del data["hooks"]
            hooks = None
    if not remove:
        if hooks is None:
            hooks = data["hooks"] = CommentedMap()
        elif id(hooks) in shared:
            hooks = data["hooks"] = _own_copy(hooks)  # its lists are copies too: none shared
            shared = set()
        cmd = command()
        match = matcher(_search_tools() if tools is None else tools)
        for event in EVENTS:
            entry = CommentedMap()
            entry["command"] = cmd
            if event in TOOL_EVENTS:
                entry["matcher"] = match
            entry["timeout"] = installkit.TIMEOUT_S
            current = hooks.get(event)
            if current is None:
                hooks[event] = [entry]
            elif isinstance(current, list):
                if id(current) in shared:
                    current = hooks[event] = _own_copy(current)
                current.append(entry)
            else:
                raise installkit.InstallError(f"{path}: hooks.{event} is not a list; left untouched")
        changed = True
    if not changed:
        return installkit.Change(path, before, before)
    restored = installkit.removal(path, before, remove)
    if restored is not None:
        return restored
    _keep_anchors(data)
    buf = io.StringIO()
    y.dump(data, buf)
    return installkit.Change(path, before, buf.getvalue().encode("utf-8"))


def _iso(t: float) -> str:
    """A UTC time as Hermes writes it in the allowlist (datetime.isoformat, "Z")."""
    from datetime import UTC, datetime

    return datetime.fromtimestamp(t, tz=UTC).isoformat().replace("+00:00", "Z")


def _script_mtime() -> str | None:
    """What Hermes records as ``script_mtime_at_approval`` (reported by `hermes hooks list`,
    never enforced): the entry script's mtime, formatted as Hermes formats it."""
    try:
        return _iso(os.path.getmtime(installkit.ENTRY))
    except OSError:
        return None


def plan_allowlist(path: str, remove: bool = False) -> installkit.Change:
    """Our (event, command) approvals, in Hermes's own shape: {"approvals": [{event, command,
    approved_at, script_mtime_at_approval}]}, written as Hermes writes it (indent 2, sorted keys)."""
    before = installkit.read_bytes(path)  # through a symlink; a dangling one is refused
    try:
        data = json.loads(before.decode("utf-8")) if before and before.strip() else {}
    except (ValueError, UnicodeDecodeError) as exc:
        raise installkit.InstallError(f"{path} is not valid JSON ({exc}); left untouched") from None
    if not isinstance(data, dict) or not isinstance(data.get("approvals", []), list):
        raise installkit.InstallError(f"{path} is not a Hermes allowlist; left untouched")
    approvals = list(data.get("approvals", []))
    cmd = command()
    kept = [a for a in approvals if not (isinstance(a, dict) and is_ours(a))]
    if remove:
        new_list = kept
    else:
        have = {(a.get("event"), a.get("command")) for a in approvals if isinstance(a, dict)}
        # an approval of this very command stays as it was (its approved_at is the user's consent)
        new_list = kept + [a for a in approvals if isinstance(a, dict) and is_ours(a) and a.get("command") == cmd
                           and a.get("event") in EVENTS]
        for event in EVENTS:
            if (event, cmd) not in have:
                new_list.append({"event": event, "command": cmd, "approved_at": _iso(time.time()),
                                 "script_mtime_at_approval": _script_mtime()})
    lock = path + ".lock"
    if new_list == approvals and (before is not None or remove):
        return installkit.Change(path, before, before, lock)
    restored = installkit.removal(path, before, remove, lock)
    if restored is not None:
        return restored
    new = dict(data)
    new["approvals"] = new_list
    return installkit.Change(path, before, json.dumps(new, indent=2, sort_keys=True).encode("utf-8"), lock)


def plans(project: str | None, remove: bool, opts: Mapping[str, Any]) -> list[installkit.Change]:
    """Hermes has no per-project hooks: ``project`` is ignored; every home gets the same."""
    out = []
    for home in homes():
        out.append(plan_config(os.path.join(home, "config.yaml"), remove))
        out.append(plan_allowlist(os.path.join(home, ALLOWLIST), remove))
    return out


def found() -> str | None:
    """Hermes on PATH, or its home (``HERMES_HOME`` or ~/.hermes)."""
    import shutil

    return shutil.which(PROGRAM) or (hermes_home() if os.path.isdir(hermes_home()) else None)
