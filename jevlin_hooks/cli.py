"""``jevlin-hooks``: the command line.

``context`` is dispatched before argparse is imported: a search process calls it on every
search and its start-up cost is budgeted like a hook's.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing imports re: `context` cannot afford it
if TYPE_CHECKING:
    import argparse
    from typing import Any


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["context"] and len(args) == 1:
        from jevlin_hooks.capture import context

        return context.main()
    if args == ["status"]:  # without argparse and the installer table: status must stay quick
        from jevlin_hooks.views import status_screen

        return status_screen.main()
    try:
        code = _main(args)
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        # The reader went away (`| head`): not an error of ours. Point stdout at /dev/null so the
        # interpreter's own flush at exit does not raise again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        return 130


def _fail(msg: str) -> int:
    print(f"jevlin-hooks: {msg}", file=sys.stderr)
    return 1


class _Subcommands:
    """add_parser with the one-line help also shown as the description of `COMMAND --help`."""

    def __init__(self, sub: Any) -> None:
        self.sub = sub

    def add_parser(self, name: str, help: str) -> Any:  # noqa: A002 - argparse's own name
        return self.sub.add_parser(name, help=help, description=help)


def _harnesses() -> list[str]:
    """The registered harnesses (the registry only: importing their installers would cost every
    command, the daemon's start included, 30 ms)."""
    from jevlin_hooks import harnesses

    return list(harnesses.HARNESSES)


def _main(args: list[str]) -> int:
    import argparse

    from jevlin_hooks import __version__

    parser = argparse.ArgumentParser(prog="jevlin-hooks", description="Jevlin hooks for coding agents.")
    parser.add_argument("--version", action="version", version=f"jevlin-hooks {__version__}")
    sub = _Subcommands(parser.add_subparsers(dest="cmd", required=True, metavar="COMMAND"))
    sub.add_parser("context", help="print this search's trace context as JSON (read-only)")
    sub.add_parser("status", help="threads, queue and recent hook errors on one screen")
    th = sub.add_parser("threads", help="one row per thread in the local store, newest first")
    th.add_argument("--harness", choices=_harnesses())
    th.add_argument("--since", help="only threads active since: 30m, 2h, 7d, 1w or an ISO date")
    th.add_argument("--json", action="store_true")
    one = sub.add_parser("thread", help="a thread read back as the path the agent took")
    one.add_argument("id", help="the thread id, or enough of its start to be unique")
    one.add_argument("--html", metavar="FILE", help="also write a self-contained HTML page")
    ui = sub.add_parser("ui", help="browse the local store's threads in a local web page (loopback only)")
    ui.add_argument("--port", type=int, default=8377, help="0 picks a free port")
    ui.add_argument("--open", action="store_true", help="open it in the default browser")
    sm = sub.add_parser("summarize", help="a thread as stable JSON, to diff two runs of a task")
    sm.add_argument("id")
    sub.add_parser("doctor", help="is everything installed, and will the hooks actually run? one line per finding")
    de = sub.add_parser("demo", help="real agent sessions through hooks, queue, daemon and local store, then the views")
    de.add_argument("--turn-end", choices=["on", "off"], default="on",
                    help="on (the demo's default) shows prompts, conclusions and tokens; off is a default install")
    for name in ("install", "uninstall"):
        p = sub.add_parser(name, help=f"{name} our hooks in a harness's config")
        p.add_argument("--harness", default=None, choices=[*_harnesses(), "all"],
                       help="which harness (default: the ones found on this machine)")
        p.add_argument("--project", nargs="?", const=".", default=None,
                       help="the project's own hook file (.claude/settings.json, .codex/hooks.json, "
                            ".cursor/hooks.json, .gemini/settings.json, .github/hooks/jevlin.json) instead of the user's")
        p.add_argument("--dry-run", action="store_true", help="show the change, write nothing")
        p.add_argument("--notify", action="store_true",
                       help="codex: also set `notify` in config.toml (for Codex versions without hooks)")
        p.add_argument("--chain", action="store_true",
                       help="codex --notify: keep an existing notify program, run after ours")
        if name == "uninstall":
            p.add_argument("--purge", action="store_true",
                           help="also stop the daemon (and its service unit), remove JEVLIN_HOME (config, key, "
                                "queue, local store) and the scrubber's cache; asks first")
            p.add_argument("--yes", action="store_true", help="--purge without asking (needed without a terminal)")
    sc = sub.add_parser("scrub", help="scrub stdin to stdout with the privacy rules")
    sc.add_argument("--list-rules", action="store_true", help="list every rule and what it removes")
    sc.add_argument("--markdown", action="store_true", help="with --list-rules: docs/privacy.md")
    sc.add_argument("--explain", action="store_true", help="print the findings (rule, position), never the secret")
    cf = sub.add_parser("config", help="where the config file is, what is in effect (and from where), the example")
    cf.add_argument("action", choices=["path", "show", "example"])
    key = sub.add_parser("key", help="the local hashing key")
    key.add_argument("action", choices=["rotate", "show-path"])
    key.add_argument("--yes", action="store_true", help="rotate without asking")
    pv = sub.add_parser("preview", help="what would leave the machine for the queued records, sending nothing")
    pv.add_argument("--limit", type=int, default=20)
    dm = sub.add_parser("daemon", help="the daemon that ships queued records")
    dm.add_argument("action", choices=["run", "start", "stop", "status", "install-service"])
    dm.add_argument("--once", action="store_true", help="with run: drain the queue once, then exit")
    sp = sub.add_parser("spool", help="records held back when tracing was turned off")
    sp.add_argument("action", choices=["release-held", "purge-held"])
    sp.add_argument("--yes", action="store_true")
    qu = sub.add_parser("quarantine", help="records set aside (kept scrubbed and hashed, or sealed): "
                                           "list, release to send again, purge")
    qu.add_argument("action", choices=["list", "release", "purge"])
    qu.add_argument("ids", nargs="*", metavar="ID", help="entries to release or purge (default: all)")
    qu.add_argument("--yes", action="store_true", help="purge: really delete")
    hook = sub.add_parser("hook", help="run a hook by hand (reads the event JSON on stdin)")
    hook.add_argument("harness", choices=["claude-code"])
    ns = parser.parse_args(args)

    if ns.cmd == "context":
        from jevlin_hooks.capture import context

        return context.main()
    if ns.cmd in ("threads", "thread", "summarize"):
        return _trajectory(ns)
    if ns.cmd == "config":
        from jevlin_hooks import config_cmd

        return config_cmd.main(ns.action)
    if ns.cmd == "ui":
        from jevlin_hooks.base import paths
        from jevlin_hooks.views import trajectory
        from jevlin_hooks.views import ui as ui_server

        why = trajectory.refusal(paths.home())
        if why:  # another user's store is not served, as the hooks and the daemon refuse it
            return _fail(why)
        return ui_server.serve(paths.home(), ns.port, ns.open)
    if ns.cmd == "doctor":
        from jevlin_hooks import doctor

        return doctor.run()
    if ns.cmd == "status":
        from jevlin_hooks.views import status_screen

        return status_screen.main()
    if ns.cmd == "demo":
        from jevlin_hooks import demo

        return demo.main(turn_end=ns.turn_end == "on")
    if ns.cmd in ("install", "uninstall"):
        return _install(ns)
    if ns.cmd == "scrub":
        return _scrub(ns)
    if ns.cmd == "key":
        return _key(ns)
    if ns.cmd == "preview":
        return _preview(ns)
    if ns.cmd == "daemon":
        return _daemon(ns)
    if ns.cmd == "spool":
        return _spool(ns)
    if ns.cmd == "quarantine":
        return _quarantine(ns)
    if ns.cmd == "hook":
        from jevlin_hooks.capture.hook import main as hook_main

        hook_main(ns.harness)
    return 0


def _trajectory(ns: Any) -> int:
    import json

    from jevlin_hooks.base import paths
    from jevlin_hooks.views import trajectory

    why = trajectory.refusal(paths.home())
    if why:  # read nothing from a home the hooks, the daemon and `status` refuse
        return _fail(why)
    threads = trajectory.build(trajectory.load_records(paths.home()))
    if ns.cmd == "threads":
        try:
            since = trajectory.parse_since(ns.since) if ns.since else None
        except ValueError as exc:
            return _fail(str(exc))
        table = trajectory.rows(threads, ns.harness, since)
        if ns.json:
            print(json.dumps(table, indent=2))
        elif not table and threads:
            what = " and ".join(x for x in (f"--harness {ns.harness}" if ns.harness else "",
                                            f"--since {ns.since}" if ns.since else "") if x)
            print(f"no thread matches {what} ({len(trajectory.roots(threads))} thread(s) in the local store)")
        else:
            print(trajectory.render_rows(table))
        return 0
    try:
        th = trajectory.find(threads, ns.id)
    except LookupError as exc:
        return _fail(str(exc))
    if ns.cmd == "summarize":
        print(json.dumps(trajectory.summarize(th), indent=2, sort_keys=True))
        return 0
    page = None
    if ns.html:  # opened first: a path we cannot write fails before anything is printed
        try:
            page = open(ns.html, "w", encoding="utf-8")  # noqa: SIM115 - closed below
        except OSError as exc:
            return _fail(f"cannot write {ns.html}: {exc.strerror or exc}")
    width = 80
    try:
        width = max(60, min(120, os.get_terminal_size().columns)) if sys.stdout.isatty() else 80
    except OSError:
        pass
    print(trajectory.render_text(th, width, turn_end_hint=_turn_end_hint()))
    if page is not None:
        from jevlin_hooks.views import trajectory_html

        with page:
            page.write(trajectory_html.render(th))
        print(f"\nwrote {os.path.abspath(ns.html)}")
    return 0


def _turn_end_hint() -> str:
    from jevlin_hooks.base import config, paths

    path = os.path.join(paths.home(), config.CONFIG_NAME)
    return f"turn ends are off, so prompts and conclusions are not shown: set [miner] turn_end = true in {path}"


def _daemon(ns: argparse.Namespace) -> int:
    from jevlin_hooks.base import paths
    from jevlin_hooks.ship import control

    home = paths.home()
    action = ns.action
    if action == "run":
        from jevlin_hooks.ship import service

        return service.main(["--once"] if ns.once else [])
    if action == "start":
        ok, msg = control.start(home)
    elif action == "stop":
        ok, msg = control.stop(home)
    elif action == "install-service":
        path, enable = control.install_service(home)
        print(f"wrote {path}\nenable it with: {enable}")
        return 0
    else:
        print("\n".join(control.status_lines(home)))
        return 0
    print(msg, file=sys.stdout if ok else sys.stderr)
    return 0 if ok else 1


def _spool(ns: argparse.Namespace) -> int:
    import shutil

    from jevlin_hooks.base import paths, spool

    home = paths.home()
    if ns.action == "release-held":
        print(f"{spool.release_held(home)} held record(s) queued again")
        return 0
    if not ns.yes:
        return _fail("purge-held deletes the records held back when tracing was off; pass --yes")
    held = os.path.join(home, "spool", "held")
    n = spool.count(home, "held")
    shutil.rmtree(held, ignore_errors=True)
    print(f"{n} held record(s) deleted")
    return 0


def _quarantine(ns: Any) -> int:
    import time

    from jevlin_hooks.base import config, paths
    from jevlin_hooks.privacy import ids
    from jevlin_hooks.ship import quarantine
    from jevlin_hooks.ship.sinks.http import inert

    home = paths.home()
    chosen, unknown = quarantine.select(home, ns.ids)
    for w in unknown:
        print(f"jevlin-hooks: no single quarantined record {inert(w, 80)!r}", file=sys.stderr)
    if ns.action == "list":
        for e in chosen:  # a file name is as inert as every other field: no control reaches the terminal
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(e.at)) if e.at else "?"
            print(f"{inert(e.id, 80):<10} {when}  {inert(e.kind or '?', 32):<8} {e.form:<6} {inert(e.reason, 200)}")
        print(f"{len(chosen)} quarantined record(s)" + ("; `jevlin-hooks quarantine release [ID...]` queues them "
                                                       "again" if chosen else ""), file=sys.stderr)
        return 1 if unknown else 0
    if ns.action == "release":
        try:
            key = ids.load_key(home, create=False)
        except ids.KeyError_ as exc:
            return _fail(str(exc))
        cfg, _ = config.settings(home)
        disabled = config.disabled_rules(cfg)  # unusable config: every rule on
        n, problems = quarantine.release(home, chosen, key, disabled)
        for p in problems:
            print(f"jevlin-hooks: not released: {inert(p, 400)}", file=sys.stderr)
        print(f"{n} quarantined record(s) queued again")
        return 1 if problems or unknown else 0
    if not ns.yes:
        return _fail(f"purge deletes {len(chosen)} quarantined record(s) for good; pass --yes")
    print(f"{quarantine.purge(home, chosen)} quarantined record(s) deleted")
    return 1 if unknown else 0


