"""The harness table: one module per harness, each providing the same small interface.

Every ``harness/<name>.py`` defines:

  NAME                                  the harness's name in lineage files and records
  normalize(payload, cfg, now)          the hook payload -> a normalized event (engine.py), or None
  answer(payload) -> list[str]          what the harness reads on stdout: its neutral answer, or []
  route(ev, home) -> None               map a child thread's event onto its root thread's lineage
  enrich(ev, cfg) -> None               add what the harness's own files know (history, turn usage)
  history_for(pending) -> str | None    the history of a call closed later (a batch, the sweep)
  from_env(env) -> (session, agent, call) | None
                                        the lineage a search process names in its environment
  read_payload(invoked_as, argv) -> bytes | None
                                        a payload passed as arguments (Codex notify); None = stdin
  neutral_answer() -> list[str]         the answer when the payload cannot be read at all

A harness whose agent streams its events to one resident recorder (Pi: ``entry.py pi --stream``,
see hook.serve) may also define ``closing_payload(last_payload) -> payload | None``: what to apply
to a session whose stream ended without its shutdown (the agent was killed).

Adding a harness is one module here, a line in ``MODULES`` and an installer entry. Modules are
imported only when used: the hook path pays for one harness, never for all of them.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from jevlin_hooks.capture.harness import claude_code, codex, cursor, hermes, pi
    from jevlin_hooks.capture.shapes import Harness

    # mypy checks here that every harness module provides the whole interface
    _ALL: tuple[Harness, ...] = (claude_code, codex, cursor, pi, hermes)

# harness name -> module under jevlin_hooks.capture.harness
MODULES = {
    "claude-code": "claude_code",
    "codex": "codex",
    "cursor": "cursor",
    "hermes": "hermes",
    "pi": "pi",
}
HARNESSES = tuple(MODULES)
# the variable a harness's shell tool carries when it names its session (context.py looks only
# at harnesses whose variable is set, so a lookup imports one module at most)
ENV_SESSION = {"claude-code": "CLAUDE_CODE_SESSION_ID", "codex": "CODEX_SESSION_ID",
               "hermes": "HERMES_SESSION_ID", "pi": "JEVLIN_PI_SESSION_ID"}
# other names an installed command may run under -> the harness they belong to
ALIASES = {"codex-notify": "codex"}


def get(name: str) -> Harness:
    """The module for a harness name; ValueError for a name we do not know."""
    mod = MODULES.get(ALIASES.get(name, name))
    if mod is None:
        raise ValueError(f"unknown harness {name!r}")
    # __import__ rather than importlib: importlib is not loaded yet under `python -I -S`.
    harness: Harness = __import__(f"jevlin_hooks.capture.harness.{mod}", fromlist=["NAME"])
    return harness
