"""``jevlin-hooks``: the command line.

``context`` is dispatched before argparse is imported: a search process calls it on every
search and its start-up cost is budgeted like a hook's.
"""

from __future__ import annotations

import os
import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["context"] and len(args) == 1:
        from jevlin_hooks import context

        return context.main()
    return _main(args)


def _fail(msg: str) -> int:
    print(f"jevlin-hooks: {msg}", file=sys.stderr)
    return 1


def _main(args: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="jevlin-hooks", description="Jevlin hooks for coding agents.")
    sub = parser.add_subparsers(dest="cmd", required=True)
    sub.add_parser("context", help="print this search's trace context as JSON (read-only)")
    sub.add_parser("status", help="threads, queue and recent hook errors on one screen")
    demo = sub.add_parser("demo", help="replay bundled real agent sessions and show the result")
    demo.add_argument("--keep", action="store_true", help="keep the temporary JEVLIN_HOME")
    for name in ("install", "uninstall"):
        p = sub.add_parser(name, help=f"{name} our hooks in a harness's config")
        p.add_argument("--harness", default="claude-code", choices=["claude-code"])
        p.add_argument("--project", nargs="?", const=".", default=None,
                       help="the project's .claude/settings.json instead of ~/.claude/settings.json")
        p.add_argument("--dry-run", action="store_true", help="show the change, write nothing")
    hook = sub.add_parser("hook", help="run a hook by hand (reads the event JSON on stdin)")
    hook.add_argument("harness", choices=["claude-code"])
    ns = parser.parse_args(args)

    if ns.cmd == "context":
        from jevlin_hooks import context

        return context.main()
    if ns.cmd == "status":
        from jevlin_hooks import status

        return status.main()
    if ns.cmd == "demo":
        from jevlin_hooks import demo

        return demo.main(keep=ns.keep)
    if ns.cmd in ("install", "uninstall"):
        return _install(ns)
    if ns.cmd == "hook":
        from jevlin_hooks.hook import main as hook_main

        hook_main(ns.harness)
    return 0


def _install(ns: object) -> int:
    from jevlin_hooks import install

    remove = ns.cmd == "uninstall"
    path = install.claude_settings_path(ns.project)
    try:
        change = install.plan_claude(path, remove=remove)
    except install.InstallError as exc:
        return _fail(str(exc))
    if ns.dry_run:
        print(change.diff() or f"{path}: no change")
        return 0
    if not change.changed:
        print(f"{path}: already {'free of our hooks' if remove else 'up to date'}")
        return 0
    try:
        backup = install.apply(change)
    except OSError as exc:
        return _fail(f"cannot write {path}: {exc.strerror or exc}")
    if not remove:
        import compileall

        # Hooks run with -I -S from this package: make sure they never pay for compiling it.
        compileall.compile_dir(os.path.dirname(install.ENTRY), quiet=1)
    verb = "removed our hooks from" if remove else "installed hooks in"
    print(f"{verb} {path}" + (f" (backup: {backup})" if backup else ""))
    if not remove:
        print("next: start a new Claude Code session; `jevlin-hooks status` shows what it records")
    return 0


if __name__ == "__main__":
    sys.exit(main())