def _scrub(ns: argparse.Namespace) -> int:
    from jevlin_hooks.base import config, paths
    from jevlin_hooks.privacy import scrub
    from jevlin_hooks.privacy.rules import RULES

    if ns.list_rules:
        if ns.markdown:
            from jevlin_hooks.privacy import docs

            sys.stdout.write(docs.markdown())
        else:
            from jevlin_hooks.privacy.checks.judges import JUDGES

            for name, category, description in [*((r.name, r.category, r.description) for r in RULES),
                                                 *((j.name, j.category, j.description) for j in JUDGES)]:
                print(f"{name:28} {category:6} {description}")
        return 0
    cfg, _ = config.settings(paths.home())
    disabled = config.disabled_rules(cfg)  # unusable config: every rule on
    data = sys.stdin.buffer.read().decode("utf-8", "replace")
    clean, findings = scrub.scrub(data, disabled)
    if ns.explain:
        for f in findings:
            line = data.count("\n", 0, f.start) + 1
            col = f.start - (data.rfind("\n", 0, f.start) + 1) + 1
            print(f"{f.rule}\tline {line}, column {col}\t({f.end - f.start} chars)")
        print(f"{len(findings)} finding(s)", file=sys.stderr)
    else:
        sys.stdout.write(clean)
    return 0


