"""Gemini CLI's lines in `jevlin-hooks doctor`: every event hooked by this install, with the tool
matcher of today's ``[search] tools``; hooks not switched off (``hooksConfig``); and folder trust,
without which Gemini runs no hook at all: whether the current folder is trusted, and that install
never trusts one."""

from __future__ import annotations

import os
import shutil
from typing import Any

from jevlin_hooks import installkit
from jevlin_hooks.harnesses.gemini_cli import install

NAME = "gemini-cli"
FIX = f"run `jevlin-hooks install --harness {NAME}`"


def _read(path: str, out: installkit.Findings) -> dict[str, Any] | None:
    try:
        return installkit.read_jsonc(path)[1]
    except installkit.InstallError:
        out.append((False, f"{NAME}: {path} is not valid JSON (comments allowed); fix it, then {FIX}"))
        return None
    except OSError as exc:
        out.append((False, f"{NAME}: cannot read {path} ({exc.strerror or exc})"))
        return None


def check(out: installkit.Findings) -> None:
    if not (shutil.which(install.PROGRAM) or os.path.isdir(install.gemini_dir())):
        return
    path = install.settings_path(None)
    user = _read(path, out)
    if user is None:
        return
    here = os.getcwd()
    project_path = install.settings_path(here)
    project = _read(project_path, out) if os.path.isfile(project_path) else {}
    if project is None:
        return
    installed = [(p, d) for p, d in ((path, user), (project_path, project)) if installkit.ours_in_grouped(d)]
    if not installed:
        out.append((False, f"{NAME}: found, hooks not installed; {FIX}"))
    for p, d in installed:
        _check_install(out, p, d)
    _check_switches(out, user, path)
    trust(out, here, user)


def _check_install(out: installkit.Findings, path: str, data: dict[str, Any]) -> None:
    ours = installkit.ours_in_grouped(data)
    missing = [e for e in install.EVENTS if e not in ours]
    if missing:
        out.append((False, f"{NAME}: {len(missing)} event(s) without our hook in {path} ({', '.join(missing)}); {FIX}"))
        return
    if not all(installkit.entry_ok(h) for v in ours.values() for _, _, h in v):
        out.append((False, f"{NAME}: hooks in {path} point at another install of jevlin-hooks; {FIX} again"))
        return
    want = install.matcher(install.search_tools())
    stale = [e for e in install.TOOL_EVENTS for gi, _, _ in ours[e] if data["hooks"][e][gi].get("matcher") != want]
    if stale:
        out.append((False, f"{NAME}: the tool matcher in {path} predates your [search] tools; {FIX} again"))
        return
    out.append((True, f"{NAME}: hooks installed for all {len(install.EVENTS)} events in {path}"))


def _check_switches(out: installkit.Findings, user: dict[str, Any], path: str) -> None:
    cfg = user.get("hooksConfig")
    if not isinstance(cfg, dict):
        return
    if cfg.get("enabled") is False:
        out.append((False, f"{NAME}: \"hooksConfig\": {{\"enabled\": false}} in {path}: no hook runs; remove it"))
    disabled = cfg.get("disabled")
    names = {install.HOOK_NAME, installkit.shell_command(NAME)}
    if isinstance(disabled, list) and names & {d for d in disabled if isinstance(d, str)}:
        out.append((False, f"{NAME}: our hook is in \"hooksConfig.disabled\" in {path}; remove it from that list"))


# --- folder trust ----------------------------------------------------------------------------

def trusted_folders_path() -> str:
    return os.environ.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH") or os.path.join(install.gemini_dir(), "trustedFolders.json")


def folder_trust(folder: str, settings: dict[str, Any]) -> tuple[bool | None, str]:
    """Does Gemini trust ``folder``, and why (its checkPathTrust, read only): True, False, or None
    (not decided yet: Gemini asks when it starts there, and a headless run refuses)."""
    env = os.environ.get("GEMINI_CLI_TRUST_WORKSPACE")
    if os.environ.get("GEMINI_RESTRICTED_MODE") == "true" or env == "false":
        return False, "the environment says so"
    if env == "true":
        return True, "GEMINI_CLI_TRUST_WORKSPACE=true"
    sec = settings.get("security")
    ft = sec.get("folderTrust") if isinstance(sec, dict) else None
    if isinstance(ft, dict) and ft.get("enabled") is False:
        return True, "folder trust is off in settings.json"
    rules_path = trusted_folders_path()
    try:
        rules = installkit.read_jsonc(rules_path)[1]
    except (installkit.InstallError, OSError):
        return None, f"{rules_path} cannot be read"
    target = os.path.realpath(folder)
    best, level = -1, None
    for rule, value in rules.items():
        base = os.path.dirname(rule) if value == "TRUST_PARENT" else rule
        base = os.path.realpath(base)
        inside = target == base or target.startswith(base.rstrip(os.sep) + os.sep)
        if inside and len(rule) > best:
            best, level = len(rule), value
    if level == "DO_NOT_TRUST":
        return False, f"{rules_path} says so"
    if level in ("TRUST_FOLDER", "TRUST_PARENT"):
        return True, f"{rules_path}"
    return None, "not decided yet"


def trust(out: installkit.Findings, folder: str, settings: dict[str, Any]) -> None:
    """One line: the rule, and where this folder stands. Informational (a folder you do not use
    Gemini in needs no trust); install never writes trustedFolders.json."""
    ok, why = folder_trust(folder, settings)
    state = {True: "trusted", False: "NOT trusted", None: "not trusted yet"}[ok]
    out.append((True, f"{NAME}: Gemini CLI runs hooks (ours and yours) only in folders you trust; {folder} is "
                      f"{state} ({why}). Trust a folder in Gemini itself (it asks on the first start there; "
                      "headless runs need --skip-trust or GEMINI_CLI_TRUST_WORKSPACE=true); install never does"))
