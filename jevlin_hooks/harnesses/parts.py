"""What each harness folder provides, for type checkers only (never imported at run time: typing
costs a hook more than its budget). Each folder's ``__init__.py`` assigns its three modules to
these under ``if TYPE_CHECKING:``, so mypy checks that a new harness is complete.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from jevlin_hooks.capture.shapes import Config, Event, Pending
from jevlin_hooks.installkit import Change, Findings


class Capture(Protocol):
    """``harnesses/<folder>/capture.py``: the hook payload -> a normalized event (engine.py).

    A harness whose agent streams its events to one resident recorder (Pi: ``entry.py pi
    --stream``, see hook.serve) also defines ``closing_payload(last_payload) -> payload | None``:
    what to apply to a session whose stream ended without its shutdown (the agent was killed).

    A harness whose own file is written after its hook runs (Copilot CLI) sets ``history_later``
    / ``summary_later`` on an event whose content is not written yet, and defines
    ``complete(item: Held, final: bool) -> dict | None`` (``shapes.Complete``): what its file now
    says of a held record, None while not written (never None when ``final``: the sweep). The
    hook passes it to engine.apply; the daemon's sweep finds it here by the harness's name.
    """

    NAME: str  # the harness's name in lineage files and records

    def normalize(self, payload: Any, cfg: Config, now: float) -> Event | None:
        """The payload as a normalized event, or None for one that changes nothing."""

    def answer(self, payload: Any) -> list[str]:
        """What the harness reads on stdout: its neutral answer, or []."""

    def route(self, ev: Event, home: str) -> None:
        """Map a child thread's event onto its root thread's lineage."""

    def enrich(self, ev: Event, cfg: Config) -> None:
        """Add what the harness's own files know (history, turn usage)."""

    def history_for(self, p: Pending) -> str | None:
        """The history of a call closed later (a batch, the sweep)."""

    def from_env(self, env: Mapping[str, str]) -> tuple[str, str | None, str | None] | None:
        """(session, agent, call): the lineage a search process names in its environment."""

    def read_payload(self, invoked_as: str, argv: list[str]) -> bytes | None:
        """A payload passed as arguments (Codex notify); None: read stdin."""

    def neutral_answer(self) -> list[str]:
        """The answer when the payload cannot be read at all."""


class Installer(Protocol):
    """``harnesses/<folder>/install.py``: what `install` / `uninstall` change (installkit.py has
    the pieces: Change, the merges, the launcher command)."""

    PROGRAM: str  # the agent's program: doctor names it when no agent is found
    NEXT_STEP: str  # printed after an install: what the user does next

    def plans(self, project: str | None, remove: bool, opts: Mapping[str, Any]) -> list[Change]:
        """The files to change (``--project DIR``: the project's own, where the harness has one;
        ``opts``: the CLI's harness-specific flags, such as Codex's notify and chain)."""

    def found(self) -> str | None:
        """Evidence that the harness is used on this machine (a path), or None."""


class Doctor(Protocol):
    """``harnesses/<folder>/doctor.py``: the harness's lines in `jevlin-hooks doctor`."""

    def check(self, out: Findings) -> None:
        """Append (ok, line) findings; nothing when the harness is not on this machine."""