def _key(ns: argparse.Namespace) -> int:
    from jevlin_hooks.base import paths
    from jevlin_hooks.privacy import ids

    home = paths.home()
    if ns.action == "show-path":
        print(os.path.join(home, "state", ids.KEY_NAME))
        return 0
    if not ns.yes:
        if not sys.stdin.isatty():
            return _fail("rotating the key splits every thread in two; pass --yes to do it")
        answer = input("A new key means threads hashed before no longer join threads hashed after. Rotate? [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            print("key unchanged")
            return 1
    from jevlin_hooks.ship import quarantine

    try:
        done = quarantine.rotate_key(home)
    except ids.KeyError_ as exc:  # sealed entries need the current key to be resealed
        return _fail(f"key unchanged: {exc}; sealed quarantine entries are resealed under the new key "
                     "with the current one, so it must be usable first")
    except OSError as exc:
        return _fail(f"cannot write the key: {exc.strerror or exc}")
    print("new key written; ids hashed from now on will not match earlier ones")
    if done.resealed:
        print(f"quarantine: {done.resealed} sealed record(s) resealed under the new key (`quarantine release` "
              "still opens them)")
    if done.safe:
        print(f"quarantine: {done.safe} safe record(s) unchanged: their ids stay hashed with the old key, "
              "as the rest of their threads")
    if done.unreadable:
        print(f"quarantine: {len(done.unreadable)} sealed record(s) were sealed under a key older than the "
              f"one replaced and cannot be opened ({', '.join(done.unreadable[:5])}); "
              "`jevlin-hooks quarantine purge ID --yes` removes them", file=sys.stderr)
    return 0


def _preview(ns: argparse.Namespace) -> int:
    import json

    from jevlin_hooks.base import config, paths, spool
    from jevlin_hooks.privacy import ids, record
    from jevlin_hooks.ship import quarantine

    home = paths.home()
    cfg, why = config.settings(home, use_cache=False)
    if cfg is None:  # the same answer the daemon gets: nothing would be sent
        return _fail(why)
    try:
        key = ids.load_key(home, create=True)
    except ids.KeyError_ as exc:
        return _fail(str(exc))
    if key is None:
        return _fail(f"no key and cannot create one in {home}")
    records = spool.read_all(home, "new") + spool.read_all(home, "cur")
    if not config.trace_on(cfg):
        print("trace is off: nothing would be sent", file=sys.stderr)
        return 0
    shown = 0
    for rec in records[: max(0, ns.limit)]:
        try:
            safe = quarantine.safe_form(rec, key, config.disabled_rules(cfg))
        except record.InvalidRecord as exc:
            print(json.dumps({"invalid": str(exc)}))
            continue
        print(json.dumps(safe, sort_keys=True))
        shown += 1
    print(f"{shown} of {len(records)} queued record(s) shown; nothing was sent", file=sys.stderr)
    return 0


def _pick_harnesses(remove: bool) -> list[str] | int:
    """No --harness: install into the harnesses found here (asking first on a terminal), and
    say which; uninstall looks at every harness (only those holding our hooks change)."""
    from jevlin_hooks import harnesses, install

    if remove:
        return list(harnesses.HARNESSES)
    found = install.detect()
    missing = [h for h in harnesses.HARNESSES if h not in found]
    if not found:
        return _fail(f"no harness found on this machine (looked for {', '.join(harnesses.HARNESSES)}); "
                     "name one with --harness")
    print("found: " + ", ".join(f"{h} ({where})" for h, where in found.items())
          + (f"; not found: {', '.join(missing)}" if missing else ""))
    if sys.stdin.isatty() and sys.stdout.isatty():
        answer = input(f"install into {', '.join(found)}? [Y/n] ").strip().lower()
        if answer not in ("", "y", "yes"):
            print("nothing installed; pick one with --harness")
            return 1
    return list(found)


def _install(ns: Any) -> int:
    from jevlin_hooks import harnesses, install, installkit

    remove = ns.cmd == "uninstall"
    purge = remove and ns.purge
    if purge and (ns.harness not in (None, "all") or ns.project is not None):
        return _fail("--purge removes what every harness shares: use it with --harness all (or no --harness) "
                     "and without --project")
    if ns.harness is None:
        picked = _pick_harnesses(remove)
        if isinstance(picked, int):
            return picked
        chosen = picked
    else:
        chosen = list(harnesses.HARNESSES) if ns.harness == "all" else [ns.harness]
    plans = []
    try:
        for h in chosen:
            plans.extend(install.plans_for(h, ns.project, remove, {"notify": ns.notify, "chain": ns.chain}))
    except installkit.InstallError as exc:
        return _fail(str(exc))
    if remove:
        return _uninstall(ns, plans, purge)
    if ns.dry_run:
        for change in _one_per_file(plans):
            print(change.diff() or f"{change.path}: no change")
        return 0
    import compileall

    # Hooks run with -I -S from this package: make sure they never pay for compiling it
    # (the hook path's own modules, and each harness's capture module).
    package = os.path.dirname(os.path.dirname(installkit.ENTRY))
    for part in ("capture", "harnesses"):
        compileall.compile_dir(os.path.join(package, part), quiet=1)
    code = _write_all(plans, remove=False)
    if code:
        return code
    for h in chosen:
        print(install.next_step(h))
    return 0


def _one_per_file(plans: list[Any], said: bool = False) -> list[Any]:
    """The changes to distinct files: two names for one file (a symlink, a profile linked to the
    main config) are planned alike, and the file is written once (``said``: and say so)."""
    from jevlin_hooks import installkit

    seen: dict[str, str] = {}
    out = []
    for change in plans:
        key = installkit.same_file(change.path)
        if key in seen:
            if said and change.changed:
                print(f"{change.path}: the same file as {seen[key]}")
            continue
        seen[key] = change.path
        out.append(change)
    return out


def _write_all(plans: list[Any], remove: bool) -> int:
    """Apply each change, one line each; nothing for a file that needs none on uninstall (a
    harness never installed into has nothing to say). Every lock first: a lock held by another
    process fails the command (after a bounded wait, saying on whom) before any file changes."""
    from jevlin_hooks import installkit

    changes = _one_per_file(plans, said=True)
    try:
        with installkit.locks(changes, notice=lambda msg: print(f"jevlin-hooks: {msg}", file=sys.stderr)):
            for change in changes:
                _write_one(change, remove)
    except installkit.InstallError as exc:
        return _fail(str(exc))
    return 0


def _write_one(change: Any, remove: bool) -> None:
    from jevlin_hooks import installkit

    if not change.changed:
        if not remove:
            print(f"{change.path}: already up to date")
        return
    link = os.path.islink(change.path)
    try:
        backup = installkit.apply(change, held=True)
    except OSError as exc:
        raise installkit.InstallError(f"cannot write {change.path}: {exc.strerror or exc}") from None
    if change.after is None and link:
        print(f"removed the symlink {change.path}; the file it named is left where it is")
        return
    verb = "removed our hooks from" if remove else "installed hooks in"
    through = f" (through the symlink, in {os.path.realpath(change.path)})" if link else ""
    print(f"{verb} {change.path}{through}" + (f" (backup: {backup})" if backup else ""))


def _uninstall(ns: Any, plans: list[Any], purge: bool) -> int:
    """Our hooks out; then, plainly, what is left and how to remove it, or with --purge (asked
    first on a terminal; --yes without one) all of it."""
    from jevlin_hooks import installkit, uninstall
    from jevlin_hooks.base import paths

    home = paths.home()
    left = None
    if purge:
        why = uninstall.refusal(home)
        if why:
            return _fail(why)
        left = uninstall.survey(home, plans)
        try:
            plans = plans + uninstall.project_plans(left)
        except installkit.InstallError as exc:
            return _fail(str(exc))
    hooks = [c for c in _one_per_file(plans) if c.changed]
    if ns.dry_run:
        for change in hooks:
            print(change.diff())
        if left is not None:
            print("\n".join(uninstall.plan_lines(left, hooks)))
        elif not hooks:
            print("no hooks of ours to remove")
        return 0
    if left is not None and not ns.yes and not uninstall.nothing_here(left, hooks):
        if not sys.stdin.isatty():
            return _fail(uninstall.no_terminal(left, hooks))
        print("\n".join(uninstall.plan_lines(left, hooks)))
        if input("Remove all of this? [y/N] ").strip().lower() not in ("y", "yes"):
            print("nothing removed")
            return 1
    # the hooks first: state/installs.json in the home is what gives the user's files back byte for byte
    code = _write_all(plans, remove=True)
    if code:
        return code
    if not hooks:
        print("no hooks of ours to remove")
    if left is None:
        for line in uninstall.left_lines(uninstall.survey(home, plans)):
            print(line)
        return 0
    try:
        lines = uninstall.purge(left)
    except uninstall.PurgeError as exc:
        return _fail(str(exc))
    for line in lines:
        print(line)
    keep = [e for e in left.elsewhere if not e.project]
    for e in keep:
        print(f"left our hooks in {e.path}: {e.how()}")
    if left.backups:
        print(f"kept {len(left.backups)} backup(s) of your files as they were before an install "
              f"(delete them if you do not need them): {', '.join(left.backups)}")
    print("jevlin-hooks itself is still installed: `pipx uninstall jevlin-hooks` (or `uv tool uninstall "
          "jevlin-hooks`, or remove its venv)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
