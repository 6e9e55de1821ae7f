"""Hermes's lines in `jevlin-hooks doctor`, for its home and every profile home."""

from __future__ import annotations

import os
import shutil

from jevlin_hooks import installkit
from jevlin_hooks.harnesses.hermes import install


def check(out: installkit.Findings) -> None:
    """Found, installed (every event, the current command and matcher), approved in the
    allowlist (Hermes skips unapproved hooks silently outside a terminal), in every home."""
    if not (shutil.which("hermes") or os.path.isdir(install.hermes_home())):
        return
    fix = "run `jevlin-hooks install --harness hermes`"
    for home in install.homes():
        path = os.path.join(home, "config.yaml")
        try:
            with open(path, encoding="utf-8") as f:
                data = install._yaml().load(f)
        except FileNotFoundError:
            data = None
        except installkit.InstallError as exc:  # read, but refused: aliases that expand too far
            out.append((False, f"hermes: {path}: {exc}; fix it, then {fix}"))
            continue
        except Exception as exc:  # noqa: BLE001 - any parse failure is the user's to fix
            out.append((False, f"hermes: {path} is not valid YAML ({type(exc).__name__}); fix it, then {fix}"))
            continue
        hooks = data.get("hooks") if isinstance(data, dict) else None
        ours = {e: [h for h in hs if install.is_ours(h)] for e, hs in (hooks or {}).items() if isinstance(hs, list)}
        ours = {e: hs for e, hs in ours.items() if hs}
        if not ours:
            out.append((False, f"hermes: found, hooks not installed in {home}; {fix}"))
            continue
        missing = [e for e in install.EVENTS if e not in ours]
        cmd = install.command()
        stale = sorted({str(h.get("command")) for hs in ours.values() for h in hs} - {cmd})
        if missing:
            out.append((False, f"hermes: {len(missing)} event(s) without our hook in {path} ({', '.join(missing)}); {fix}"))
        elif stale:
            out.append((False, f"hermes: our hooks in {path} run another command than this install's; {fix}"))
        else:
            out.append((True, f"hermes: hooks installed for all {len(install.EVENTS)} events in {path}"))
        want = install.matcher(install._search_tools())
        if any(h.get("matcher") != want for e in install.TOOL_EVENTS for h in ours.get(e, [])):
            out.append((False, f"hermes: the tool matcher in {path} is not [search] tools' any more; {fix}"))
        allow = installkit.load_json(os.path.join(home, install.ALLOWLIST))
        approved = {(a.get("event"), a.get("command")) for a in (allow or {}).get("approvals", [])
                    if isinstance(a, dict)} if isinstance(allow, dict) else set()
        # consent is keyed by the exact command string: a changed command is an unapproved one
        unapproved = [e for e, hs in ours.items() for h in hs if (e, h.get("command")) not in approved]
        if unapproved:
            out.append((False, f"hermes: {len(unapproved)} of our hooks not approved in {home}/{install.ALLOWLIST} "
                               f"(consent drift: Hermes skips them outside a terminal); {fix}"))
        else:
            out.append((True, f"hermes: our hooks are approved in {home}/{install.ALLOWLIST}"))
        if isinstance(data, dict) and data.get("hooks_auto_accept") is True:
            out.append((True, f"hermes: hooks_auto_accept is on in {path}: Hermes runs any hook without asking"))
