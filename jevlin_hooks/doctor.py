"""`jevlin-hooks doctor`: is everything in place, and will the hooks actually run?

One line per finding: `ok`, or `!!` with the fix. Exit status 1 when anything needs fixing.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import time
from typing import Any

from jevlin_hooks import install
from jevlin_hooks.base import config, log, paths, spool


def _load_json(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return "unreadable"


def _ours_in_grouped(data: Any) -> dict[str, list[tuple[int, int, dict[str, Any]]]]:
    found: dict[str, list[tuple[int, int, dict[str, Any]]]] = {}
    hooks = data.get("hooks") if isinstance(data, dict) else None
    if not isinstance(hooks, dict):
        return found
    for event, groups in hooks.items():
        for gi, group in enumerate(groups if isinstance(groups, list) else []):
            for hi, h in enumerate(group.get("hooks", []) if isinstance(group, dict) else []):
                if install.is_ours(h):
                    found.setdefault(event, []).append((gi, hi, h))
    return found


def _entry_ok(h: dict[str, Any]) -> bool:
    text = " ".join([str(h.get("command", ""))] + [str(a) for a in h.get("args", []) or []])
    return os.path.exists(install.ENTRY) and install.ENTRY in text


def _snake(event: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in event).lstrip("_")


def _hook_file(out: list[tuple[bool, str]], harness: str, present: bool, path: str) -> Any:
    """The harness's hook file, when the harness is on this machine ({} when the file is missing);
    None when the harness is absent or the file unreadable (reported)."""
    if not present:
        return None
    data = _load_json(path)
    if data == "unreadable":
        out.append((False, f"{harness}: {path} is not valid JSON; fix it, then "
                           f"`jevlin-hooks install --harness {harness}`"))
        return None
    return {} if data is None else data


def check_claude(out: list[tuple[bool, str]]) -> None:
    path = install.claude_settings_path(None)
    data = _hook_file(out, "claude-code", bool(shutil.which("claude") or os.path.isdir(os.path.dirname(path))), path)
    if data is None:
        return
    ours = _ours_in_grouped(data)
    missing = [e for e in install.CLAUDE_EVENTS if e not in ours]
    if not ours:
        out.append((False, "claude-code: found, hooks not installed; run `jevlin-hooks install --harness claude-code`"))
        return
    if missing:
        out.append((False, f"claude-code: {len(missing)} event(s) without our hook ({', '.join(missing)}); "
                           "run `jevlin-hooks install --harness claude-code`"))
    elif not all(_entry_ok(h) for v in ours.values() for _, _, h in v):
        out.append((False, "claude-code: hooks point at another install of jevlin-hooks; run `jevlin-hooks install` again"))
    else:
        out.append((True, f"claude-code: hooks installed for all {len(install.CLAUDE_EVENTS)} events in {path}"))
    if isinstance(data, dict) and data.get("disableAllHooks") is True:
        out.append((False, f"claude-code: \"disableAllHooks\": true in {path}: no hook runs; remove it"))


def check_codex(out: list[tuple[bool, str]]) -> None:
    home = install.codex_home()
    path = install.codex_hooks_path(None)
    data = _hook_file(out, "codex", bool(shutil.which("codex") or os.path.isdir(home)), path)
    if data is None:
        return
    cfg = _codex_config(home)
    ours = _ours_in_grouped(data)
    if not ours:
        out.append((False, "codex: found, hooks not installed; run `jevlin-hooks install --harness codex`"))
    else:
        out.append((True, f"codex: hooks installed for {len(ours)} events in {path}"))
        # Codex runs a hooks.json handler only once the user trusted it (/hooks), recorded
        # in config.toml as hooks.state."<path>:<event>:<group>:<handler>".trusted_hash.
        state = (cfg.get("hooks") or {}).get("state") or {}
        trusted = {k for k, v in state.items() if isinstance(v, dict) and v.get("trusted_hash")}
        # Codex keys trust by the hooks.json path, canonicalised when CODEX_HOME is set.
        untrusted = [(e, gi, hi) for e, v in ours.items() for gi, hi, _ in v
                     if not {f"{p}:{_snake(e)}:{gi}:{hi}" for p in (path, os.path.realpath(path))} & trusted]
        if untrusted:
            out.append((False, f"codex: {len(untrusted)} of our hooks not trusted yet, so Codex skips them; "
                               "start `codex`, type /hooks and approve them"))
        else:
            out.append((True, "codex: our hooks are trusted (re-approve in /hooks after any reinstall)"))
    notify = cfg.get("notify")
    if isinstance(notify, list) and any(install.MARK in str(a) for a in notify):
        out.append((True, "codex: notify runs jevlin-hooks (turns are counted once with hooks)"))


def _codex_config(home: str) -> dict[str, Any]:
    try:
        import tomllib

        with open(os.path.join(home, "config.toml"), "rb") as f:
            return tomllib.load(f)
    except (OSError, ValueError):
        return {}


def check_cursor(out: list[tuple[bool, str]]) -> None:
    path = install.cursor_hooks_path(None)
    data = _hook_file(out, "cursor", bool(shutil.which("cursor") or os.path.isdir(os.path.dirname(path))), path)
    if data is None:
        return
    hooks = data.get("hooks") if isinstance(data, dict) else None
    ours = [e for e, hs in (hooks or {}).items() if isinstance(hs, list) and any(install.is_ours(h) for h in hs)]
    if not ours:
        out.append((False, "cursor: found, hooks not installed; run `jevlin-hooks install --harness cursor`"))
        return
    out.append((True, f"cursor: hooks installed for {len(ours)} events in {path}"))
    claude = _ours_in_grouped(_load_json(install.claude_settings_path(None)))
    if claude:
        out.append((True, "cursor: with Cursor's third-party hooks on, your ~/.claude hooks see Cursor's events too; "
                          "those copies are recognised and counted once"))


def check_hermes(out: list[tuple[bool, str]]) -> None:
    """Found, installed (every event, the current command and matcher), approved in the
    allowlist (Hermes skips unapproved hooks silently outside a terminal), in every home."""
    from jevlin_hooks import install_hermes as ih

    if not (shutil.which("hermes") or os.path.isdir(ih.hermes_home())):
        return
    fix = "run `jevlin-hooks install --harness hermes`"
    for home in ih.homes():
        path = os.path.join(home, "config.yaml")
        try:
            with open(path, encoding="utf-8") as f:
                data = ih._yaml().load(f)
        except FileNotFoundError:
            data = None
        except Exception as exc:  # noqa: BLE001 - any parse failure is the user's to fix
            out.append((False, f"hermes: {path} is not valid YAML ({type(exc).__name__}); fix it, then {fix}"))
            continue
        hooks = data.get("hooks") if isinstance(data, dict) else None
        ours = {e: [h for h in hs if ih.is_ours(h)] for e, hs in (hooks or {}).items() if isinstance(hs, list)}
        ours = {e: hs for e, hs in ours.items() if hs}
        if not ours:
            out.append((False, f"hermes: found, hooks not installed in {home}; {fix}"))
            continue
        missing = [e for e in ih.EVENTS if e not in ours]
        cmd = ih.command()
        stale = sorted({str(h.get("command")) for hs in ours.values() for h in hs} - {cmd})
        if missing:
            out.append((False, f"hermes: {len(missing)} event(s) without our hook in {path} ({', '.join(missing)}); {fix}"))
        elif stale:
            out.append((False, f"hermes: our hooks in {path} run another command than this install's; {fix}"))
        else:
            out.append((True, f"hermes: hooks installed for all {len(ih.EVENTS)} events in {path}"))
        want = ih.matcher(ih._search_tools())
        if any(h.get("matcher") != want for e in ih.TOOL_EVENTS for h in ours.get(e, [])):
            out.append((False, f"hermes: the tool matcher in {path} is not [search] tools' any more; {fix}"))
        allow = _load_json(os.path.join(home, ih.ALLOWLIST))
        approved = {(a.get("event"), a.get("command")) for a in (allow or {}).get("approvals", [])
                    if isinstance(a, dict)} if isinstance(allow, dict) else set()
        # consent is keyed by the exact command string: a changed command is an unapproved one
        unapproved = [e for e, hs in ours.items() for h in hs if (e, h.get("command")) not in approved]
        if unapproved:
            out.append((False, f"hermes: {len(unapproved)} of our hooks not approved in {home}/{ih.ALLOWLIST} "
                               f"(consent drift: Hermes skips them outside a terminal); {fix}"))
        else:
            out.append((True, f"hermes: our hooks are approved in {home}/{ih.ALLOWLIST}"))
        if isinstance(data, dict) and data.get("hooks_auto_accept") is True:
            out.append((True, f"hermes: hooks_auto_accept is on in {path}: Hermes runs any hook without asking"))


def check_pi(out: list[tuple[bool, str]]) -> None:
    """Pi: our extension file in its agent dir, current, and pointing at an interpreter and entry
    point that exist (Pi would load it and get nothing otherwise)."""
    from jevlin_hooks import install_pi

    agent = install_pi.agent_dir()
    if not (shutil.which("pi") or os.path.isdir(agent)):
        return
    path = install_pi.extension_path()
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        out.append((False, "pi: found, extension not installed; run `jevlin-hooks install --harness pi`"))
        return
    except OSError as exc:
        out.append((False, f"pi: cannot read {path} ({exc.strerror}); run `jevlin-hooks install --harness pi`"))
        return
    if not install_pi.is_ours(data):
        out.append((False, f"pi: {path} is not ours; move it away, then `jevlin-hooks install --harness pi`"))
        return
    text = data.decode("utf-8", "replace")
    if install.ENTRY not in text or not os.path.exists(install.ENTRY):
        out.append((False, "pi: the extension points at another install of jevlin-hooks; run "
                           "`jevlin-hooks install --harness pi` again"))
    elif data != install_pi.render():
        out.append((False, "pi: the extension is from another version or interpreter; run "
                           "`jevlin-hooks install --harness pi` again"))
    else:
        out.append((True, f"pi: extension installed in {path}; it loads at the next `pi` start "
                          "(not with `pi --no-extensions`)"))


def check_home(home: str, out: list[tuple[bool, str]]) -> None:
    from jevlin_hooks.privacy import ids
    from jevlin_hooks.ship import control
    from jevlin_hooks.ship import daemon_state as dstatus

    got, why = config.settings(home, use_cache=False)
    if got is None:  # the same line status and the hook log give
        out.append((False, f"config: {why} (every key: `jevlin-hooks config example`; in effect: `jevlin-hooks config show`)"))
        if paths.untrusted(home):
            return  # read nothing more from a home we refuse
        cfg = dict(config.defaults(), trace="off")
    else:
        cfg = got
    if got is not None and not config.trace_on(cfg):
        out.append((True, "trace is off: nothing is recorded or sent (JEVLIN_TRACE / trace = \"off\")"))
    elif got is not None:  # what `status` shows on its trace line: the same effective settings
        out.append((True, f"config: trace on, sink {cfg['ship']['sink']}, turn_end "
                          f"{'on' if cfg['miner']['turn_end'] else 'off'}"))
    key = os.path.join(home, "state", "key")
    try:
        st = os.lstat(key)
        if not stat.S_ISREG(st.st_mode) or st.st_mode & 0o077:
            out.append((False, f"key: {key} is readable by others; run `chmod 600 {key}`"))
        else:
            ids.load_key(home, create=False)
            out.append((True, "key: present, 0600"))
    except FileNotFoundError:
        out.append((True, "key: not created yet (the first SessionStart creates it)"))
    except ids.KeyError_ as exc:
        out.append((False, f"key: {exc}"))
    pid = control.running_pid(home)
    if pid:
        out.append((True, f"daemon: running (pid {pid})"))
    elif got is None:
        out.append((True, "daemon: not running; hooks start none while the config is unusable"))
    elif cfg["daemon"]["autostart"]:
        out.append((True, "daemon: not running; the next SessionStart starts it (or `jevlin-hooks daemon start`)"))
    else:
        out.append((False, "daemon: not running and autostart is off; run `jevlin-hooks daemon start` "
                           "or `jevlin-hooks daemon install-service`"))
    waiting = spool.count(home, "new")
    age = spool.oldest_age(home)
    quarantined = spool.count(home, "quarantine")
    if age is not None and age > 3600 and not pid:
        out.append((False, f"queue: {waiting} record(s) waiting, oldest {age / 3600:.1f}h; start the daemon"))
    else:
        out.append((True, f"queue: {waiting} waiting, {quarantined} quarantined"))
    if quarantined:
        out.append((False, f"queue: {quarantined} record(s) in quarantine: see `jevlin-hooks quarantine list`, "
                           "then `jevlin-hooks quarantine release` (or `purge --yes`)"))
    if os.path.exists(os.path.join(home, "state", "spool_full")):
        out.append((False, "queue: SPOOL FULL, hooks are dropping new records; start the daemon or raise [spool] max_mb"))
    # Only what is wrong now: the daemon clears a problem as soon as what caused it works again.
    out += [(False, f"delivery: {p}") for p in control.problems(home, dstatus.load(home))]
    from jevlin_hooks.base import lost  # a home hooks cannot write (read-only, full): events lost, named

    out += [(not failing, f"recording: {line}") for failing, line in lost.problems(home)]
    errors = [e for e in log.tail(home, "hook.log", 50) if e[:10] == time.strftime("%Y-%m-%d", time.gmtime())]
    if errors:
        out.append((False, f"hooks: {len(errors)} failure(s) logged today in {os.path.join(home, 'logs', 'hook.log')}"))


def run() -> int:
    home = paths.home()
    out: list[tuple[bool, str]] = []
    check_claude(out)
    check_codex(out)
    check_cursor(out)
    check_hermes(out)
    check_pi(out)
    if not out:
        out.append((False, "no coding agent found (claude, codex, cursor, hermes, pi); install one, then "
                           "`jevlin-hooks install`"))
    check_home(home, out)
    from jevlin_hooks.views.term import inert

    for ok, line in out:
        print(inert(("ok  " if ok else "!!  ") + line))
    return 0 if all(ok for ok, _ in out) else 1
